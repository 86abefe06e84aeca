//===- TileLayout.h - building and relating #tile.dist layouts --*- C++ -*-===//
//
// Helpers over DistributedLayoutAttr (see TileAttrs.td): the blocked layout
// a tile gets by default, and the layout of a tile with some dimensions
// removed (a reduction's result) or of size 1 (a broadcast's source).
//
//===----------------------------------------------------------------------===//
#ifndef TILE_DIALECT_TILELAYOUT_H
#define TILE_DIALECT_TILELAYOUT_H

#include "tile/Dialect/TileDialect.h"

namespace mlir::tileir {

/// The bits [first, first + count) of the row-major linear index of `shape`
/// that number dimension `dim`.
std::pair<int64_t, int64_t> dimensionBits(ArrayRef<int64_t> shape, int64_t dim);

/// Runs of `vectorWidth` consecutive elements per thread (fewer when the
/// tile is small), consecutive runs on consecutive lanes, then warps, then
/// further registers: Triton's blocked layout with the last dimension
/// fastest. Threads beyond the tile's size hold copies.
DistributedLayoutAttr getBlockedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                       int64_t warpSize, int64_t numWarps, int64_t vectorWidth);

/// `layout` (of a tile of `shape`) with the index bits of `dims` taken out:
/// the registers holding them are dropped and the lanes and warps holding
/// them hold copies. It is the layout of the reduction of the tile along
/// `dims` (the dims removed) and the layout a broadcast along `dims` needs
/// of its source (the dims of size 1): the same bits in the same threads.
DistributedLayoutAttr dropDimensions(DistributedLayoutAttr layout, ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> dims);

/// A layout of a tile of `shape` whose dimension `dim` is held in each
/// thread's registers (its lowest register bits) and whose other bits are
/// where `reduced` (a layout of `shape` without `dim`) puts them: the
/// source layout of an in-thread reduction along `dim` that gives `reduced`
/// (dropDimensions undoes it).
DistributedLayoutAttr insertDimension(DistributedLayoutAttr reduced, ArrayRef<int64_t> shape,
                                      int64_t dim);

/// The layout of the transpose (the last two dimensions swapped) of a 2-D or
/// 3-D tile of `shape` laid out as `layout`: the same threads and registers,
/// those dimensions' bits swapped.
DistributedLayoutAttr transposeLayout(DistributedLayoutAttr layout, ArrayRef<int64_t> shape);

/// The layout of a batch of `batch` tiles, each laid out as `layout` (a
/// layout of one tile of `bits` index bits), as dimension 0 of a tile one
/// rank higher: the batch's low log2(`batchWarps`) bits on further warps,
/// its others on further registers (the highest ones, so that each batch
/// element's registers are one contiguous run). A batched dot's layouts.
DistributedLayoutAttr batchLayout(DistributedLayoutAttr layout, int64_t bits, int64_t batch,
                                  int64_t batchWarps);
/// One batch element's layout of `layout` (from batchLayout, for a tile of
/// `shape` whose dimension 0 is the batch) and the number of registers
/// that hold the batch (the run of each element's registers is the
/// layout's registers over it).
std::pair<DistributedLayoutAttr, int64_t> unbatchLayout(DistributedLayoutAttr layout,
                                                        ArrayRef<int64_t> shape);
/// The layout encoding of `type` (null for scalars and unencoded tiles).
DistributedLayoutAttr getLayout(Type type);

/// `type` (a tile) with encoding `layout`.
RankedTensorType withLayout(Type type, Attribute layout);

} // namespace mlir::tileir

#endif // TILE_DIALECT_TILELAYOUT_H
