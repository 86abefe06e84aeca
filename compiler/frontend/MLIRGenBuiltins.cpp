//===- MLIRGenBuiltins.cpp - builtin functions of the language ------------===//
#include "MLIRGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace tile;
using namespace tile::ast;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;
namespace arith = mlir::arith;
namespace math = mlir::math;

namespace {
/// Positional and keyword arguments of a builtin call, checked by name.
struct Args {
  MLIRGen &gen;
  const CallExpr &call;

  bool expect(size_t minPos, size_t maxPos, std::initializer_list<StringRef> keywords) {
    size_t n = call.args.size();
    if (n < minPos || n > maxPos) {
      std::string want = minPos == maxPos ? std::to_string(minPos)
                                          : std::to_string(minPos) + " to " + std::to_string(maxPos);
      return gen.error(call.getLoc(), "'" + call.callee + "' takes " + want +
                                          " positional arguments, got " + Twine(n));
    }
    for (auto &kw : call.kwargs)
      if (!llvm::is_contained(keywords, StringRef(kw.name)))
        return gen.error(kw.loc, "'" + call.callee + "' has no keyword argument '" + kw.name + "'");
    return true;
  }
  const Expr *keyword(StringRef name) {
    for (auto &kw : call.kwargs)
      if (kw.name == name)
        return kw.value.get();
    return nullptr;
  }
};

bool isFloatElem(mlir::Value v) {
  return llvm::isa<mlir::FloatType>(mlir::getElementTypeOrSelf(v.getType()));
}
} // namespace

static constexpr StringRef kUnaryMath[] = {"exp", "exp2", "log", "sqrt", "rsqrt",
                                           "erf", "erfc", "tanh", "abs"};

std::optional<Val> MLIRGen::genMath(SMLoc l, StringRef name, std::vector<Val> args) {
  mlir::Location location = loc(l);
  if (name == "maximum" || name == "minimum") {
    std::vector<Val *> ptrs = {&args[0], &args[1]};
    if (!unify(l, name, ptrs, true))
      return std::nullopt;
    mlir::Value a = args[0].value, b = args[1].value;
    bool isMax = name == "maximum";
    if (isFloatElem(a))
      return Val::makeRuntime(isMax ? mlir::Value(arith::MaximumFOp::create(builder, location, a, b))
                                    : mlir::Value(arith::MinimumFOp::create(builder, location, a, b)));
    bool u = args[0].isUnsigned;
    mlir::Value r = isMax ? (u ? mlir::Value(arith::MaxUIOp::create(builder, location, a, b))
                               : mlir::Value(arith::MaxSIOp::create(builder, location, a, b)))
                          : (u ? mlir::Value(arith::MinUIOp::create(builder, location, a, b))
                               : mlir::Value(arith::MinSIOp::create(builder, location, a, b)));
    return Val::makeRuntime(r, u);
  }
  Val x = args[0];
  if (x.kind == Val::Kind::Int || x.kind == Val::Kind::Float) {
    auto m = materialize(l, x, builder.getF32Type(), false);
    if (!m)
      return std::nullopt;
    x = *m;
  }
  if (!x.isRuntime())
    return error(l, "'" + name + "' needs a number, got " + describe(x)), std::nullopt;
  mlir::Value v = x.value;
  if (name == "abs" && !isFloatElem(v)) {
    if (x.isUnsigned || mlir::getElementTypeOrSelf(v.getType()).isInteger(1))
      return x;
    return Val::makeRuntime(math::AbsIOp::create(builder, location, v));
  }
  if (!isFloatElem(v))
    return error(l, "'" + name + "' needs a float, got " + describe(x) + "; convert with .to(f32)"),
           std::nullopt;
  // Narrow floats compute in f32 and round back.
  mlir::Type elem = mlir::getElementTypeOrSelf(v.getType());
  bool narrow = !elem.isF32() && !elem.isF64();
  if (narrow)
    v = genCast(l, x, builder.getF32Type(), false)->value;
  mlir::Value r = llvm::StringSwitch<std::function<mlir::Value()>>(name)
      .Case("exp", [&] { return math::ExpOp::create(builder, location, v); })
      .Case("exp2", [&] { return math::Exp2Op::create(builder, location, v); })
      .Case("log", [&] { return math::LogOp::create(builder, location, v); })
      .Case("sqrt", [&] { return math::SqrtOp::create(builder, location, v); })
      .Case("rsqrt", [&] { return math::RsqrtOp::create(builder, location, v); })
      .Case("erf", [&] { return math::ErfOp::create(builder, location, v); })
      .Case("erfc", [&] { return math::ErfcOp::create(builder, location, v); })
      .Case("tanh", [&] { return math::TanhOp::create(builder, location, v); })
      .Default([&] { return math::AbsFOp::create(builder, location, v); })();
  if (narrow)
    return genCast(l, Val::makeRuntime(r), elem, false);
  return Val::makeRuntime(r);
}

std::optional<Val> MLIRGen::genReduce(const CallExpr &call, mlir::tileir::ReduceKind kind) {
  Args args{*this, call};
  if (!args.expect(1, 2, {"axis"}))
    return std::nullopt;
  auto x = genExpr(*call.args[0]);
  if (!x)
    return std::nullopt;
  if (!x->isRuntime() || !llvm::isa<mlir::RankedTensorType>(x->value.getType()))
    return error(call.args[0]->getLoc(), "'" + call.callee + "' reduces a tile, got " +
                                             describe(*x)),
           std::nullopt;
  auto type = llvm::cast<mlir::RankedTensorType>(x->value.getType());
  if (type.getElementType().isInteger(1) ||
      llvm::isa<mlir::tileir::PointerType>(type.getElementType()))
    return error(call.args[0]->getLoc(), "'" + call.callee + "' cannot reduce " + describe(*x)),
           std::nullopt;
  const Expr *axisExpr = call.args.size() == 2 ? call.args[1].get() : args.keyword("axis");
  int64_t axis = 0;
  if (axisExpr) {
    auto a = constInt(*axisExpr, "the reduction axis");
    if (!a)
      return std::nullopt;
    axis = *a;
  } else if (type.getRank() != 1) {
    return error(call.getLoc(), "'" + call.callee + "' of a " + Twine(type.getRank()) +
                                    "-D tile needs an axis"),
           std::nullopt;
  }
  if (axis < 0 || axis >= type.getRank())
    return error(axisExpr->getLoc(), "axis " + Twine(axis) + " is out of range for a " +
                                         Twine(type.getRank()) + "-D tile"),
           std::nullopt;
  std::vector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  mlir::Type resType = shape.empty() ? type.getElementType()
                                     : mlir::Type(mlir::RankedTensorType::get(shape, type.getElementType()));
  if (x->isUnsigned && kind != mlir::tileir::ReduceKind::Sum)
    return error(call.getLoc(), "'" + call.callee + "' of unsigned tiles is not supported"),
           std::nullopt;
  auto op = mlir::tileir::ReduceOp::create(builder, loc(call.getLoc()), resType, x->value,
                                         int32_t(axis), kind);
  return Val::makeRuntime(op, x->isUnsigned);
}

std::optional<std::vector<Val>> MLIRGen::genArgs(const CallExpr &call) {
  std::vector<Val> vals;
  for (auto &a : call.args) {
    auto v = genExpr(*a);
    if (!v)
      return std::nullopt;
    vals.push_back(*v);
  }
  return vals;
}

std::optional<Val> MLIRGen::genTile(const Expr &e, mlir::RankedTensorType &type) {
  auto v = genExpr(e);
  type = v && v->isRuntime() ? llvm::dyn_cast<mlir::RankedTensorType>(v->value.getType())
                             : mlir::RankedTensorType();
  return v;
}

std::optional<Val> MLIRGen::genDot(const CallExpr &call) {
  Args args{*this, call};
  if (!args.expect(2, 3, {}))
    return std::nullopt;
  auto generated = genArgs(call);
  if (!generated)
    return std::nullopt;
  std::vector<Val> &vals = *generated;
  auto operandType = [&](size_t i) -> mlir::RankedTensorType {
    auto type = vals[i].isRuntime()
                    ? llvm::dyn_cast<mlir::RankedTensorType>(vals[i].value.getType())
                    : mlir::RankedTensorType();
    if (!type || (type.getRank() != 2 && type.getRank() != 3)) {
      error(call.args[i]->getLoc(),
            "dot needs 2-D tiles (or 3-D ones, a batch of products), got " + describe(vals[i]));
      return {};
    }
    return type;
  };
  auto a = operandType(0);
  auto b = a ? operandType(1) : mlir::RankedTensorType();
  if (!b)
    return std::nullopt;
  mlir::Type elem = a.getElementType();
  if (!llvm::isa<mlir::Float16Type, mlir::BFloat16Type, mlir::Float8E4M3FNType,
                 mlir::Float8E5M2Type>(elem))
    return error(call.args[0]->getLoc(), "dot multiplies f16, bf16, f8e4m3 or f8e5m2 tiles, got " +
                                             describe(vals[0])),
           std::nullopt;
  if (b.getElementType() != elem)
    return error(call.args[1]->getLoc(), "dot's operands must have one element type, got " +
                                             describe(vals[0]) + " and " + describe(vals[1])),
           std::nullopt;
  int64_t rank = a.getRank(), m = rank - 2, k = rank - 1;
  if (b.getRank() != rank)
    return error(call.getLoc(), "dot of a " + Twine(rank) + "-D and a " + Twine(b.getRank()) +
                                    "-D tile: both must be 2-D, or both 3-D (a batch)"),
           std::nullopt;
  if (rank == 3 && a.getDimSize(0) != b.getDimSize(0))
    return error(call.getLoc(), "batched dot of " + Twine(a.getDimSize(0)) + " and " +
                                    Twine(b.getDimSize(0)) +
                                    " products: the batch dimensions differ"),
           std::nullopt;
  if (a.getDimSize(k) != b.getDimSize(m))
    return error(call.getLoc(), "dot of a " + Twine(a.getDimSize(m)) + "x" +
                                    Twine(a.getDimSize(k)) + " and a " + Twine(b.getDimSize(m)) +
                                    "x" + Twine(b.getDimSize(k)) +
                                    " tile: the inner dimensions differ"),
           std::nullopt;
  llvm::SmallVector<int64_t> shape{a.getDimSize(m), b.getDimSize(k)};
  if (rank == 3)
    shape.insert(shape.begin(), a.getDimSize(0));
  auto accType = mlir::RankedTensorType::get(shape, builder.getF32Type());
  mlir::Value acc;
  if (vals.size() == 3) {
    if (!vals[2].isRuntime() || vals[2].value.getType() != mlir::Type(accType)) {
      std::string dims;
      for (int64_t d : shape)
        dims += (dims.empty() ? "" : ", ") + std::to_string(d);
      return error(call.args[2]->getLoc(), "dot's accumulator must be a tile<f32, [" + dims +
                                               "]>, got " + describe(vals[2])),
             std::nullopt;
    }
    acc = vals[2].value;
  } else {
    auto zero = mlir::arith::ConstantOp::create(builder, loc(call.getLoc()),
                                                builder.getF32FloatAttr(0.0f));
    acc = broadcastTo(call.getLoc(), zero, shape);
  }
  return Val::makeRuntime(mlir::tileir::DotOp::create(builder, loc(call.getLoc()), accType,
                                                      vals[0].value, vals[1].value, acc));
}

std::optional<Val> MLIRGen::genLoad(const CallExpr &call) {
  Args args{*this, call};
  if (!args.expect(1, 1, {"mask", "other"}))
    return std::nullopt;
  auto ptr = genExpr(*call.args[0]);
  if (!ptr)
    return std::nullopt;
  if (!ptr->isRuntime() ||
      !llvm::isa<mlir::tileir::PointerType>(mlir::getElementTypeOrSelf(ptr->value.getType())))
    return error(call.args[0]->getLoc(), "load needs a pointer or a tile of pointers, got " +
                                             describe(*ptr)),
           std::nullopt;
  auto pointee = llvm::cast<mlir::tileir::PointerType>(
                     mlir::getElementTypeOrSelf(ptr->value.getType()))
                     .getPointee();
  const Expr *maskExpr = args.keyword("mask");
  const Expr *otherExpr = args.keyword("other");
  std::optional<Val> mask, other;
  std::vector<int64_t> shape(
      llvm::isa<mlir::RankedTensorType>(ptr->value.getType())
          ? llvm::cast<mlir::RankedTensorType>(ptr->value.getType()).getShape()
          : llvm::ArrayRef<int64_t>());
  if (otherExpr && !maskExpr) {
    for (auto &kw : call.kwargs)
      if (kw.name == "other")
        return error(kw.loc, "'other' has no effect without 'mask'"), std::nullopt;
  }
  if (maskExpr) {
    if (!(mask = genExpr(*maskExpr)))
      return std::nullopt;
    if (mask->kind == Val::Kind::Bool) {
      auto m = materialize(maskExpr->getLoc(), *mask, builder.getI1Type(), false);
      if (!m)
        return std::nullopt;
      mask = m;
    }
    if (!mask->isRuntime() || !mlir::getElementTypeOrSelf(mask->value.getType()).isInteger(1))
      return error(maskExpr->getLoc(), "mask must be bool, got " + describe(*mask)), std::nullopt;
    auto s = broadcastShapes(maskExpr->getLoc(), shape,
                             llvm::isa<mlir::RankedTensorType>(mask->value.getType())
                                 ? llvm::cast<mlir::RankedTensorType>(mask->value.getType()).getShape()
                                 : llvm::ArrayRef<int64_t>());
    if (!s)
      return std::nullopt;
    shape = *s;
    other = Val::makeInt(0);
    if (otherExpr && !(other = genExpr(*otherExpr)))
      return std::nullopt;
    if (other->kind == Val::Kind::Int && llvm::isa<mlir::FloatType>(pointee))
      other = Val::makeFloat(double(other->i));
    auto m = materialize(otherExpr ? otherExpr->getLoc() : call.getLoc(), *other, pointee,
                         ptr->isUnsigned);
    if (!m)
      return std::nullopt;
    other = m;
    if (mlir::getElementTypeOrSelf(other->value.getType()) != pointee ||
        other->isUnsigned != ptr->isUnsigned)
      return error(otherExpr->getLoc(), "'other' must be " + typeName(pointee, ptr->isUnsigned) +
                                            " like the loaded elements, got " + describe(*other)),
             std::nullopt;
    auto withOther = broadcastShapes(
        otherExpr ? otherExpr->getLoc() : call.getLoc(), shape,
        llvm::isa<mlir::RankedTensorType>(other->value.getType())
            ? llvm::cast<mlir::RankedTensorType>(other->value.getType()).getShape()
            : llvm::ArrayRef<int64_t>());
    if (!withOther)
      return std::nullopt;
    shape = *withOther;
  }
  SMLoc l = call.getLoc();
  mlir::Value p = broadcastTo(l, ptr->value, shape);
  mlir::Value m = mask ? broadcastTo(l, mask->value, shape) : mlir::Value();
  mlir::Value o = other ? broadcastTo(l, other->value, shape) : mlir::Value();
  mlir::Type resType = mlir::tileir::getSameShape(p.getType(), pointee);
  return Val::makeRuntime(mlir::tileir::LoadOp::create(builder, loc(l), resType, p, m, o),
                          ptr->isUnsigned);
}

bool MLIRGen::genStore(const CallExpr &call) {
  Args args{*this, call};
  if (!args.expect(2, 2, {"mask"}))
    return false;
  auto ptr = genExpr(*call.args[0]);
  if (!ptr)
    return false;
  if (!ptr->isRuntime() ||
      !llvm::isa<mlir::tileir::PointerType>(mlir::getElementTypeOrSelf(ptr->value.getType())))
    return error(call.args[0]->getLoc(), "store needs a pointer or a tile of pointers, got " +
                                             describe(*ptr));
  auto pointee = llvm::cast<mlir::tileir::PointerType>(
                     mlir::getElementTypeOrSelf(ptr->value.getType()))
                     .getPointee();
  auto value = genExpr(*call.args[1]);
  if (!value)
    return false;
  if (value->isConst()) {
    if (value->kind == Val::Kind::Int && llvm::isa<mlir::FloatType>(pointee))
      value = Val::makeFloat(double(value->i));
    if (!(value = materialize(call.args[1]->getLoc(), *value, pointee, ptr->isUnsigned)))
      return false;
  }
  if (!value->isRuntime() ||
      mlir::getElementTypeOrSelf(value->value.getType()) != pointee ||
      value->isUnsigned != ptr->isUnsigned)
    return error(call.args[1]->getLoc(),
                 "cannot store " + describe(*value) + " through " + describe(*ptr) +
                     "; convert the value with .to(" + typeName(pointee, ptr->isUnsigned) + ")");
  std::optional<Val> mask;
  if (const Expr *maskExpr = args.keyword("mask")) {
    if (!(mask = genExpr(*maskExpr)))
      return false;
    if (mask->kind == Val::Kind::Bool && !(mask = materialize(maskExpr->getLoc(), *mask,
                                                              builder.getI1Type(), false)))
      return false;
    if (!mask->isRuntime() || !mlir::getElementTypeOrSelf(mask->value.getType()).isInteger(1))
      return error(maskExpr->getLoc(), "mask must be bool, got " + describe(*mask));
  }
  std::vector<Val *> all = {&*ptr, &*value};
  if (mask)
    all.push_back(&*mask);
  SMLoc l = call.getLoc();
  std::vector<int64_t> shape;
  for (Val *v : all) {
    auto s = broadcastShapes(l, shape,
                             llvm::isa<mlir::RankedTensorType>(v->value.getType())
                                 ? llvm::cast<mlir::RankedTensorType>(v->value.getType()).getShape()
                                 : llvm::ArrayRef<int64_t>());
    if (!s)
      return false;
    shape = *s;
  }
  mlir::Value m = mask ? broadcastTo(l, mask->value, shape) : mlir::Value();
  mlir::tileir::StoreOp::create(builder, loc(l), broadcastTo(l, ptr->value, shape),
                              broadcastTo(l, value->value, shape), m);
  return true;
}

std::optional<Val> MLIRGen::genBuiltin(const CallExpr &call, bool &handled) {
  handled = true;
  StringRef name = call.callee;
  Args args{*this, call};
  SMLoc l = call.getLoc();
  if (name == "program_id" || name == "num_programs") {
    if (!args.expect(1, 1, {}))
      return std::nullopt;
    auto axis = constInt(*call.args[0], "the grid axis");
    if (!axis)
      return std::nullopt;
    if (*axis < 0 || *axis > 2)
      return error(call.args[0]->getLoc(), "grid axis must be 0, 1 or 2, got " + Twine(*axis)),
             std::nullopt;
    if (name == "program_id")
      return Val::makeRuntime(mlir::tileir::ProgramIdOp::create(builder, loc(l), builder.getI32Type(),
                                                              int32_t(*axis)));
    return Val::makeRuntime(mlir::tileir::NumProgramsOp::create(builder, loc(l), builder.getI32Type(),
                                                              int32_t(*axis)));
  }
  if (name == "arange") {
    if (!args.expect(2, 2, {}))
      return std::nullopt;
    auto start = constInt(*call.args[0], "arange's start");
    auto end = start ? constInt(*call.args[1], "arange's end") : std::nullopt;
    if (!end)
      return std::nullopt;
    if (*end <= *start)
      return error(l, "arange needs start < end, got " + Twine(*start) + " and " + Twine(*end)),
             std::nullopt;
    if (*start < INT32_MIN || *end > INT32_MAX)
      return error(l, "arange bounds must fit in i32"), std::nullopt;
    if (!checkShape(l, {*end - *start}))
      return std::nullopt;
    auto type = mlir::RankedTensorType::get({*end - *start}, builder.getI32Type());
    return Val::makeRuntime(mlir::tileir::RangeOp::create(builder, loc(l), type, int32_t(*start),
                                                        int32_t(*end)));
  }
  if (name == "zeros" || name == "full") {
    bool isFull = name == "full";
    if (!args.expect(isFull ? 3 : 2, isFull ? 3 : 2, {}))
      return std::nullopt;
    auto shape = constShape(*call.args[0]);
    if (!shape)
      return std::nullopt;
    auto dtype = genExpr(*call.args.back());
    if (!dtype)
      return std::nullopt;
    if (dtype->kind != Val::Kind::Dtype)
      return error(call.args.back()->getLoc(), "expected a dtype, got " + describe(*dtype)),
             std::nullopt;
    std::optional<Val> value = Val::makeInt(0);
    if (dtype->dtype.isInteger(1))
      value = Val::makeBool(false);
    if (isFull && !(value = genExpr(*call.args[1])))
      return std::nullopt;
    if (value->kind == Val::Kind::Int && llvm::isa<mlir::FloatType>(dtype->dtype))
      value = Val::makeFloat(double(value->i));
    auto scalar = materialize(call.args[isFull ? 1 : 0]->getLoc(), *value, dtype->dtype,
                              dtype->isUnsigned);
    if (!scalar)
      return std::nullopt;
    if (scalar->value.getType() != dtype->dtype || scalar->isUnsigned != dtype->isUnsigned)
      return error(call.args[1]->getLoc(), "fill value " + describe(*scalar) + " is not " +
                                               typeName(dtype->dtype, dtype->isUnsigned)),
             std::nullopt;
    return Val::makeRuntime(broadcastTo(l, scalar->value, *shape), dtype->isUnsigned);
  }
  if (name == "where") {
    if (!args.expect(3, 3, {}))
      return std::nullopt;
    auto vals = genArgs(call);
    if (!vals)
      return std::nullopt;
    Val &c = (*vals)[0];
    if (c.kind == Val::Kind::Bool)
      return c.b ? (*vals)[1] : (*vals)[2];
    if (!c.isRuntime() || !mlir::getElementTypeOrSelf(c.value.getType()).isInteger(1))
      return error(call.args[0]->getLoc(), "where's condition must be bool, got " + describe(c)),
             std::nullopt;
    if (!unify(l, "where", {&(*vals)[1], &(*vals)[2]}, true) ||
        !unify(l, "where", {&c, &(*vals)[1], &(*vals)[2]}, false))
      return std::nullopt;
    return Val::makeRuntime(arith::SelectOp::create(builder, loc(l), c.value, (*vals)[1].value,
                                                    (*vals)[2].value),
                            (*vals)[1].isUnsigned);
  }
  if (name == "load")
    return genLoad(call);
  if (name == "dot")
    return genDot(call);
  if (name == "trans") {
    if (!args.expect(1, 1, {}))
      return std::nullopt;
    mlir::RankedTensorType type;
    auto x = genTile(*call.args[0], type);
    if (!x)
      return std::nullopt;
    if (!type || (type.getRank() != 2 && type.getRank() != 3))
      return error(call.args[0]->getLoc(), "trans needs a 2-D or 3-D tile, got " + describe(*x)),
             std::nullopt;
    llvm::SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[shape.size() - 2], shape.back());
    auto result = mlir::RankedTensorType::get(shape, type.getElementType());
    return Val::makeRuntime(
        mlir::tileir::TransOp::create(builder, loc(l), result, x->value), x->isUnsigned);
  }
  if (name == "reshape") {
    if (!args.expect(2, 2, {}))
      return std::nullopt;
    mlir::RankedTensorType type;
    auto x = genTile(*call.args[0], type);
    if (!x)
      return std::nullopt;
    if (!type)
      return error(call.args[0]->getLoc(), "reshape needs a tile, got " + describe(*x)),
             std::nullopt;
    auto shape = constShape(*call.args[1]);
    if (!shape)
      return std::nullopt;
    auto result = mlir::RankedTensorType::get(*shape, type.getElementType());
    if (result.getNumElements() != type.getNumElements())
      return error(call.args[1]->getLoc(), "reshape of " + describe(*x) + " to " +
                                               Twine(result.getNumElements()) +
                                               " elements: the element counts differ"),
             std::nullopt;
    return Val::makeRuntime(
        mlir::tileir::ReshapeOp::create(builder, loc(l), result, x->value), x->isUnsigned);
  }
  if (name == "gather") {
    if (!args.expect(2, 2, {}))
      return std::nullopt;
    mlir::RankedTensorType tableType, indexType;
    auto table = genTile(*call.args[0], tableType);
    if (!table)
      return std::nullopt;
    if (!tableType || tableType.getRank() != 1 ||
        llvm::isa<mlir::tileir::PointerType>(tableType.getElementType()))
      return error(call.args[0]->getLoc(), "gather's table must be a 1-D tile of numbers, got " +
                                               describe(*table)),
             std::nullopt;
    auto indices = genTile(*call.args[1], indexType);
    if (!indices)
      return std::nullopt;
    auto indexElem = indexType ? llvm::dyn_cast<mlir::IntegerType>(indexType.getElementType())
                               : mlir::IntegerType();
    if (!indexElem || indexElem.getWidth() == 1)
      return error(call.args[1]->getLoc(), "gather's indices must be a tile of integers, got " +
                                               describe(*indices)),
             std::nullopt;
    auto result = mlir::RankedTensorType::get(indexType.getShape(), tableType.getElementType());
    return Val::makeRuntime(mlir::tileir::GatherOp::create(builder, loc(l), result, table->value,
                                                           indices->value),
                            table->isUnsigned);
  }
  if (name == "gdc_wait" || name == "gdc_launch_dependents") {
    if (!args.expect(0, 0, {}))
      return std::nullopt;
    if (name == "gdc_wait")
      mlir::tileir::GridDependencyWaitOp::create(builder, loc(l));
    else
      mlir::tileir::GridDependencyLaunchOp::create(builder, loc(l));
    return Val::makeBool(true);
  }
  if (name == "atomic_add") {
    if (!args.expect(2, 2, {}))
      return std::nullopt;
    auto vals = genArgs(call);
    if (!vals)
      return std::nullopt;
    Val &ptr = (*vals)[0];
    auto ptrType = ptr.isRuntime() ? llvm::dyn_cast<mlir::tileir::PointerType>(ptr.value.getType())
                                   : mlir::tileir::PointerType();
    if (!ptrType || !ptrType.getPointee().isInteger(32))
      return error(call.args[0]->getLoc(),
                   "atomic_add needs one ptr<i32> (not a tile), got " + describe(ptr)),
             std::nullopt;
    auto value = materialize(call.args[1]->getLoc(), (*vals)[1], builder.getI32Type(), false);
    if (!value)
      return std::nullopt;
    if (!value->value.getType().isInteger(32))
      return error(call.args[1]->getLoc(),
                   "atomic_add adds one i32 (not a tile), got " + describe((*vals)[1])),
             std::nullopt;
    return Val::makeRuntime(mlir::tileir::AtomicAddOp::create(builder, loc(l), builder.getI32Type(),
                                                            ptr.value, value->value));
  }
  if (name == "store") {
    if (!genStore(call))
      return std::nullopt;
    return Val::makeBool(true);
  }
  if (name == "sum")
    return genReduce(call, mlir::tileir::ReduceKind::Sum);
  if (name == "max")
    return genReduce(call, mlir::tileir::ReduceKind::Max);
  if (name == "min")
    return genReduce(call, mlir::tileir::ReduceKind::Min);
  if (llvm::is_contained(kUnaryMath, name) || name == "maximum" || name == "minimum") {
    size_t n = (name == "maximum" || name == "minimum") ? 2 : 1;
    if (!args.expect(n, n, {}))
      return std::nullopt;
    auto vals = genArgs(call);
    if (!vals)
      return std::nullopt;
    return genMath(l, name, *vals);
  }
  if (name == "cdiv") {
    if (!args.expect(2, 2, {}))
      return std::nullopt;
    auto vals = genArgs(call);
    if (!vals)
      return std::nullopt;
    auto sum = genBinary(l, "+", (*vals)[0], (*vals)[1]);
    auto minus = sum ? genBinary(l, "-", *sum, Val::makeInt(1)) : std::nullopt;
    return minus ? genBinary(l, "/", *minus, (*vals)[1]) : std::nullopt;
  }
  if (name == "expand_dims") {
    if (!args.expect(2, 2, {}))
      return std::nullopt;
    auto x = genExpr(*call.args[0]);
    auto axis = x ? constInt(*call.args[1], "expand_dims' axis") : std::nullopt;
    if (!axis)
      return std::nullopt;
    if (!x->isRuntime() || !llvm::isa<mlir::RankedTensorType>(x->value.getType()))
      return error(call.args[0]->getLoc(), "expand_dims needs a tile, got " + describe(*x)),
             std::nullopt;
    auto type = llvm::cast<mlir::RankedTensorType>(x->value.getType());
    if (*axis < 0 || *axis > type.getRank())
      return error(call.args[1]->getLoc(), "axis " + Twine(*axis) + " is out of range [0, " +
                                               Twine(type.getRank()) + "]"),
             std::nullopt;
    std::vector<int64_t> shape(type.getShape());
    shape.insert(shape.begin() + *axis, 1);
    if (!checkShape(l, shape))
      return std::nullopt;
    return Val::makeRuntime(mlir::tileir::ExpandDimsOp::create(
                                builder, loc(l),
                                mlir::RankedTensorType::get(shape, type.getElementType()),
                                x->value, int32_t(*axis)),
                            x->isUnsigned);
  }
  if (name == "broadcast_to") {
    if (!args.expect(2, 2, {}))
      return std::nullopt;
    auto x = genExpr(*call.args[0]);
    auto shape = x ? constShape(*call.args[1]) : std::nullopt;
    if (!shape)
      return std::nullopt;
    if (!x->isRuntime() && !(x = materializeNatural(l, *x)))
      return std::nullopt;
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(x->value.getType());
    auto target = broadcastShapes(l, type ? type.getShape() : llvm::ArrayRef<int64_t>(), *shape);
    if (!target)
      return std::nullopt;
    if (*target != *shape)
      return error(l, "broadcast_to cannot shrink " + describe(*x)), std::nullopt;
    return Val::makeRuntime(broadcastTo(l, x->value, *shape), x->isUnsigned);
  }
  handled = false;
  return std::nullopt;
}
