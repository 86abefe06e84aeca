//===- MLIRGenExpr.cpp - expressions, types and broadcasting --------------===//
#include "MLIRGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/ADT/ScopeExit.h"

#include <cmath>

using namespace tile;
using namespace tile::ast;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;
namespace arith = mlir::arith;

mlir::Location MLIRGen::loc(SMLoc l) {
  auto &sm = diags.getSourceMgr();
  unsigned bufferId = sm.FindBufferContainingLoc(l);
  if (!bufferId)
    return builder.getUnknownLoc();
  auto [line, col] = sm.getLineAndColumn(l, bufferId);
  return mlir::FileLineColLoc::get(
      builder.getStringAttr(sm.getMemoryBuffer(bufferId)->getBufferIdentifier()), line, col);
}

std::optional<mlir::Type> MLIRGen::parseElementType(StringRef name, bool &isUnsigned) {
  isUnsigned = name == "u8";
  mlir::Type t = llvm::StringSwitch<mlir::Type>(name)
                     .Case("f32", builder.getF32Type())
                     .Case("f16", builder.getF16Type())
                     .Case("bf16", builder.getBF16Type())
                     .Case("f8e4m3", builder.getType<mlir::Float8E4M3FNType>())
                     .Case("f8e5m2", builder.getType<mlir::Float8E5M2Type>())
                     .Case("bool", builder.getI1Type())
                     .Case("i8", builder.getI8Type())
                     .Case("u8", builder.getI8Type())
                     .Case("i16", builder.getI16Type())
                     .Case("i32", builder.getI32Type())
                     .Case("i64", builder.getI64Type())
                     .Default(mlir::Type());
  if (!t)
    return std::nullopt;
  return t;
}

std::optional<mlir::Type> MLIRGen::resolveType(const TypeExpr &type, bool &isUnsigned) {
  if (type.pointee) {
    auto pointee = resolveType(*type.pointee, isUnsigned);
    if (!pointee)
      return std::nullopt;
    if (llvm::isa<mlir::tileir::PointerType>(*pointee))
      return error(type.loc, "pointers to pointers are not supported"), std::nullopt;
    if (pointee->isInteger(1))
      return error(type.loc, "ptr<bool> is not supported; store i8 or u8"), std::nullopt;
    return mlir::tileir::PointerType::get(&context, *pointee);
  }
  if (auto t = parseElementType(type.name, isUnsigned))
    return t;
  if (Val *v = lookup(type.name)) {
    if (v->kind == Val::Kind::Dtype) {
      isUnsigned = v->isUnsigned;
      return v->dtype;
    }
    return error(type.loc, "'" + type.name + "' is " + describe(*v) + ", not a dtype"),
           std::nullopt;
  }
  if (type.name == "int" || type.name == "bool" || type.name == "dtype")
    return error(type.loc, "'" + type.name + "' is a compile-time kind; runtime values need "
                                             "an element type such as i32 or f32"),
           std::nullopt;
  return error(type.loc, "unknown type '" + type.name + "'"), std::nullopt;
}

std::string MLIRGen::typeName(mlir::Type t, bool isUnsigned) {
  if (auto p = llvm::dyn_cast<mlir::tileir::PointerType>(t))
    return "ptr<" + typeName(p.getPointee(), isUnsigned) + ">";
  if (t.isInteger(1))
    return "bool";
  if (auto i = llvm::dyn_cast<mlir::IntegerType>(t))
    return (isUnsigned ? "u" : "i") + std::to_string(i.getWidth());
  if (llvm::isa<mlir::Float8E4M3FNType>(t))
    return "f8e4m3";
  if (llvm::isa<mlir::Float8E5M2Type>(t))
    return "f8e5m2";
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string MLIRGen::describe(const Val &v) {
  switch (v.kind) {
  case Val::Kind::Int:
    return "the integer constant " + std::to_string(v.i);
  case Val::Kind::Float:
    return "a float constant";
  case Val::Kind::Bool:
    return std::string("the constant ") + (v.b ? "true" : "false");
  case Val::Kind::Dtype:
    return "the dtype " + typeName(v.dtype, v.isUnsigned);
  case Val::Kind::Runtime:
    break;
  }
  mlir::Type t = v.value.getType();
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(t);
  if (!tensor)
    return "a scalar " + typeName(t, v.isUnsigned);
  std::string s = "a tile<" + typeName(tensor.getElementType(), v.isUnsigned) + ", [";
  for (auto [i, d] : llvm::enumerate(tensor.getShape()))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]>";
}

std::optional<Val> MLIRGen::materialize(SMLoc l, const Val &v, mlir::Type elem, bool isUnsigned) {
  if (v.isRuntime())
    return v;
  mlir::Location location = loc(l);
  auto makeConst = [&](mlir::TypedAttr attr) {
    return Val::makeRuntime(arith::ConstantOp::create(builder, location, attr), isUnsigned);
  };
  if (llvm::isa<mlir::tileir::PointerType>(elem))
    return error(l, "cannot use " + describe(v) + " as a pointer"), std::nullopt;
  if (auto intType = llvm::dyn_cast<mlir::IntegerType>(elem)) {
    if (intType.getWidth() == 1) {
      if (v.kind != Val::Kind::Bool)
        return error(l, "expected a bool, got " + describe(v)), std::nullopt;
      return makeConst(builder.getBoolAttr(v.b));
    }
    if (v.kind != Val::Kind::Int)
      return error(l, "cannot use " + describe(v) + " as " + typeName(elem, isUnsigned)),
             std::nullopt;
    unsigned w = intType.getWidth();
    bool fits = isUnsigned ? (v.i >= 0 && (w == 64 || v.i < (int64_t(1) << w)))
                           : (w == 64 || (v.i >= -(int64_t(1) << (w - 1)) &&
                                          v.i < (int64_t(1) << (w - 1))));
    if (!fits)
      return error(l, "integer constant " + Twine(v.i) + " does not fit in " +
                          typeName(elem, isUnsigned)),
             std::nullopt;
    return makeConst(builder.getIntegerAttr(elem, v.i));
  }
  auto floatType = llvm::cast<mlir::FloatType>(elem);
  if (v.kind == Val::Kind::Bool)
    return error(l, "cannot use " + describe(v) + " as " + typeName(elem, false)), std::nullopt;
  double value = v.kind == Val::Kind::Int ? double(v.i) : v.f;
  llvm::APFloat apf(value);
  bool losesInfo;
  apf.convert(floatType.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  if ((apf.isInfinity() || apf.isNaN()) && std::isfinite(value))
    return error(l, "constant " + Twine(std::to_string(value)) + " overflows " + typeName(elem, false)),
           std::nullopt;
  return makeConst(builder.getFloatAttr(floatType, apf));
}

std::optional<Val> MLIRGen::materializeNatural(SMLoc l, const Val &v) {
  switch (v.kind) {
  case Val::Kind::Int:
    return materialize(l, v, (v.i >= INT32_MIN && v.i <= INT32_MAX) ? builder.getI32Type()
                                                                     : builder.getI64Type(),
                       false);
  case Val::Kind::Float:
    return materialize(l, v, builder.getF32Type(), false);
  case Val::Kind::Bool:
    return materialize(l, v, builder.getI1Type(), false);
  default:
    return v;
  }
}

bool MLIRGen::checkShape(SMLoc l, llvm::ArrayRef<int64_t> shape) {
  constexpr int64_t kMaxElements = int64_t(1) << 20;
  int64_t total = 1;
  for (int64_t d : shape) {
    if (d <= 0)
      return error(l, "tile dimension must be positive, got " + Twine(d));
    if (d & (d - 1))
      return error(l, "tile dimension " + Twine(d) + " is not a power of two");
    if (d > kMaxElements || (total *= d) > kMaxElements)
      return error(l, "tile of more than " + Twine(kMaxElements) +
                          " elements is not supported (dimension " + Twine(d) + ")");
  }
  if (shape.size() > 6)
    return error(l, "tiles have at most 6 dimensions, got " + Twine(shape.size()));
  return true;
}

std::optional<int64_t> MLIRGen::constInt(const Expr &expr, const char *what) {
  auto v = genExpr(expr);
  if (!v)
    return std::nullopt;
  if (v->kind != Val::Kind::Int)
    return error(expr.getLoc(), Twine(what) + " must be a compile-time integer, got " +
                                    describe(*v)),
           std::nullopt;
  return v->i;
}

std::optional<std::vector<int64_t>> MLIRGen::constShape(const Expr &expr) {
  auto *list = llvm::dyn_cast<ListExpr>(&expr);
  if (!list)
    return error(expr.getLoc(), "expected a tile shape such as [BLOCK] or [M, N]"),
           std::nullopt;
  std::vector<int64_t> shape;
  for (auto &e : list->elements) {
    auto d = constInt(*e, "a tile dimension");
    if (!d)
      return std::nullopt;
    shape.push_back(*d);
  }
  if (shape.empty())
    return error(expr.getLoc(), "a tile shape needs at least one dimension"), std::nullopt;
  if (!checkShape(expr.getLoc(), shape))
    return std::nullopt;
  return shape;
}

static llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
  if (auto t = llvm::dyn_cast<mlir::RankedTensorType>(v.getType()))
    return t.getShape();
  return {};
}

std::optional<std::vector<int64_t>>
MLIRGen::broadcastShapes(SMLoc l, llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      auto str = [](llvm::ArrayRef<int64_t> s) {
        std::string r = "[";
        for (auto [i, d] : llvm::enumerate(s))
          r += (i ? ", " : "") + std::to_string(d);
        return r + "]";
      };
      return error(l, "tile shapes " + str(a) + " and " + str(b) + " do not broadcast"),
             std::nullopt;
    }
    out[i] = std::max(da, db);
  }
  if (!checkShape(l, out))
    return std::nullopt;
  return out;
}

mlir::Value MLIRGen::broadcastTo(SMLoc l, mlir::Value v, llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return v;
  mlir::Location location = loc(l);
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(v.getType());
  if (!tensor)
    return mlir::tileir::SplatOp::create(builder, location,
                                       mlir::RankedTensorType::get(shape, v.getType()), v);
  if (tensor.getShape() == shape)
    return v;
  mlir::Type elem = tensor.getElementType();
  std::vector<int64_t> cur(tensor.getShape());
  while (cur.size() < shape.size()) {
    cur.insert(cur.begin(), 1);
    v = mlir::tileir::ExpandDimsOp::create(builder, location, mlir::RankedTensorType::get(cur, elem),
                                         v, 0);
  }
  return mlir::tileir::BroadcastOp::create(builder, location,
                                         mlir::RankedTensorType::get(shape, elem), v);
}

bool MLIRGen::unify(SMLoc l, StringRef what, std::vector<Val *> vals, bool sameElement) {
  // Element type: from the first runtime operand; constants adapt to it.
  const Val *typed = nullptr;
  for (Val *v : vals) {
    if (v->kind == Val::Kind::Dtype)
      return error(l, Twine(what) + ": " + describe(*v) + " is not a value");
    if (v->isRuntime() && !typed)
      typed = v;
  }
  if (!typed) {
    auto first = materializeNatural(l, *vals[0]);
    if (!first)
      return false;
    *vals[0] = *first;
    typed = vals[0];
  }
  mlir::Type elem = mlir::getElementTypeOrSelf(typed->value.getType());
  bool isUnsigned = typed->isUnsigned;
  std::vector<int64_t> shape;
  for (Val *v : vals) {
    if (v->isConst()) {
      auto m = materialize(l, *v, elem, isUnsigned);
      if (!m)
        return false;
      *v = *m;
    }
    mlir::Type e = mlir::getElementTypeOrSelf(v->value.getType());
    if (sameElement && (e != elem || v->isUnsigned != isUnsigned))
      return error(l, Twine(what) + ": type mismatch between " + describe(*typed) + " and " +
                          describe(*v) + "; convert one side with .to(...)");
    auto s = broadcastShapes(l, shape, shapeOf(v->value));
    if (!s)
      return false;
    shape = *s;
  }
  for (Val *v : vals)
    v->value = broadcastTo(l, v->value, shape);
  return true;
}

static bool isFloatVal(const Val &v) {
  return llvm::isa<mlir::FloatType>(mlir::getElementTypeOrSelf(v.value.getType()));
}

/// `x op y` for the six comparison operators; nullopt for any other.
template <typename T> static std::optional<bool> compareConst(StringRef op, T x, T y) {
  if (op == "<") return x < y;
  if (op == "<=") return x <= y;
  if (op == ">") return x > y;
  if (op == ">=") return x >= y;
  if (op == "==") return x == y;
  if (op == "!=") return x != y;
  return std::nullopt;
}

/// Folds an operator on two compile-time values.
static std::optional<Val> foldConst(MLIRGen &gen, SMLoc l, StringRef op, const Val &a,
                                    const Val &b) {
  if (a.kind == Val::Kind::Bool || b.kind == Val::Kind::Bool) {
    if (a.kind != b.kind)
      return gen.error(l, "'" + op + "' between " + gen.describe(a) + " and " + gen.describe(b)),
             std::nullopt;
    if (op == "&&") return Val::makeBool(a.b && b.b);
    if (op == "||") return Val::makeBool(a.b || b.b);
    if (op == "==") return Val::makeBool(a.b == b.b);
    if (op == "!=") return Val::makeBool(a.b != b.b);
    return gen.error(l, "operator '" + op + "' does not apply to bools"), std::nullopt;
  }
  if (a.kind == Val::Kind::Int && b.kind == Val::Kind::Int) {
    int64_t x = a.i, y = b.i, r = 0;
    if (auto c = compareConst(op, x, y)) return Val::makeBool(*c);
    if ((op == "/" || op == "%") && y == 0)
      return gen.error(l, "division by zero in a compile-time expression"), std::nullopt;
    bool overflow = false;
    if (op == "+") overflow = __builtin_add_overflow(x, y, &r);
    else if (op == "-") overflow = __builtin_sub_overflow(x, y, &r);
    else if (op == "*") overflow = __builtin_mul_overflow(x, y, &r);
    else if (op == "/") r = (x == INT64_MIN && y == -1) ? (overflow = true, 0) : x / y;
    else if (op == "%") r = (x == INT64_MIN && y == -1) ? 0 : x % y;
    else if (op == "&") r = x & y;
    else if (op == "|") r = x | y;
    else if (op == "^") r = x ^ y;
    else if (op == "<<" || op == ">>") {
      if (y < 0 || y > 63)
        return gen.error(l, "shift amount " + Twine(y) + " is out of range [0, 63]"),
               std::nullopt;
      r = op == "<<" ? int64_t(uint64_t(x) << y) : x >> y;
    } else
      return gen.error(l, "operator '" + op + "' does not apply to integers"), std::nullopt;
    if (overflow)
      return gen.error(l, "compile-time integer overflow in '" + op + "'"), std::nullopt;
    return Val::makeInt(r);
  }
  double x = a.kind == Val::Kind::Int ? double(a.i) : a.f;
  double y = b.kind == Val::Kind::Int ? double(b.i) : b.f;
  if (op == "+") return Val::makeFloat(x + y);
  if (op == "-") return Val::makeFloat(x - y);
  if (op == "*") return Val::makeFloat(x * y);
  if (op == "/") return Val::makeFloat(x / y);
  if (auto c = compareConst(op, x, y)) return Val::makeBool(*c);
  return gen.error(l, "operator '" + op + "' does not apply to floats"), std::nullopt;
}

std::optional<Val> MLIRGen::genBinary(SMLoc l, StringRef op, Val lhs, Val rhs) {
  // Two dtypes compare at compile time: static_assert(T == f32, "...").
  if (lhs.kind == Val::Kind::Dtype && rhs.kind == Val::Kind::Dtype && (op == "==" || op == "!=")) {
    bool same = lhs.dtype == rhs.dtype && lhs.isUnsigned == rhs.isUnsigned;
    return Val::makeBool(same == (op == "=="));
  }
  if (lhs.isConst() && rhs.isConst())
    return foldConst(*this, l, op, lhs, rhs);
  mlir::Location location = loc(l);
  // Pointer arithmetic: ptr + int, int + ptr, ptr - int.
  auto isPtr = [](const Val &v) {
    return v.isRuntime() &&
           llvm::isa<mlir::tileir::PointerType>(mlir::getElementTypeOrSelf(v.value.getType()));
  };
  if (isPtr(lhs) || isPtr(rhs)) {
    if (op == "+" && isPtr(rhs) && !isPtr(lhs))
      std::swap(lhs, rhs);
    if ((op != "+" && op != "-") || isPtr(rhs))
      return error(l, "operator '" + op + "' does not apply to " + describe(lhs) + " and " +
                          describe(rhs) + "; pointers only take '+' or '-' an integer offset"),
             std::nullopt;
    // `x + f16`: a dtype has no value (found by fuzz-frontend).
    if (rhs.kind == Val::Kind::Dtype)
      return error(l, "operator '" + op + "': " + describe(rhs) + " is not a value"),
             std::nullopt;
    if (rhs.isConst()) {
      auto m = materializeNatural(l, rhs);
      if (!m)
        return std::nullopt;
      rhs = *m;
    }
    mlir::Type offElem = mlir::getElementTypeOrSelf(rhs.value.getType());
    if (!llvm::isa<mlir::IntegerType>(offElem) || offElem.isInteger(1))
      return error(l, "pointer offset must be an integer, got " + describe(rhs)), std::nullopt;
    auto shape = broadcastShapes(l, shapeOf(lhs.value), shapeOf(rhs.value));
    if (!shape)
      return std::nullopt;
    mlir::Value ptr = broadcastTo(l, lhs.value, *shape);
    mlir::Value off = rhs.value;
    if (rhs.isUnsigned) // u8 offsets are zero-extended; addptr sign-extends
      off = arith::ExtUIOp::create(builder, location,
                                   mlir::tileir::getSameShape(off.getType(), builder.getI64Type()),
                                   off);
    off = broadcastTo(l, off, *shape);
    if (op == "-") {
      auto zero = arith::ConstantOp::create(builder, location, builder.getZeroAttr(off.getType()));
      off = arith::SubIOp::create(builder, location, zero, off);
    }
    return Val::makeRuntime(mlir::tileir::AddPtrOp::create(builder, location, ptr.getType(), ptr, off),
                            lhs.isUnsigned);
  }
  if (!unify(l, "operator '" + op.str() + "'", {&lhs, &rhs}, true))
    return std::nullopt;
  mlir::Value a = lhs.value, b = rhs.value;
  mlir::Type elem = mlir::getElementTypeOrSelf(a.getType());
  bool isU = lhs.isUnsigned;
  auto result = [&](mlir::Value v, bool u) { return Val::makeRuntime(v, u); };
  if (elem.isInteger(1)) {
    if (op == "&&" || op == "&") return result(arith::AndIOp::create(builder, location, a, b), false);
    if (op == "||" || op == "|") return result(arith::OrIOp::create(builder, location, a, b), false);
    if (op == "^" || op == "!=")
      return result(arith::XOrIOp::create(builder, location, a, b), false);
    if (op == "==")
      return result(arith::CmpIOp::create(builder, location, arith::CmpIPredicate::eq, a, b), false);
    return error(l, "operator '" + op + "' does not apply to bools"), std::nullopt;
  }
  if (op == "&&" || op == "||")
    return error(l, "operator '" + op + "' needs bools, got " + describe(lhs)), std::nullopt;
  if (isFloatVal(lhs)) {
    using P = arith::CmpFPredicate;
    std::optional<P> pred = llvm::StringSwitch<std::optional<P>>(op)
                                .Case("<", P::OLT).Case("<=", P::OLE).Case(">", P::OGT)
                                .Case(">=", P::OGE).Case("==", P::OEQ).Case("!=", P::UNE)
                                .Default(std::nullopt);
    if (pred)
      return result(arith::CmpFOp::create(builder, location, *pred, a, b), false);
    if (op == "+") return result(arith::AddFOp::create(builder, location, a, b), false);
    if (op == "-") return result(arith::SubFOp::create(builder, location, a, b), false);
    if (op == "*") return result(arith::MulFOp::create(builder, location, a, b), false);
    if (op == "/") return result(arith::DivFOp::create(builder, location, a, b), false);
    if (op == "%") return result(arith::RemFOp::create(builder, location, a, b), false);
    return error(l, "operator '" + op + "' does not apply to " + describe(lhs)), std::nullopt;
  }
  using P = arith::CmpIPredicate;
  std::optional<P> pred =
      llvm::StringSwitch<std::optional<P>>(op)
          .Case("<", isU ? P::ult : P::slt).Case("<=", isU ? P::ule : P::sle)
          .Case(">", isU ? P::ugt : P::sgt).Case(">=", isU ? P::uge : P::sge)
          .Case("==", P::eq).Case("!=", P::ne)
          .Default(std::nullopt);
  if (pred)
    return result(arith::CmpIOp::create(builder, location, *pred, a, b), false);
  if (op == "+") return result(arith::AddIOp::create(builder, location, a, b), isU);
  if (op == "-") return result(arith::SubIOp::create(builder, location, a, b), isU);
  if (op == "*") return result(arith::MulIOp::create(builder, location, a, b), isU);
  if (op == "/")
    return result(isU ? mlir::Value(arith::DivUIOp::create(builder, location, a, b))
                      : mlir::Value(arith::DivSIOp::create(builder, location, a, b)), isU);
  if (op == "%")
    return result(isU ? mlir::Value(arith::RemUIOp::create(builder, location, a, b))
                      : mlir::Value(arith::RemSIOp::create(builder, location, a, b)), isU);
  if (op == "&") return result(arith::AndIOp::create(builder, location, a, b), isU);
  if (op == "|") return result(arith::OrIOp::create(builder, location, a, b), isU);
  if (op == "^") return result(arith::XOrIOp::create(builder, location, a, b), isU);
  if (op == "<<") return result(arith::ShLIOp::create(builder, location, a, b), isU);
  if (op == ">>")
    return result(isU ? mlir::Value(arith::ShRUIOp::create(builder, location, a, b))
                      : mlir::Value(arith::ShRSIOp::create(builder, location, a, b)), isU);
  return error(l, "unknown operator '" + op + "'"), std::nullopt;
}

std::optional<Val> MLIRGen::genUnary(const UnaryExpr &e) {
  auto v = genExpr(*e.operand);
  if (!v)
    return std::nullopt;
  SMLoc l = e.getLoc();
  if (e.op == "-") {
    if (v->kind == Val::Kind::Int) {
      if (v->i == INT64_MIN)
        return error(l, "compile-time integer overflow in '-'"), std::nullopt;
      return Val::makeInt(-v->i);
    }
    if (v->kind == Val::Kind::Float)
      return Val::makeFloat(-v->f);
    if (v->isRuntime() && isFloatVal(*v))
      return Val::makeRuntime(arith::NegFOp::create(builder, loc(l), v->value));
    if (!v->isRuntime() || !llvm::isa<mlir::IntegerType>(
                               mlir::getElementTypeOrSelf(v->value.getType())))
      return error(l, "cannot negate " + describe(*v)), std::nullopt;
    return genBinary(l, "-", Val::makeInt(0), *v);
  }
  if (e.op == "!") {
    if (v->kind == Val::Kind::Bool)
      return Val::makeBool(!v->b);
    if (!v->isRuntime() || !mlir::getElementTypeOrSelf(v->value.getType()).isInteger(1))
      return error(l, "'!' needs a bool, got " + describe(*v)), std::nullopt;
    return genBinary(l, "^", *v, Val::makeBool(true));
  }
  if (v->kind == Val::Kind::Int)
    return Val::makeInt(~v->i);
  if (!v->isRuntime() || isFloatVal(*v) ||
      mlir::getElementTypeOrSelf(v->value.getType()).isInteger(1))
    return error(l, "'~' needs an integer, got " + describe(*v)), std::nullopt;
  return genBinary(l, "^", *v, Val::makeInt(-1));
}

std::optional<Val> MLIRGen::genCast(SMLoc l, Val v, mlir::Type to, bool toUnsigned) {
  if (v.kind == Val::Kind::Dtype)
    return error(l, "cannot convert " + describe(v)), std::nullopt;
  if (v.isConst()) {
    if (v.kind == Val::Kind::Float && llvm::isa<mlir::IntegerType>(to) && !to.isInteger(1)) {
      if (!(v.f > -9.3e18 && v.f < 9.3e18))
        return error(l, "float constant " + Twine(std::to_string(v.f)) + " does not fit in " +
                            typeName(to, toUnsigned)),
               std::nullopt;
      v = Val::makeInt(int64_t(v.f));
    }
    else if (v.kind == Val::Kind::Bool && !to.isInteger(1))
      v = Val::makeInt(v.b);
    else if (v.kind == Val::Kind::Int && to.isInteger(1))
      v = Val::makeBool(v.i != 0);
    return materialize(l, v, to, toUnsigned);
  }
  mlir::Location location = loc(l);
  mlir::Value x = v.value;
  mlir::Type from = mlir::getElementTypeOrSelf(x.getType());
  if (llvm::isa<mlir::tileir::PointerType>(from) || llvm::isa<mlir::tileir::PointerType>(to))
    return error(l, "cannot convert " + describe(v) + " to " + typeName(to, toUnsigned)),
           std::nullopt;
  mlir::Type resType = mlir::tileir::getSameShape(x.getType(), to);
  auto res = [&](mlir::Value r) { return Val::makeRuntime(r, toUnsigned); };
  if (from == to)
    return res(x);
  auto fromF = llvm::dyn_cast<mlir::FloatType>(from);
  auto toF = llvm::dyn_cast<mlir::FloatType>(to);
  if (fromF && toF) {
    if (fromF.getWidth() < toF.getWidth())
      return res(arith::ExtFOp::create(builder, location, resType, x));
    if (fromF.getWidth() > toF.getWidth())
      return res(arith::TruncFOp::create(builder, location, resType, x));
    // Same width (f16 <-> bf16): through f32.
    auto wide = genCast(l, v, builder.getF32Type(), false);
    return genCast(l, *wide, to, toUnsigned);
  }
  if (to.isInteger(1)) {
    auto zero = arith::ConstantOp::create(builder, location, builder.getZeroAttr(x.getType()));
    if (fromF)
      return res(arith::CmpFOp::create(builder, location, arith::CmpFPredicate::UNE, x, zero));
    return res(arith::CmpIOp::create(builder, location, arith::CmpIPredicate::ne, x, zero));
  }
  bool srcUnsigned = v.isUnsigned || from.isInteger(1);
  if (fromF)
    return res(toUnsigned ? mlir::Value(arith::FPToUIOp::create(builder, location, resType, x))
                          : mlir::Value(arith::FPToSIOp::create(builder, location, resType, x)));
  if (toF)
    return res(srcUnsigned ? mlir::Value(arith::UIToFPOp::create(builder, location, resType, x))
                           : mlir::Value(arith::SIToFPOp::create(builder, location, resType, x)));
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return res(srcUnsigned ? mlir::Value(arith::ExtUIOp::create(builder, location, resType, x))
                           : mlir::Value(arith::ExtSIOp::create(builder, location, resType, x)));
  if (fw > tw)
    return res(arith::TruncIOp::create(builder, location, resType, x));
  return res(x); // i8 <-> u8
}

std::optional<Val> MLIRGen::genMethod(const MethodExpr &e) {
  auto recv = genExpr(*e.receiver);
  if (!recv)
    return std::nullopt;
  if (e.method != "to" && e.method != "bitcast")
    return error(e.getLoc(), "unknown method '" + e.method +
                                 "' (values have .to(dtype) and .bitcast(dtype))"),
           std::nullopt;
  if (e.args.size() != 1)
    return error(e.getLoc(), "." + e.method + " takes one dtype, got " + Twine(e.args.size()) +
                                 " arguments"),
           std::nullopt;
  auto target = genExpr(*e.args[0]);
  if (!target)
    return std::nullopt;
  if (target->kind != Val::Kind::Dtype)
    return error(e.args[0]->getLoc(), "." + e.method + " needs a dtype, got " + describe(*target)),
           std::nullopt;
  if (e.method == "bitcast")
    return genBitcast(e.getLoc(), *recv, target->dtype, target->isUnsigned);
  return genCast(e.getLoc(), *recv, target->dtype, target->isUnsigned);
}

std::optional<Val> MLIRGen::genBitcast(SMLoc l, Val v, mlir::Type to, bool toUnsigned) {
  if (!v.isRuntime())
    return error(l, "bitcast needs a runtime value or pointer, got " + describe(v)), std::nullopt;
  mlir::Location location = loc(l);
  mlir::Type from = mlir::getElementTypeOrSelf(v.value.getType());
  if (llvm::isa<mlir::tileir::PointerType>(from)) {
    if (to.isInteger(1))
      return error(l, "ptr<bool> is not supported; bitcast to ptr<i8> or ptr<u8>"), std::nullopt;
    auto ptrType = mlir::tileir::PointerType::get(&context, to);
    return Val::makeRuntime(mlir::tileir::PtrCastOp::create(
                                builder, location,
                                mlir::tileir::getSameShape(v.value.getType(), ptrType), v.value),
                            toUnsigned);
  }
  if (from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth() || from.isInteger(1) ||
      to.isInteger(1))
    return error(l, "bitcast keeps the bits: " + describe(v) + " and " + typeName(to, toUnsigned) +
                        " differ in width"),
           std::nullopt;
  mlir::Type resType = mlir::tileir::getSameShape(v.value.getType(), to);
  return Val::makeRuntime(mlir::arith::BitcastOp::create(builder, location, resType, v.value),
                          toUnsigned);
}

std::optional<Val> MLIRGen::genSubscript(const SubscriptExpr &e) {
  auto base = genExpr(*e.base);
  if (!base)
    return std::nullopt;
  if (!base->isRuntime() || !llvm::isa<mlir::RankedTensorType>(base->value.getType()))
    return error(e.getLoc(), "only tiles can be subscripted, got " + describe(*base)),
           std::nullopt;
  auto type = llvm::cast<mlir::RankedTensorType>(base->value.getType());
  size_t kept = llvm::count(e.isNewAxis, false);
  if (kept != size_t(type.getRank()))
    return error(e.getLoc(), "subscript has " + Twine(kept) + " ':' entries but the tile has " +
                                 Twine(type.getRank()) + " dimensions"),
           std::nullopt;
  mlir::Value v = base->value;
  std::vector<int64_t> shape(type.getShape());
  for (auto [i, isNew] : llvm::enumerate(e.isNewAxis)) {
    if (!isNew)
      continue;
    shape.insert(shape.begin() + i, 1);
    v = mlir::tileir::ExpandDimsOp::create(builder, loc(e.getLoc()),
                                         mlir::RankedTensorType::get(shape, type.getElementType()),
                                         v, int32_t(i));
  }
  if (!checkShape(e.getLoc(), shape))
    return std::nullopt;
  return Val::makeRuntime(v, base->isUnsigned);
}

std::optional<Val> MLIRGen::genExpr(const Expr &expr) {
  if (!enterNested(expr.getLoc()))
    return std::nullopt;
  llvm::scope_exit leave([&] { --nesting; });
  switch (expr.getKind()) {
  case Expr::Kind::Int:
    return Val::makeInt(llvm::cast<IntExpr>(expr).value);
  case Expr::Kind::Float:
    return Val::makeFloat(llvm::cast<FloatExpr>(expr).value);
  case Expr::Kind::Bool:
    return Val::makeBool(llvm::cast<BoolExpr>(expr).value);
  case Expr::Kind::Str:
    return error(expr.getLoc(), "string literals are only allowed in static_assert"),
           std::nullopt;
  case Expr::Kind::Name: {
    auto &name = llvm::cast<NameExpr>(expr).name;
    if (Val *v = lookup(name))
      return *v;
    bool isUnsigned = false;
    if (auto t = parseElementType(name, isUnsigned))
      return Val::makeDtype(*t, isUnsigned);
    return error(expr.getLoc(), "unknown name '" + name + "'"), std::nullopt;
  }
  case Expr::Kind::Unary:
    return genUnary(llvm::cast<UnaryExpr>(expr));
  case Expr::Kind::Binary: {
    auto &b = llvm::cast<BinaryExpr>(expr);
    auto lhs = genExpr(*b.lhs);
    if (!lhs)
      return std::nullopt;
    auto rhs = genExpr(*b.rhs);
    if (!rhs)
      return std::nullopt;
    return genBinary(b.getLoc(), b.op, *lhs, *rhs);
  }
  case Expr::Kind::Call:
    return genCall(llvm::cast<CallExpr>(expr));
  case Expr::Kind::Method:
    return genMethod(llvm::cast<MethodExpr>(expr));
  case Expr::Kind::Subscript:
    return genSubscript(llvm::cast<SubscriptExpr>(expr));
  case Expr::Kind::List:
    return error(expr.getLoc(), "a shape list is only allowed as a shape argument"),
           std::nullopt;
  }
  return std::nullopt;
}

std::optional<Val> MLIRGen::genCall(const CallExpr &call) {
  bool handled = false;
  auto result = genBuiltin(call, handled);
  if (handled)
    return result;
  const Function *fn = module.lookup(call.callee);
  if (!fn)
    return error(call.getLoc(), "unknown function '" + call.callee + "'"), std::nullopt;
  if (fn->isKernel)
    return error(call.getLoc(), "'" + call.callee + "' is a kernel; only 'fn' functions "
                                                    "can be called"),
           std::nullopt;
  if (!call.kwargs.empty())
    return error(call.kwargs[0].loc, "'" + call.callee + "' takes no keyword arguments"),
           std::nullopt;
  std::vector<Val> args;
  for (auto &a : call.args) {
    auto v = genExpr(*a);
    if (!v)
      return std::nullopt;
    args.push_back(*v);
  }
  return inlineCall(*fn, call, std::move(args));
}
