//===- TileLayout.cpp - building and relating #tile.dist layouts ----------===//
#include "tile/Dialect/TileLayout.h"

using namespace mlir;
using namespace mlir::tileir;

std::pair<int64_t, int64_t> mlir::tileir::dimensionBits(ArrayRef<int64_t> shape, int64_t dim) {
  int64_t first = 0;
  for (int64_t d = int64_t(shape.size()) - 1; d > dim; --d)
    first += llvm::Log2_64(shape[d]);
  return {first, int64_t(llvm::Log2_64(shape[dim]))};
}

DistributedLayoutAttr mlir::tileir::getBlockedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                                     int64_t warpSize, int64_t numWarps,
                                                     int64_t vectorWidth) {
  int64_t bits = 0;
  for (int64_t dim : shape)
    bits += llvm::Log2_64(dim);
  int64_t laneBits = llvm::Log2_64(warpSize), warpBits = llvm::Log2_64(numWarps);
  // The run: up to vectorWidth elements, but keep every thread busy first.
  int64_t runBits = std::clamp<int64_t>(bits - laneBits - warpBits, 0,
                                        llvm::Log2_64(std::max<int64_t>(1, vectorWidth)));
  SmallVector<int64_t> reg, lane, warp;
  int64_t next = 0;
  auto take = [&](SmallVector<int64_t> &list, int64_t count) {
    for (int64_t i = 0; i < count; ++i)
      list.push_back(next < bits ? next++ : -1);
  };
  take(reg, runBits);
  take(lane, laneBits);
  take(warp, warpBits);
  while (next < bits)
    reg.push_back(next++);
  return DistributedLayoutAttr::get(ctx, reg, lane, warp);
}

DistributedLayoutAttr mlir::tileir::dropDimensions(DistributedLayoutAttr layout,
                                                   ArrayRef<int64_t> shape,
                                                   ArrayRef<int64_t> dims) {
  int64_t bits = 0;
  for (int64_t dim : shape)
    bits += llvm::Log2_64(dim);
  // newBit[b]: the bit's position once the dropped bits are gone, or -1.
  SmallVector<int64_t> newBit(bits, 0);
  for (int64_t dim : dims) {
    auto [first, count] = dimensionBits(shape, dim);
    for (int64_t b = first; b < first + count; ++b)
      newBit[b] = -1;
  }
  for (int64_t b = 0, next = 0; b < bits; ++b)
    if (newBit[b] != -1)
      newBit[b] = next++;
  auto map = [&](ArrayRef<int64_t> list, bool keepDropped) {
    SmallVector<int64_t> out;
    for (int64_t b : list) {
      int64_t mapped = b < 0 ? -1 : newBit[b];
      if (mapped != -1 || keepDropped)
        out.push_back(mapped);
    }
    return out;
  };
  return DistributedLayoutAttr::get(layout.getContext(), map(layout.getReg(), false),
                                    map(layout.getLane(), true), map(layout.getWarp(), true));
}

DistributedLayoutAttr mlir::tileir::batchLayout(DistributedLayoutAttr layout, int64_t bits,
                                                int64_t batch, int64_t batchWarps) {
  assert(llvm::isPowerOf2_64(batch) && llvm::isPowerOf2_64(batchWarps) && batchWarps <= batch);
  SmallVector<int64_t> reg(layout.getReg()), warp(layout.getWarp());
  int64_t warpBits = llvm::Log2_64(batchWarps), batchBits = llvm::Log2_64(batch);
  for (int64_t b = 0; b < batchBits; ++b)
    (b < warpBits ? warp : reg).push_back(bits + b);
  return DistributedLayoutAttr::get(layout.getContext(), reg, layout.getLane(), warp);
}

std::pair<DistributedLayoutAttr, int64_t> mlir::tileir::unbatchLayout(DistributedLayoutAttr layout,
                                                                      ArrayRef<int64_t> shape) {
  int64_t bits = dimensionBits(shape, 0).first;
  SmallVector<int64_t> reg, warp;
  int64_t batchRegs = 1;
  for (int64_t b : layout.getReg()) {
    if (b < bits) {
      assert(batchRegs == 1 && "a batch's registers are the highest");
      reg.push_back(b);
    } else {
      batchRegs *= 2;
    }
  }
  for (int64_t b : layout.getWarp())
    if (b < bits)
      warp.push_back(b);
  return {DistributedLayoutAttr::get(layout.getContext(), reg, layout.getLane(), warp), batchRegs};
}

DistributedLayoutAttr mlir::tileir::insertDimension(DistributedLayoutAttr reduced,
                                                     ArrayRef<int64_t> shape, int64_t dim) {
  auto [first, count] = dimensionBits(shape, dim);
  auto map = [&, first = first, count = count](ArrayRef<int64_t> list) {
    SmallVector<int64_t> out;
    for (int64_t b : list)
      out.push_back(b < first ? b : b + count);
    return out;
  };
  SmallVector<int64_t> reg;
  for (int64_t b = first; b < first + count; ++b)
    reg.push_back(b);
  llvm::append_range(reg, map(reduced.getReg()));
  return DistributedLayoutAttr::get(reduced.getContext(), reg, map(reduced.getLane()),
                                    map(reduced.getWarp()));
}

DistributedLayoutAttr mlir::tileir::getLayout(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return dyn_cast_if_present<DistributedLayoutAttr>(tensor.getEncoding());
  return {};
}

RankedTensorType mlir::tileir::withLayout(Type type, Attribute layout) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(), layout);
}

DistributedLayoutAttr mlir::tileir::transposeLayout(DistributedLayoutAttr layout,
                                                    ArrayRef<int64_t> shape) {
  // [..., A, B]: index bits [0, lb) are the column, [lb, lb + la) the row
  // and the rest the batch; in the transpose [..., B, A] the old row bits
  // come first and the batch's stay.
  int64_t la = llvm::Log2_64(shape[shape.size() - 2]), lb = llvm::Log2_64(shape.back());
  auto map = [&](ArrayRef<int64_t> list) {
    SmallVector<int64_t> out;
    for (int64_t bit : list)
      out.push_back(bit < 0 ? -1 : bit < lb ? bit + la : bit < la + lb ? bit - lb : bit);
    return out;
  };
  return DistributedLayoutAttr::get(layout.getContext(), map(layout.getReg()),
                                    map(layout.getLane()), map(layout.getWarp()));
}
