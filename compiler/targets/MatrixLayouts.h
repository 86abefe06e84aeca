//===- MatrixLayouts.h - dot's layouts from a matrix instruction's fragments -*- C++ -*-===//
//
// What the NVIDIA (mma.sync) and AMD (MFMA) dot lowerings share: the
// #tile.dist layouts of a dot's operands and accumulator, built from one
// instruction's fragment bits. Warps tile the result rows first; further
// register bits repeat the instruction tile (along K first for the
// operands, along N first for the accumulator).
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TARGETS_MATRIXLAYOUTS_H
#define TILE_TARGETS_MATRIXLAYOUTS_H

#include "tile/Dialect/TileDialect.h"
#include "tile/Target/GPUTarget.h"

namespace mlir::tileir {

/// Bit `bit` of an element's row (or column) within one instruction tile.
struct FragmentBit {
  bool row;
  int64_t bit;
};

/// Which fragment bit each register bit and lane bit of one operand selects.
struct Fragment {
  SmallVector<FragmentBit> reg, lane;
};

/// A matrix instruction: its tile (m x n, k deep) and the fragments of A
/// ([m, k]), B ([k, n]) and the accumulator ([m, n]).
struct MatrixInstruction {
  int64_t m, n, k;
  Fragment a, b, c;
};

/// The layouts of dot(a: [m, k], b: [k, n]) over `numWarps` warps on
/// `inst`; m, n and k are multiples of the instruction's.
DotLayouts buildDotLayouts(MLIRContext *ctx, const MatrixInstruction &inst, int64_t m,
                           int64_t n, int64_t k, int64_t numWarps);

/// The warps along the rows and along the columns of a dot's [m, n] result
/// laid out as `acc`.
std::pair<int64_t, int64_t> resultWarps(DistributedLayoutAttr acc, int64_t n);

} // namespace mlir::tileir

#endif // TILE_TARGETS_MATRIXLAYOUTS_H
