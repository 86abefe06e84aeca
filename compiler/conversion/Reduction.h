//===- Reduction.h - the arithmetic of tile.reduce, shared by lowerings -*- C++ -*-===//
#ifndef TILE_CONVERSION_REDUCTION_H
#define TILE_CONVERSION_REDUCTION_H

#include "tile/Dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::tileir {

/// The neutral element of `kind` for scalars of `type`: 0, -inf / the
/// smallest signed integer (max), +inf / the largest (min).
inline TypedAttr reductionIdentity(OpBuilder &b, ReduceKind kind, Type type) {
  if (auto ft = dyn_cast<FloatType>(type))
    return kind == ReduceKind::Sum
               ? b.getFloatAttr(ft, 0.0)
               : b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(),
                                                    kind == ReduceKind::Max));
  unsigned w = type.getIntOrFloatBitWidth();
  return b.getIntegerAttr(type, kind == ReduceKind::Sum   ? APInt::getZero(w)
                                : kind == ReduceKind::Max ? APInt::getSignedMinValue(w)
                                                          : APInt::getSignedMaxValue(w));
}

/// `a` combined with `c` by `kind` (floating max/min propagate NaN).
inline Value combineReduction(OpBuilder &b, Location loc, ReduceKind kind, Value a, Value c) {
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(a.getType()));
  switch (kind) {
  case ReduceKind::Sum:
    return isFloat ? Value(arith::AddFOp::create(b, loc, a, c))
                   : Value(arith::AddIOp::create(b, loc, a, c));
  case ReduceKind::Max:
    return isFloat ? Value(arith::MaximumFOp::create(b, loc, a, c))
                   : Value(arith::MaxSIOp::create(b, loc, a, c));
  case ReduceKind::Min:
    return isFloat ? Value(arith::MinimumFOp::create(b, loc, a, c))
                   : Value(arith::MinSIOp::create(b, loc, a, c));
  }
  llvm_unreachable("reduce kind");
}

} // namespace mlir::tileir

#endif // TILE_CONVERSION_REDUCTION_H
