//===- MLIRGenImpl.h - type checker and tile dialect emitter ----*- C++ -*-===//
//
// The checker walks the AST once per kernel instantiation, folding
// compile-time values and emitting tile/arith/math/scf ops for runtime ones.
// Functions are inlined at each call with their own scope.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_FRONTEND_MLIRGENIMPL_H
#define TILE_FRONTEND_MLIRGENIMPL_H

#include "tile/Frontend/MLIRGen.h"

#include "tile/Dialect/TileDialect.h"

#include "mlir/IR/Builders.h"

#include <optional>
#include <set>

namespace tile {

/// A value during checking: a compile-time constant, a dtype, or an SSA
/// value (scalar or tile). `isUnsigned` marks u8 elements (and pointees),
/// which MLIR stores as signless i8.
struct Val {
  enum class Kind { Int, Float, Bool, Dtype, Runtime };
  Kind kind = Kind::Int;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  mlir::Type dtype; // Kind::Dtype; the element type
  mlir::Value value;
  bool isUnsigned = false;

  static Val makeInt(int64_t v) { Val r; r.kind = Kind::Int; r.i = v; return r; }
  static Val makeFloat(double v) { Val r; r.kind = Kind::Float; r.f = v; return r; }
  static Val makeBool(bool v) { Val r; r.kind = Kind::Bool; r.b = v; return r; }
  static Val makeDtype(mlir::Type t, bool isUnsigned) {
    Val r; r.kind = Kind::Dtype; r.dtype = t; r.isUnsigned = isUnsigned; return r;
  }
  static Val makeRuntime(mlir::Value v, bool isUnsigned = false) {
    Val r; r.kind = Kind::Runtime; r.value = v; r.isUnsigned = isUnsigned; return r;
  }
  bool isConst() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  bool isRuntime() const { return kind == Kind::Runtime; }
};

class MLIRGen {
public:
  MLIRGen(const ast::Module &module, Diagnostics &diags, mlir::MLIRContext &context)
      : module(module), diags(diags), context(context), builder(&context) {}

  mlir::OwningOpRef<mlir::ModuleOp>
  generate(llvm::StringRef kernelName, const std::map<std::string, std::string> &defines,
           KernelSignature *signature);

  bool collectTunable(const ast::Param &p, const Val &value, KernelSignature &signature);

  // Statements (MLIRGen.cpp).
  bool genBlock(const ast::Block &block);
  bool genStmt(const ast::Stmt &stmt);
  bool genFor(const ast::ForStmt &stmt);
  bool genIf(const ast::IfStmt &stmt);
  std::optional<Val> inlineCall(const ast::Function &fn, const ast::CallExpr &call,
                                std::vector<Val> args);

  // Expressions (MLIRGenExpr.cpp).
  std::optional<Val> genExpr(const ast::Expr &expr);
  std::optional<Val> genBinary(llvm::SMLoc loc, llvm::StringRef op, Val lhs, Val rhs);
  std::optional<Val> genUnary(const ast::UnaryExpr &expr);
  std::optional<Val> genMethod(const ast::MethodExpr &expr);
  std::optional<Val> genSubscript(const ast::SubscriptExpr &expr);
  std::optional<Val> genCall(const ast::CallExpr &expr);
  std::optional<Val> genCast(llvm::SMLoc loc, Val v, mlir::Type to, bool toUnsigned);
  std::optional<Val> genBitcast(llvm::SMLoc loc, Val v, mlir::Type to, bool toUnsigned);

  // Builtins (MLIRGenBuiltins.cpp).
  std::optional<Val> genBuiltin(const ast::CallExpr &call, bool &handled);

  // Helpers (MLIRGenExpr.cpp).
  mlir::Location loc(llvm::SMLoc l);
  std::string describe(const Val &v);
  std::string typeName(mlir::Type t, bool isUnsigned);
  std::optional<mlir::Type> resolveType(const ast::TypeExpr &type, bool &isUnsigned);
  std::optional<mlir::Type> parseElementType(llvm::StringRef name, bool &isUnsigned);
  /// Turns a constant into an SSA value of element type `elem` (a scalar).
  std::optional<Val> materialize(llvm::SMLoc l, const Val &v, mlir::Type elem, bool isUnsigned);
  /// Turns a constant into an SSA value of its natural type (i32, f32, i1).
  std::optional<Val> materializeNatural(llvm::SMLoc l, const Val &v);
  std::optional<int64_t> constInt(const ast::Expr &expr, const char *what);
  std::optional<std::vector<int64_t>> constShape(const ast::Expr &expr);
  bool checkShape(llvm::SMLoc l, llvm::ArrayRef<int64_t> shape);
  std::optional<std::vector<int64_t>> broadcastShapes(llvm::SMLoc l, llvm::ArrayRef<int64_t> a,
                                                      llvm::ArrayRef<int64_t> b);
  mlir::Value broadcastTo(llvm::SMLoc l, mlir::Value v, llvm::ArrayRef<int64_t> shape);
  /// Brings runtime/const operands to one element type and one shape.
  bool unify(llvm::SMLoc l, llvm::StringRef what, std::vector<Val *> vals, bool sameElement);
  std::optional<Val> genMath(llvm::SMLoc l, llvm::StringRef name, std::vector<Val> args);
  std::optional<Val> genReduce(const ast::CallExpr &call, mlir::tileir::ReduceKind kind);
  std::optional<Val> genLoad(const ast::CallExpr &call);
  std::optional<Val> genDot(const ast::CallExpr &call);
  /// Evaluates `e`; `type` is its tile type, or null when it is not a runtime tile.
  std::optional<Val> genTile(const ast::Expr &e, mlir::RankedTensorType &type);
  /// The call's positional arguments, generated in order.
  std::optional<std::vector<Val>> genArgs(const ast::CallExpr &call);
  bool genStore(const ast::CallExpr &call);

  // Scopes.
  Val *lookup(llvm::StringRef name);
  bool define(llvm::SMLoc l, const std::string &name, Val v);
  bool error(llvm::SMLoc l, const llvm::Twine &message) {
    diags.error(l, message);
    return false;
  }

  const ast::Module &module;
  Diagnostics &diags;
  mlir::MLIRContext &context;
  mlir::OpBuilder builder;
  /// One frame per function being generated (inlining pushes one); each
  /// frame is a stack of lexical scopes.
  std::vector<std::vector<std::map<std::string, Val>>> frames;
  std::vector<const ast::Function *> callStack;
  /// Statements and expressions checked for this kernel, those of inlined
  /// calls included:
  /// bounded so that calls fanning out through functions (f calling g twice,
  /// g calling h twice, ...) cannot take exponential time and memory.
  uint64_t exprCount = 0;
  static constexpr uint64_t kMaxExprs = uint64_t(1) << 22;
  /// Statements and expressions being checked, one inside the other, across
  /// inlined calls (the parser bounds the nesting within one function only):
  /// bounded so that the recursion cannot exhaust the stack.
  unsigned nesting = 0;
  static constexpr unsigned kMaxNesting = 1024;
  bool limitReported = false;
  /// Enters one more statement or expression; false (with one error for the
  /// kernel) past either bound. A successful call is paired with --nesting.
  bool enterNested(llvm::SMLoc l) {
    bool tooMany = ++exprCount > kMaxExprs, tooDeep = nesting >= kMaxNesting;
    if (!tooMany && !tooDeep) {
      ++nesting;
      return true;
    }
    if (!limitReported)
      error(l, tooMany ? "kernel too large: more than " + llvm::Twine(kMaxExprs) +
                             " statements and expressions to check with every function call "
                             "inlined"
                       : "statements and expressions nested more than " + llvm::Twine(kMaxNesting) +
                             " levels deep with every function call inlined");
    limitReported = true;
    return false;
  }
};

/// Names of variables assigned (not declared) anywhere inside `block`.
void collectAssigned(const ast::Block &block, std::set<std::string> &names);

} // namespace tile

#endif // TILE_FRONTEND_MLIRGENIMPL_H
