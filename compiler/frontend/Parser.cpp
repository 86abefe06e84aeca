//===- Parser.cpp - recursive-descent parser for .tile sources ------------===//
#include "tile/Frontend/Parser.h"
#include "tile/Frontend/Lexer.h"

#include "llvm/ADT/ScopeExit.h"

using namespace tile;
using namespace tile::ast;
using llvm::SMLoc;
using llvm::StringRef;

namespace {

/// Binary operators from loosest to tightest binding.
const std::vector<std::vector<StringRef>> kPrecedence = {
    {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="},
    {"<", "<=", ">", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};

class Parser {
public:
  explicit Parser(Diagnostics &diags)
      : diags(diags),
        lexer(diags.getSourceMgr().getMemoryBuffer(diags.getSourceMgr().getMainFileID())->getBuffer(),
              diags) {
    advance();
  }

  std::unique_ptr<Module> parseModule();

private:
  void advance() {
    prevEnd = tok.text.data() ? tok.text.end() : nullptr;
    tok = lexer.next();
  }
  bool failed() const { return diags.errorCount() != 0; }
  std::string describe(const Token &t) const {
    if (t.kind == Tok::Eof)
      return "end of file";
    return "'" + t.text.str() + "'";
  }
  bool expected(const llvm::Twine &what) {
    if (tok.kind != Tok::Error)
      diags.error(tok.loc(), "expected " + what + ", found " + describe(tok));
    return false;
  }
  bool consumePunct(StringRef p) {
    if (!tok.isPunct(p)) {
      // A missing ';' belongs to the statement it ends, not to the next line.
      if (p == ";" && prevEnd && tok.kind != Tok::Error) {
        diags.error(SMLoc::getFromPointer(prevEnd),
                    "expected ';', found " + describe(tok));
        return false;
      }
      return expected("'" + p + "'");
    }
    advance();
    return true;
  }
  bool parseIdent(std::string &out, const char *what) {
    if (tok.kind != Tok::Ident)
      return expected(what);
    out = tok.text.str();
    advance();
    return true;
  }

  std::unique_ptr<Function> parseFunction();
  bool parseParam(Param &param, bool isCompileTime);
  bool parseCandidates(Param &param);
  std::unique_ptr<TypeExpr> parseType();
  bool parseBlock(Block &block, SMLoc *endLoc = nullptr);
  StmtPtr parseStmt();
  StmtPtr parseFor();
  StmtPtr parseIf();
  ExprPtr parseExpr(size_t level = 0);
  ExprPtr parseUnary();
  ExprPtr parsePostfix(ExprPtr base);
  ExprPtr parsePrimary();
  bool parseCallArgs(std::vector<ExprPtr> &args, std::vector<KeywordArg> *kwargs,
                     StringRef callee = "");

  Diagnostics &diags;
  Lexer lexer;
  Token tok;
  /// One past the last character of the previous token.
  const char *prevEnd = nullptr;
  /// Set while parsing a default inside `<...>`, where '>' closes the list.
  bool angleClosesExpr = false;
  /// Nesting of what is being parsed (parentheses, unary operators, operator
  /// and postfix chains, call arguments, lists, blocks, 'else if' chains,
  /// pointer types); bounded so that deep input cannot exhaust the stack of
  /// the parser or of the recursive walks over the AST.
  unsigned depth = 0;
  static constexpr unsigned kMaxDepth = 256;
  bool enter(SMLoc loc, const char *what = "expression") {
    if (++depth <= kMaxDepth)
      return true;
    diags.error(loc, llvm::Twine(what) + " nested more than " + llvm::Twine(kMaxDepth) +
                         " levels deep");
    return false;
  }
};

} // namespace

std::unique_ptr<Module> Parser::parseModule() {
  auto module = std::make_unique<Module>();
  while (tok.kind != Tok::Eof) {
    if (tok.kind == Tok::Error)
      return nullptr;
    if (!tok.isKeyword("kernel") && !tok.isKeyword("fn")) {
      expected("'kernel' or 'fn'");
      return nullptr;
    }
    auto fn = parseFunction();
    if (!fn)
      return nullptr;
    if (const Function *prev = module->lookup(fn->name)) {
      diags.error(fn->loc, "redefinition of '" + fn->name + "'");
      diags.note(prev->loc, "previous definition is here");
      return nullptr;
    }
    module->add(std::move(fn));
  }
  return module;
}

std::unique_ptr<Function> Parser::parseFunction() {
  auto fn = std::make_unique<Function>();
  fn->isKernel = tok.isKeyword("kernel");
  advance();
  fn->loc = tok.loc();
  if (!parseIdent(fn->name, fn->isKernel ? "kernel name" : "function name"))
    return nullptr;
  if (tok.isPunct("<")) {
    if (!fn->isKernel) {
      diags.error(tok.loc(), "functions take compile-time parameters as ordinary "
                             "parameters of type int, bool or dtype, not in '<...>'");
      return nullptr;
    }
    advance();
    do {
      Param p;
      if (!parseParam(p, /*isCompileTime=*/true))
        return nullptr;
      fn->ctParams.push_back(std::move(p));
    } while (tok.isPunct(",") && (advance(), true));
    if (!consumePunct(">"))
      return nullptr;
  }
  if (!consumePunct("("))
    return nullptr;
  if (!tok.isPunct(")")) {
    do {
      Param p;
      if (!parseParam(p, /*isCompileTime=*/false))
        return nullptr;
      fn->params.push_back(std::move(p));
    } while (tok.isPunct(",") && (advance(), true));
  }
  if (!consumePunct(")"))
    return nullptr;
  if (fn->isKernel && tok.kind == Tok::Ident && tok.text == "key") {
    fn->tuneKeyLoc = tok.loc();
    advance();
    if (!consumePunct("("))
      return nullptr;
    do {
      std::string name;
      if (!parseIdent(name, "a parameter name in key(...)"))
        return nullptr;
      fn->tuneKey.push_back(name);
    } while (tok.isPunct(",") && (advance(), true));
    if (!consumePunct(")"))
      return nullptr;
  }
  if (tok.isPunct("->")) {
    if (fn->isKernel) {
      diags.error(tok.loc(), "a kernel returns nothing; write results through pointers");
      return nullptr;
    }
    advance();
    if (!(fn->returnType = parseType()))
      return nullptr;
  }
  if (!fn->isKernel && !fn->returnType) {
    expected("'->' and the return type of function '" + fn->name + "'");
    return nullptr;
  }
  if (!parseBlock(fn->body, &fn->endLoc))
    return nullptr;
  auto *last = fn->body.empty() ? nullptr : llvm::dyn_cast<ReturnStmt>(fn->body.back().get());
  if (!fn->isKernel && (!last || !last->value)) {
    diags.error(fn->endLoc, "function '" + fn->name + "' must end with 'return <value>;'");
    return nullptr;
  }
  return fn;
}

bool Parser::parseParam(Param &param, bool isCompileTime) {
  param.loc = tok.loc();
  if (!parseIdent(param.name, "parameter name") || !consumePunct(":"))
    return false;
  if (!(param.type = parseType()))
    return false;
  if (tok.isPunct("=")) {
    if (!isCompileTime) {
      diags.error(tok.loc(), "only compile-time parameters (in '<...>') take defaults");
      return false;
    }
    advance();
    angleClosesExpr = true;
    param.defaultValue = parseExpr();
    angleClosesExpr = false;
    if (!param.defaultValue)
      return false;
    if (tok.isKeyword("in"))
      return parseCandidates(param);
  }
  return true;
}

bool Parser::parseCandidates(Param &param) {
  advance();
  param.candidatesLoc = tok.loc();
  param.candidateRange = tok.isPunct("[");
  if (!tok.isPunct("[") && !tok.isPunct("{"))
    return expected("'[lo, hi]' or '{a, b, ...}' after 'in'");
  StringRef close = param.candidateRange ? "]" : "}";
  advance();
  angleClosesExpr = true;
  do {
    ExprPtr e = parseExpr();
    if (!e) {
      angleClosesExpr = false;
      return false;
    }
    param.candidates.push_back(std::move(e));
  } while (tok.isPunct(",") && (advance(), true));
  angleClosesExpr = false;
  if (param.candidateRange && param.candidates.size() != 2) {
    diags.error(param.candidatesLoc, "a tuning range is '[lo, hi]', got " +
                                         llvm::Twine(param.candidates.size()) + " values");
    return false;
  }
  return consumePunct(close);
}

std::unique_ptr<TypeExpr> Parser::parseType() {
  auto type = std::make_unique<TypeExpr>();
  type->loc = tok.loc();
  if (tok.kind != Tok::Ident) {
    expected("a type");
    return nullptr;
  }
  if (tok.text == "ptr") {
    if (!enter(type->loc, "type"))
      return nullptr;
    llvm::scope_exit leave([&] { --depth; });
    advance();
    if (!consumePunct("<"))
      return nullptr;
    if (!(type->pointee = parseType()))
      return nullptr;
    if (tok.isPunct(">>")) {
      // `ptr<ptr<T>>`: the inner type closes with the first '>'.
      tok.text = tok.text.drop_front();
      return type;
    }
    if (!consumePunct(">"))
      return nullptr;
    return type;
  }
  type->name = tok.text.str();
  advance();
  return type;
}

bool Parser::parseBlock(Block &block, SMLoc *endLoc) {
  if (!enter(tok.loc(), "block"))
    return false;
  llvm::scope_exit leave([&] { --depth; });
  if (!consumePunct("{"))
    return false;
  while (!tok.isPunct("}")) {
    if (tok.kind == Tok::Eof)
      return expected("'}'");
    StmtPtr stmt = parseStmt();
    if (!stmt)
      return false;
    block.push_back(std::move(stmt));
  }
  if (endLoc)
    *endLoc = tok.loc();
  advance();
  return true;
}

StmtPtr Parser::parseStmt() {
  SMLoc loc = tok.loc();
  if (tok.isKeyword("let")) {
    advance();
    auto let = std::make_unique<LetStmt>(loc);
    if (!parseIdent(let->name, "variable name"))
      return nullptr;
    if (tok.isPunct(":")) {
      advance();
      if (!(let->type = parseType()))
        return nullptr;
    }
    if (!consumePunct("=") || !(let->value = parseExpr()) || !consumePunct(";"))
      return nullptr;
    return let;
  }
  if (tok.isKeyword("for"))
    return parseFor();
  if (tok.isKeyword("if"))
    return parseIf();
  if (tok.isKeyword("return")) {
    advance();
    auto ret = std::make_unique<ReturnStmt>(loc);
    if (!tok.isPunct(";") && !(ret->value = parseExpr()))
      return nullptr;
    if (!consumePunct(";"))
      return nullptr;
    return ret;
  }
  if (tok.isKeyword("static_assert")) {
    advance();
    auto sa = std::make_unique<StaticAssertStmt>(loc);
    if (!consumePunct("(") || !(sa->cond = parseExpr()))
      return nullptr;
    if (tok.isPunct(",")) {
      advance();
      if (tok.kind != Tok::Str)
        return expected("a message string"), nullptr;
      sa->message = tok.strValue;
      advance();
    }
    if (!consumePunct(")") || !consumePunct(";"))
      return nullptr;
    return sa;
  }
  ExprPtr expr = parseExpr();
  if (!expr)
    return nullptr;
  static const StringRef assignOps[] = {"=", "+=", "-=", "*=", "/="};
  for (StringRef op : assignOps) {
    if (!tok.isPunct(op))
      continue;
    auto *name = llvm::dyn_cast<NameExpr>(expr.get());
    if (!name) {
      diags.error(tok.loc(), "only a variable name can be assigned to");
      return nullptr;
    }
    auto assign = std::make_unique<AssignStmt>(loc);
    assign->name = name->name;
    assign->op = op.str();
    advance();
    if (!(assign->value = parseExpr()) || !consumePunct(";"))
      return nullptr;
    return assign;
  }
  if (!consumePunct(";"))
    return nullptr;
  return std::make_unique<ExprStmt>(loc, std::move(expr));
}

StmtPtr Parser::parseFor() {
  auto loop = std::make_unique<ForStmt>(tok.loc());
  advance();
  loop->varLoc = tok.loc();
  if (!parseIdent(loop->var, "loop variable name"))
    return nullptr;
  if (!tok.isKeyword("in"))
    return expected("'in'"), nullptr;
  advance();
  if (tok.kind != Tok::Ident || tok.text != "range")
    return expected("'range'"), nullptr;
  SMLoc rangeLoc = tok.loc();
  advance();
  std::vector<ExprPtr> args;
  std::vector<KeywordArg> kwargs;
  if (!consumePunct("(") || !parseCallArgs(args, &kwargs, "range"))
    return nullptr;
  for (KeywordArg &kw : kwargs) {
    if (kw.name != "num_stages") {
      diags.error(kw.loc, "range has no keyword argument '" + kw.name + "' (only num_stages)");
      return nullptr;
    }
    loop->numStages = std::move(kw.value);
  }
  if (args.empty() || args.size() > 3) {
    diags.error(rangeLoc, "range takes 1 to 3 arguments (end | start, end | start, "
                          "end, step), got " + llvm::Twine(args.size()));
    return nullptr;
  }
  if (args.size() == 1) {
    loop->start = std::make_unique<IntExpr>(rangeLoc, 0);
    loop->end = std::move(args[0]);
  } else {
    loop->start = std::move(args[0]);
    loop->end = std::move(args[1]);
    if (args.size() == 3)
      loop->step = std::move(args[2]);
  }
  if (!parseBlock(loop->body))
    return nullptr;
  return loop;
}

StmtPtr Parser::parseIf() {
  auto stmt = std::make_unique<IfStmt>(tok.loc());
  advance();
  if (!(stmt->cond = parseExpr()) || !parseBlock(stmt->thenBody, &stmt->endLoc))
    return nullptr;
  if (!tok.isKeyword("else"))
    return stmt;
  advance();
  if (tok.isKeyword("if")) {
    if (!enter(tok.loc(), "'else if'"))
      return nullptr;
    llvm::scope_exit leave([&] { --depth; });
    StmtPtr nested = parseIf();
    if (!nested)
      return nullptr;
    stmt->endLoc = llvm::cast<IfStmt>(nested.get())->endLoc;
    stmt->elseBody.push_back(std::move(nested));
    return stmt;
  }
  if (!parseBlock(stmt->elseBody, &stmt->endLoc))
    return nullptr;
  return stmt;
}

ExprPtr Parser::parseExpr(size_t level) {
  if (level == kPrecedence.size())
    return parseUnary();
  unsigned savedDepth = depth;
  ExprPtr lhs = parseExpr(level + 1);
  while (lhs && tok.kind == Tok::Punct && llvm::is_contained(kPrecedence[level], tok.text) &&
         !(angleClosesExpr && tok.text == ">")) {
    std::string op = tok.text.str();
    SMLoc loc = tok.loc();
    if (!enter(loc))
      return nullptr;
    advance();
    ExprPtr rhs = parseExpr(level + 1);
    if (!rhs)
      return nullptr;
    lhs = std::make_unique<BinaryExpr>(loc, op, std::move(lhs), std::move(rhs));
  }
  depth = savedDepth;
  return lhs;
}

ExprPtr Parser::parseUnary() {
  if (tok.isPunct("-") || tok.isPunct("!") || tok.isPunct("~")) {
    SMLoc loc = tok.loc();
    std::string op = tok.text.str();
    if (!enter(loc))
      return nullptr;
    advance();
    ExprPtr operand = parseUnary();
    --depth;
    if (!operand)
      return nullptr;
    return std::make_unique<UnaryExpr>(loc, op, std::move(operand));
  }
  ExprPtr primary = parsePrimary();
  return primary ? parsePostfix(std::move(primary)) : nullptr;
}

ExprPtr Parser::parsePostfix(ExprPtr base) {
  // Each method call or subscript wraps the expression before it: a chain
  // nests like an operator chain.
  unsigned savedDepth = depth;
  llvm::scope_exit restore([&] { depth = savedDepth; });
  while (true) {
    if ((tok.isPunct(".") || tok.isPunct("[")) && !enter(tok.loc()))
      return nullptr;
    if (tok.isPunct(".")) {
      advance();
      SMLoc loc = tok.loc();
      std::string method;
      if (!parseIdent(method, "a method name after '.'"))
        return nullptr;
      auto call = std::make_unique<MethodExpr>(loc, std::move(base), method);
      if (!consumePunct("(") || !parseCallArgs(call->args, nullptr))
        return nullptr;
      base = std::move(call);
      continue;
    }
    if (tok.isPunct("[")) {
      auto sub = std::make_unique<SubscriptExpr>(tok.loc(), std::move(base));
      advance();
      do {
        sub->entryLocs.push_back(tok.loc());
        if (tok.isPunct(":")) {
          sub->isNewAxis.push_back(false);
        } else if (tok.isKeyword("None")) {
          sub->isNewAxis.push_back(true);
        } else {
          expected("':' or 'None' in a subscript (tiles are indexed only to add axes)");
          return nullptr;
        }
        advance();
      } while (tok.isPunct(",") && (advance(), true));
      if (!consumePunct("]"))
        return nullptr;
      base = std::move(sub);
      continue;
    }
    return base;
  }
}

bool Parser::parseCallArgs(std::vector<ExprPtr> &args, std::vector<KeywordArg> *kwargs,
                           StringRef callee) {
  if (tok.isPunct(")")) {
    advance();
    return true;
  }
  do {
    SMLoc loc = tok.loc();
    ExprPtr arg = parseExpr();
    if (!arg)
      return false;
    if (tok.isPunct("=") && llvm::isa<NameExpr>(arg.get())) {
      if (!kwargs) {
        diags.error(loc, "keyword arguments are not allowed here");
        return false;
      }
      advance();
      std::string name = llvm::cast<NameExpr>(arg.get())->name;
      for (auto &prev : *kwargs) {
        if (prev.name == name) {
          diags.error(loc, "'" + callee + "' got keyword argument '" + name + "' twice");
          return false;
        }
      }
      KeywordArg kw{loc, name, parseExpr()};
      if (!kw.value)
        return false;
      kwargs->push_back(std::move(kw));
      continue;
    }
    if (kwargs && !kwargs->empty()) {
      diags.error(loc, "positional argument after keyword arguments");
      return false;
    }
    args.push_back(std::move(arg));
  } while (tok.isPunct(",") && (advance(), true));
  return consumePunct(")");
}

ExprPtr Parser::parsePrimary() {
  SMLoc loc = tok.loc();
  switch (tok.kind) {
  case Tok::Int: {
    auto e = std::make_unique<IntExpr>(loc, tok.intValue);
    advance();
    return e;
  }
  case Tok::Float: {
    auto e = std::make_unique<FloatExpr>(loc, tok.floatValue);
    advance();
    return e;
  }
  case Tok::Str: {
    auto e = std::make_unique<StrExpr>(loc, tok.strValue);
    advance();
    return e;
  }
  case Tok::Ident: {
    std::string name = tok.text.str();
    advance();
    if (!tok.isPunct("("))
      return std::make_unique<NameExpr>(loc, name);
    advance();
    if (!enter(loc))
      return nullptr;
    llvm::scope_exit leave([&] { --depth; });
    auto call = std::make_unique<CallExpr>(loc, name);
    if (!parseCallArgs(call->args, &call->kwargs, name))
      return nullptr;
    return call;
  }
  case Tok::Keyword:
    if (tok.text == "true" || tok.text == "false") {
      auto e = std::make_unique<BoolExpr>(loc, tok.text == "true");
      advance();
      return e;
    }
    break;
  case Tok::Punct:
    if (tok.isPunct("(")) {
      if (!enter(loc))
        return nullptr;
      advance();
      bool savedAngle = angleClosesExpr;
      angleClosesExpr = false;
      ExprPtr inner = parseExpr();
      angleClosesExpr = savedAngle;
      --depth;
      if (!inner || !consumePunct(")"))
        return nullptr;
      return inner;
    }
    if (tok.isPunct("[")) {
      if (!enter(loc))
        return nullptr;
      llvm::scope_exit leave([&] { --depth; });
      auto list = std::make_unique<ListExpr>(loc);
      advance();
      if (!tok.isPunct("]")) {
        do {
          ExprPtr e = parseExpr();
          if (!e)
            return nullptr;
          list->elements.push_back(std::move(e));
        } while (tok.isPunct(",") && (advance(), true));
      }
      if (!consumePunct("]"))
        return nullptr;
      return list;
    }
    break;
  default:
    break;
  }
  expected("an expression");
  return nullptr;
}

std::unique_ptr<Module> tile::parseModule(Diagnostics &diags) {
  Parser parser(diags);
  auto module = parser.parseModule();
  if (diags.errorCount())
    return nullptr;
  return module;
}
