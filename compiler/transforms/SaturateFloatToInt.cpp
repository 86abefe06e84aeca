//===- SaturateFloatToInt.cpp - defined float-to-integer conversions ------===//
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"

namespace mlir::tileir {
#define GEN_PASS_DEF_SATURATEFLOATTOINT
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tileir

using namespace mlir;

namespace {

/// The signed integer `bound` in `type`'s float semantics, rounded to nearest
/// (to an infinity past the type's range).
Value floatBound(OpBuilder &b, Location loc, Type type, const APInt &bound) {
  auto element = cast<FloatType>(getElementTypeOrSelf(type));
  APFloat value(element.getFloatSemantics());
  value.convertFromAPInt(bound, /*IsSigned=*/true, APFloat::rmNearestTiesToEven);
  return createScalarOrSplatConstant(b, loc, type, value);
}

/// x -> NaN ? 0 : x >= 2^w' ? MAX : x <= MIN' ? MIN : convert(x), where 2^w'
/// is the first integer past the maximum (2^(w-1) signed, 2^w unsigned) and
/// MIN' is the minimum (-2^(w-1)) or, unsigned, -1: a value below the bound
/// that truncates into range (-0.5 -> 0) still converts.
void saturate(Operation *op, bool isSigned) {
  OpBuilder b(op);
  b.setInsertionPointAfter(op);
  Location loc = op->getLoc();
  Value x = op->getOperand(0), converted = op->getResult(0);
  Type floatType = x.getType(), intType = converted.getType();
  unsigned width = getElementTypeOrSelf(intType).getIntOrFloatBitWidth();
  // Both bounds as signed integers of width + 2 bits.
  APInt past = APInt::getOneBitSet(width + 2, isSigned ? width - 1 : width);
  APInt low = isSigned ? APInt::getSignedMinValue(width).sext(width + 2)
                       : APInt::getAllOnes(width + 2);
  auto compare = [&](arith::CmpFPredicate predicate, Value bound) -> Value {
    return arith::CmpFOp::create(b, loc, predicate, x, bound);
  };
  auto intConstant = [&](const APInt &v) {
    return createScalarOrSplatConstant(b, loc, intType, v);
  };
  Value high = compare(arith::CmpFPredicate::OGE, floatBound(b, loc, floatType, past));
  Value under = compare(arith::CmpFPredicate::OLE, floatBound(b, loc, floatType, low));
  Value nan = compare(arith::CmpFPredicate::UNO, x); // x unordered with itself
  Value max = intConstant(isSigned ? APInt::getSignedMaxValue(width) : APInt::getMaxValue(width));
  Value min = intConstant(isSigned ? APInt::getSignedMinValue(width) : APInt::getZero(width));
  auto first = arith::SelectOp::create(b, loc, under, min, converted);
  Value result = arith::SelectOp::create(b, loc, high, max, first);
  result = arith::SelectOp::create(b, loc, nan, intConstant(APInt::getZero(width)), result);
  converted.replaceAllUsesExcept(result, first);
}

struct SaturateFloatToIntPass : tileir::impl::SaturateFloatToIntBase<SaturateFloatToIntPass> {
  void runOnOperation() override {
    SmallVector<std::pair<Operation *, bool>> conversions;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::FPToSIOp>(op))
        conversions.push_back({op, true});
      else if (isa<arith::FPToUIOp>(op))
        conversions.push_back({op, false});
    });
    for (auto [op, isSigned] : conversions)
      saturate(op, isSigned);
  }
};

} // namespace
