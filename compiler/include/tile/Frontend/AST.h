//===- AST.h - syntax tree of .tile sources ---------------------*- C++ -*-===//
//
// Every node keeps the SMLoc of its first character; the SourceMgr that owns
// the buffer turns it into file:line:col for diagnostics and MLIR locations.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_FRONTEND_AST_H
#define TILE_FRONTEND_AST_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tile::ast {

/// A type as written: a name (`f32`, `T`, `int`, `dtype`) or `ptr<inner>`.
struct TypeExpr {
  llvm::SMLoc loc;
  std::string name;                 // empty for a pointer
  std::unique_ptr<TypeExpr> pointee; // set for `ptr<...>`
};

class Expr {
public:
  enum class Kind { Int, Float, Bool, Str, Name, Unary, Binary, Call, Method, Subscript, List };
  Expr(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;
  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

private:
  Kind kind;
  llvm::SMLoc loc;
};
using ExprPtr = std::unique_ptr<Expr>;

struct IntExpr : Expr {
  IntExpr(llvm::SMLoc loc, int64_t value) : Expr(Kind::Int, loc), value(value) {}
  int64_t value;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Int; }
};

struct FloatExpr : Expr {
  FloatExpr(llvm::SMLoc loc, double value) : Expr(Kind::Float, loc), value(value) {}
  double value;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Float; }
};

struct BoolExpr : Expr {
  BoolExpr(llvm::SMLoc loc, bool value) : Expr(Kind::Bool, loc), value(value) {}
  bool value;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Bool; }
};

struct StrExpr : Expr {
  StrExpr(llvm::SMLoc loc, std::string value) : Expr(Kind::Str, loc), value(std::move(value)) {}
  std::string value;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Str; }
};

struct NameExpr : Expr {
  NameExpr(llvm::SMLoc loc, std::string name) : Expr(Kind::Name, loc), name(std::move(name)) {}
  std::string name;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Name; }
};

/// `-x`, `!x`, `~x`.
struct UnaryExpr : Expr {
  UnaryExpr(llvm::SMLoc loc, std::string op, ExprPtr operand)
      : Expr(Kind::Unary, loc), op(std::move(op)), operand(std::move(operand)) {}
  std::string op;
  ExprPtr operand;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Unary; }
};

/// `lhs op rhs`; `loc` is the operator's location.
struct BinaryExpr : Expr {
  BinaryExpr(llvm::SMLoc loc, std::string op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Kind::Binary, loc), op(std::move(op)), lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  std::string op;
  ExprPtr lhs, rhs;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Binary; }
};

struct KeywordArg {
  llvm::SMLoc loc;
  std::string name;
  ExprPtr value;
};

/// `callee(args..., name=value...)`.
struct CallExpr : Expr {
  CallExpr(llvm::SMLoc loc, std::string callee) : Expr(Kind::Call, loc), callee(std::move(callee)) {}
  std::string callee;
  std::vector<ExprPtr> args;
  std::vector<KeywordArg> kwargs;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Call; }
};

/// `receiver.method(args...)`, e.g. `x.to(f32)`.
struct MethodExpr : Expr {
  MethodExpr(llvm::SMLoc loc, ExprPtr receiver, std::string method)
      : Expr(Kind::Method, loc), receiver(std::move(receiver)), method(std::move(method)) {}
  ExprPtr receiver;
  std::string method;
  std::vector<ExprPtr> args;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Method; }
};

/// `base[:, None]`: each entry keeps a dimension (`:`) or inserts one (`None`).
struct SubscriptExpr : Expr {
  SubscriptExpr(llvm::SMLoc loc, ExprPtr base) : Expr(Kind::Subscript, loc), base(std::move(base)) {}
  ExprPtr base;
  std::vector<bool> isNewAxis;
  std::vector<llvm::SMLoc> entryLocs;
  static bool classof(const Expr *e) { return e->getKind() == Kind::Subscript; }
};

/// `[a, b]`: a shape.
struct ListExpr : Expr {
  ListExpr(llvm::SMLoc loc) : Expr(Kind::List, loc) {}
  std::vector<ExprPtr> elements;
  static bool classof(const Expr *e) { return e->getKind() == Kind::List; }
};

class Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

class Stmt {
public:
  enum class Kind { Let, Assign, For, If, Return, StaticAssert, ExprStmt };
  Stmt(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

private:
  Kind kind;
  llvm::SMLoc loc;
};

/// `let name (: type)? = value;`
struct LetStmt : Stmt {
  LetStmt(llvm::SMLoc loc) : Stmt(Kind::Let, loc) {}
  std::string name;
  std::unique_ptr<TypeExpr> type;
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Let; }
};

/// `name op value;` with op one of `=`, `+=`, `-=`, `*=`, `/=`.
struct AssignStmt : Stmt {
  AssignStmt(llvm::SMLoc loc) : Stmt(Kind::Assign, loc) {}
  std::string name;
  std::string op;
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Assign; }
};

/// `for var in range(start, end, step) { body }`.
struct ForStmt : Stmt {
  ForStmt(llvm::SMLoc loc) : Stmt(Kind::For, loc) {}
  std::string var;
  llvm::SMLoc varLoc;
  ExprPtr start, end, step; // step may be null (1)
  /// `num_stages=` of range: loads staged ahead on GPU targets (may be null).
  ExprPtr numStages;
  Block body;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::For; }
};

/// `if cond { then } else { otherwise }`; `else if` nests an IfStmt.
struct IfStmt : Stmt {
  IfStmt(llvm::SMLoc loc) : Stmt(Kind::If, loc) {}
  ExprPtr cond;
  Block thenBody;
  Block elseBody;
  llvm::SMLoc endLoc; // closing brace of the whole statement
  static bool classof(const Stmt *s) { return s->getKind() == Kind::If; }
};

struct ReturnStmt : Stmt {
  ReturnStmt(llvm::SMLoc loc) : Stmt(Kind::Return, loc) {}
  ExprPtr value; // may be null
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Return; }
};

struct StaticAssertStmt : Stmt {
  StaticAssertStmt(llvm::SMLoc loc) : Stmt(Kind::StaticAssert, loc) {}
  ExprPtr cond;
  std::string message;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::StaticAssert; }
};

struct ExprStmt : Stmt {
  ExprStmt(llvm::SMLoc loc, ExprPtr expr) : Stmt(Kind::ExprStmt, loc), expr(std::move(expr)) {}
  ExprPtr expr;
  static bool classof(const Stmt *s) { return s->getKind() == Kind::ExprStmt; }
};

/// `name: type (= default)?` - a compile-time parameter when the type is
/// `int`, `bool` or `dtype`, else a runtime parameter.
struct Param {
  llvm::SMLoc loc;
  std::string name;
  std::unique_ptr<TypeExpr> type;
  ExprPtr defaultValue;
  /// Tunable compile-time parameters: `= 128 in [32, 256]` (the powers of
  /// two in the range) or `= 4 in {4, 8}` (the listed values).
  std::vector<ExprPtr> candidates;
  bool candidateRange = false;
  llvm::SMLoc candidatesLoc;
};

/// A `kernel` (entry point) or an `fn` (inlined at each call).
struct Function {
  llvm::SMLoc loc;
  bool isKernel = false;
  std::string name;
  std::vector<Param> ctParams; // kernel<...>
  std::vector<Param> params;
  /// `key(N, M)` after the parameters: the runtime arguments whose values
  /// select a tuned configuration.
  std::vector<std::string> tuneKey;
  llvm::SMLoc tuneKeyLoc;
  std::unique_ptr<TypeExpr> returnType; // fn only
  Block body;
  llvm::SMLoc endLoc; // closing brace
};

struct Module {
  std::vector<std::unique_ptr<Function>> functions;
  /// Every function by name (a scan per lookup made sources of many
  /// functions quadratic); add() keeps it.
  llvm::StringMap<const Function *> byName;
  const Function *lookup(llvm::StringRef name) const { return byName.lookup(name); }
  void add(std::unique_ptr<Function> fn) {
    byName.try_emplace(fn->name, fn.get());
    functions.push_back(std::move(fn));
  }
};

/// Writes an indented, deterministic dump of `module` (`--stage=ast`).
void dump(const Module &module, llvm::raw_ostream &os);

} // namespace tile::ast

#endif // TILE_FRONTEND_AST_H
