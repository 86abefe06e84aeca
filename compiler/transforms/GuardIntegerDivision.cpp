//===- GuardIntegerDivision.cpp - division that never traps on the host ---===//
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <cassert>

namespace mlir::tileir {
#define GEN_PASS_DEF_GUARDINTEGERDIVISION
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tileir

using namespace mlir;

namespace {

/// A constant of `type` (an integer, an index or a vector of them) whose
/// elements are `value` (arith's createScalarOrSplatConstant takes no index).
Value splat(OpBuilder &b, Location loc, Type type, const APInt &value) {
  Type element = getElementTypeOrSelf(type);
  TypedAttr attr = IntegerAttr::get(element, value);
  if (auto shaped = dyn_cast<ShapedType>(type))
    attr = DenseElementsAttr::get(shaped, attr);
  return arith::ConstantOp::create(b, loc, type, attr);
}

unsigned bitWidth(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isIndex() ? IndexType::kInternalStorageBitWidth
                           : element.getIntOrFloatBitWidth();
}

/// Makes `op`'s divisor 1 where the division would trap.
void guard(Operation *op, bool isSigned) {
  Value dividend = op->getOperand(0), divisor = op->getOperand(1);
  unsigned width = bitWidth(divisor.getType());
  APInt constant;
  bool nonZero = matchPattern(divisor, m_ConstantInt(&constant)) && !constant.isZero();
  if (nonZero && !(isSigned && constant.isAllOnes()))
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type type = divisor.getType();
  auto equal = [&](Value x, const APInt &v) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, splat(b, loc, type, v));
  };
  Value traps = nonZero ? Value() : equal(divisor, APInt::getZero(width));
  if (isSigned) {
    Value overflows = arith::AndIOp::create(b, loc, equal(divisor, APInt::getAllOnes(width)),
                                            equal(dividend, APInt::getSignedMinValue(width)));
    traps = traps ? arith::OrIOp::create(b, loc, traps, overflows) : overflows;
  }
  Value one = splat(b, loc, type, APInt(width, 1));
  op->setOperand(1, arith::SelectOp::create(b, loc, traps, one, divisor));
}

struct GuardIntegerDivisionPass
    : tileir::impl::GuardIntegerDivisionBase<GuardIntegerDivisionPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (isa<arith::DivSIOp, arith::RemSIOp>(op))
        guard(op, /*isSigned=*/true);
      else if (isa<arith::DivUIOp, arith::RemUIOp>(op))
        guard(op, /*isSigned=*/false);
      else
        assert((!isa<arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op)) &&
               "runs after arith-expand");
    });
  }
};

} // namespace
