//===- ASTDump.cpp - deterministic AST printer (--stage=ast) --------------===//
#include "tile/Frontend/AST.h"

#include "llvm/Support/Casting.h"
#include "llvm/Support/FormatVariadic.h"

using namespace tile::ast;
using llvm::cast;

namespace {
class Dumper {
public:
  explicit Dumper(llvm::raw_ostream &os) : os(os) {}

  void type(const TypeExpr &t) {
    if (t.pointee) {
      os << "ptr<";
      type(*t.pointee);
      os << ">";
      return;
    }
    os << t.name;
  }

  void expr(const Expr &e) {
    switch (e.getKind()) {
    case Expr::Kind::Int:
      os << cast<IntExpr>(e).value;
      return;
    case Expr::Kind::Float:
      os << llvm::formatv("{0:e}", cast<FloatExpr>(e).value);
      return;
    case Expr::Kind::Bool:
      os << (cast<BoolExpr>(e).value ? "true" : "false");
      return;
    case Expr::Kind::Str:
      os << '"' << cast<StrExpr>(e).value << '"';
      return;
    case Expr::Kind::Name:
      os << cast<NameExpr>(e).name;
      return;
    case Expr::Kind::Unary: {
      auto &u = cast<UnaryExpr>(e);
      os << "(" << u.op;
      expr(*u.operand);
      os << ")";
      return;
    }
    case Expr::Kind::Binary: {
      auto &b = cast<BinaryExpr>(e);
      os << "(";
      expr(*b.lhs);
      os << " " << b.op << " ";
      expr(*b.rhs);
      os << ")";
      return;
    }
    case Expr::Kind::Call: {
      auto &c = cast<CallExpr>(e);
      os << c.callee << "(";
      list(c.args);
      for (auto &kw : c.kwargs) {
        os << ", " << kw.name << "=";
        expr(*kw.value);
      }
      os << ")";
      return;
    }
    case Expr::Kind::Method: {
      auto &m = cast<MethodExpr>(e);
      expr(*m.receiver);
      os << "." << m.method << "(";
      list(m.args);
      os << ")";
      return;
    }
    case Expr::Kind::Subscript: {
      auto &s = cast<SubscriptExpr>(e);
      expr(*s.base);
      os << "[";
      for (size_t i = 0; i < s.isNewAxis.size(); ++i)
        os << (i ? ", " : "") << (s.isNewAxis[i] ? "None" : ":");
      os << "]";
      return;
    }
    case Expr::Kind::List:
      os << "[";
      list(cast<ListExpr>(e).elements);
      os << "]";
      return;
    }
  }

  void list(const std::vector<ExprPtr> &exprs) {
    for (size_t i = 0; i < exprs.size(); ++i) {
      if (i)
        os << ", ";
      expr(*exprs[i]);
    }
  }

  void block(const Block &b, unsigned indent) {
    for (auto &s : b)
      stmt(*s, indent);
  }

  void stmt(const Stmt &s, unsigned indent) {
    os.indent(indent);
    switch (s.getKind()) {
    case Stmt::Kind::Let: {
      auto &l = cast<LetStmt>(s);
      os << "let " << l.name;
      if (l.type) {
        os << ": ";
        type(*l.type);
      }
      os << " = ";
      expr(*l.value);
      os << "\n";
      return;
    }
    case Stmt::Kind::Assign: {
      auto &a = cast<AssignStmt>(s);
      os << "assign " << a.name << " " << a.op << " ";
      expr(*a.value);
      os << "\n";
      return;
    }
    case Stmt::Kind::For: {
      auto &f = cast<ForStmt>(s);
      os << "for " << f.var << " in range(";
      expr(*f.start);
      os << ", ";
      expr(*f.end);
      if (f.step) {
        os << ", ";
        expr(*f.step);
      }
      if (f.numStages) {
        os << ", num_stages=";
        expr(*f.numStages);
      }
      os << ")\n";
      block(f.body, indent + 2);
      return;
    }
    case Stmt::Kind::If: {
      auto &i = cast<IfStmt>(s);
      os << "if ";
      expr(*i.cond);
      os << "\n";
      block(i.thenBody, indent + 2);
      if (!i.elseBody.empty()) {
        os.indent(indent) << "else\n";
        block(i.elseBody, indent + 2);
      }
      return;
    }
    case Stmt::Kind::Return: {
      auto &r = cast<ReturnStmt>(s);
      os << "return";
      if (r.value) {
        os << " ";
        expr(*r.value);
      }
      os << "\n";
      return;
    }
    case Stmt::Kind::StaticAssert: {
      auto &a = cast<StaticAssertStmt>(s);
      os << "static_assert ";
      expr(*a.cond);
      os << " \"" << a.message << "\"\n";
      return;
    }
    case Stmt::Kind::ExprStmt:
      os << "expr ";
      expr(*cast<ExprStmt>(s).expr);
      os << "\n";
      return;
    }
  }

  void params(const std::vector<Param> &ps) {
    for (size_t i = 0; i < ps.size(); ++i) {
      os << (i ? ", " : "") << ps[i].name << ": ";
      type(*ps[i].type);
      if (ps[i].defaultValue) {
        os << " = ";
        expr(*ps[i].defaultValue);
      }
    }
  }

  void function(const Function &f) {
    os << (f.isKernel ? "kernel " : "fn ") << f.name;
    if (!f.ctParams.empty()) {
      os << "<";
      params(f.ctParams);
      os << ">";
    }
    os << "(";
    params(f.params);
    os << ")";
    if (f.returnType) {
      os << " -> ";
      type(*f.returnType);
    }
    os << "\n";
    block(f.body, 2);
  }

private:
  llvm::raw_ostream &os;
};
} // namespace

void tile::ast::dump(const Module &module, llvm::raw_ostream &os) {
  Dumper dumper(os);
  for (auto &f : module.functions)
    dumper.function(*f);
}
