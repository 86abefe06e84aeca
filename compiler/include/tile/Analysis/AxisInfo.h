//===- AxisInfo.h - contiguity, divisibility and constancy ------*- C++ -*-===//
//
// What the GPU lowering needs to vectorise memory access (after Triton's
// AxisInfo): for each integer or pointer value of a kernel (scalar or tile),
// along the tile's last dimension: the largest power of two that divides
// every value at the start of a run (`divisibility`; bytes for pointers,
// units for integers), the length of runs of consecutive values
// (`contiguity`) and of equal values (`constancy`).
//
//===----------------------------------------------------------------------===//
#ifndef TILE_ANALYSIS_AXISINFO_H
#define TILE_ANALYSIS_AXISINFO_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tileir {

struct AxisInfo {
  int64_t divisibility = 1;
  int64_t contiguity = 1;
  int64_t constancy = 1;
};

class AxisInfoAnalysis {
public:
  /// Analyses every value in `func`. Function arguments carrying a
  /// `tile.divisibility` attribute get that divisibility.
  explicit AxisInfoAnalysis(Operation *func);
  AxisInfo get(Value v) const;

private:
  void visit(Operation *op);
  llvm::DenseMap<Value, AxisInfo> info;
};

} // namespace mlir::tileir

#endif // TILE_ANALYSIS_AXISINFO_H
