//===- SharedMemory.cpp - shared memory / LDS scratch of tile ops ---------===//
#include "tile/Analysis/SharedMemory.h"

#include "tile/Dialect/TileLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tileir;

int64_t mlir::tileir::sharedElementBytes(Type type) {
  Type elem = getElementTypeOrSelf(type);
  if (isa<PointerType>(elem))
    return 8;
  return std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
}

std::optional<ShufflePlan> mlir::tileir::planShuffles(DistributedLayoutAttr from,
                                                     DistributedLayoutAttr to) {
  int64_t laneBits = int64_t(to.getLane().size());
  // Where `to` holds index bit `bit`: the reading thread's own copy of it.
  auto source = [&](int64_t bit) -> ShuffleBit {
    for (auto [j, b] : llvm::enumerate(to.getReg()))
      if (b == bit)
        return {ShuffleBit::Register, int64_t(j)};
    for (auto [j, b] : llvm::enumerate(to.getLane()))
      if (b == bit)
        return {ShuffleBit::Thread, int64_t(j)};
    for (auto [j, b] : llvm::enumerate(to.getWarp()))
      if (b == bit)
        return {ShuffleBit::Thread, laneBits + int64_t(j)};
    llvm_unreachable("every index bit has an owner in a #tile.dist layout");
  };
  for (auto [k, bit] : llvm::enumerate(from.getWarp()))
    if (bit >= 0 && to.getWarp()[k] != bit)
      return std::nullopt; // the element is in another warp
  ShufflePlan plan;
  for (auto [k, bit] : llvm::enumerate(from.getLane())) {
    ShuffleBit s{ShuffleBit::Own, int64_t(k)};
    if (bit >= 0 && to.getLane()[k] != bit)
      s = source(bit);
    if (s.kind == ShuffleBit::Thread && s.pos == int64_t(k))
      s = {ShuffleBit::Own, int64_t(k)};
    plan.crossesLanes |= s.kind != ShuffleBit::Own;
    plan.laneBits.push_back(s);
  }
  for (int64_t bit : from.getReg()) {
    plan.regBits.push_back(source(bit));
    plan.dynamicRegBits += plan.regBits.back().kind == ShuffleBit::Thread;
  }
  if (plan.dynamicRegBits > (plan.crossesLanes ? 1 : 3))
    return std::nullopt;
  return plan;
}

std::optional<TransposePlan> mlir::tileir::planTransposes(DistributedLayoutAttr from,
                                                         DistributedLayoutAttr to) {
  ArrayRef<int64_t> fl = from.getLane(), tl = to.getLane();
  ArrayRef<int64_t> fr = from.getReg(), tr = to.getReg();
  if (fl.size() != 5 || tl.size() != 5 || from.getWarp() != to.getWarp() ||
      fr.size() != tr.size() || llvm::is_contained(fl, -1) || llvm::is_contained(tl, -1))
    return std::nullopt;
  // fl = [a1, a2, b0, b1, b2] and tl = [b1, b2, a0, a1, a2].
  if (tl[0] != fl[3] || tl[1] != fl[4] || tl[3] != fl[0] || tl[4] != fl[1])
    return std::nullopt;
  const int64_t *a0 = llvm::find(fr, tl[2]), *b0 = llvm::find(tr, fl[2]);
  if (a0 == fr.end() || b0 == tr.end())
    return std::nullopt;
  TransposePlan plan;
  plan.fromBit = a0 - fr.begin();
  plan.toBit = b0 - tr.begin();
  // The index bits the other register bits of register r number.
  auto indexBits = [](ArrayRef<int64_t> reg, int64_t skip, int64_t r) {
    int64_t bits = 0;
    for (auto [j, bit] : llvm::enumerate(reg))
      if (int64_t(j) != skip && ((r >> j) & 1))
        bits |= int64_t(1) << bit;
    return bits;
  };
  DenseMap<int64_t, int64_t> sourceOf;
  for (int64_t r = 0; r < (int64_t(1) << fr.size()); ++r)
    if (!((r >> plan.fromBit) & 1))
      sourceOf[indexBits(fr, plan.fromBit, r)] = r;
  for (int64_t r = 0; r < (int64_t(1) << tr.size()); ++r) {
    if ((r >> plan.toBit) & 1) {
      plan.source.push_back(-1);
      continue;
    }
    auto it = sourceOf.find(indexBits(tr, plan.toBit, r));
    if (it == sourceOf.end())
      return std::nullopt; // the other register bits differ
    plan.source.push_back(it->second);
  }
  return plan;
}

int64_t mlir::tileir::sharedScratchBytes(Operation *op) {
  if (auto convert = dyn_cast<ConvertLayoutOp>(op)) {
    auto from = getLayout(convert.getSrc().getType()), to = getLayout(convert.getType());
    if (planShuffles(from, to))
      return 0; // registers move within each thread or by warp shuffles
    auto type = cast<RankedTensorType>(convert.getType());
    return type.getNumElements() * sharedElementBytes(type);
  }
  if (auto staging = op->getAttrOfType<DenseI64ArrayAttr>(kDotStagingAttr))
    return staging[0];
  if (auto stages = dyn_cast<StageBufferOp>(op))
    return stages.getBytes();
  if (auto gather = dyn_cast<GatherOp>(op))
    return gather->hasAttr(kGatherReadsStageAttr) ? 0
                                                  : gather.getTable().getType().getNumElements() *
                                                        sharedElementBytes(gather.getType());
  if (isa<AtomicAddOp>(op))
    return 4; // the old value, from the thread that adds to the others
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    auto type = reduce.getSrc().getType();
    auto [first, count] = dimensionBits(type.getShape(), int32_t(reduce.getAxis()));
    int64_t warps = 1;
    for (int64_t bit : getLayout(type).getWarp())
      if (bit >= first && bit < first + count)
        warps *= 2;
    if (warps == 1)
      return 0; // shuffles suffice
    // One 32-bit partial per result element and warp.
    return type.getNumElements() / type.getDimSize(int32_t(reduce.getAxis())) * warps * 4;
  }
  return 0;
}

int64_t mlir::tileir::sharedAlignment(Operation *op) {
  if (auto staging = op->getAttrOfType<DenseI64ArrayAttr>(kDotStagingAttr))
    return staging[1];
  if (auto stages = dyn_cast<StageBufferOp>(op); stages && stages.getSwizzled())
    return 1024; // the swizzle repeats every 8 rows of 128 bytes
  return 16;
}

Operation *mlir::tileir::gatherTableLoop(Operation *op) {
  auto gather = dyn_cast<GatherOp>(op);
  if (!gather)
    return nullptr;
  Operation *tableScope = gather.getTable().getParentBlock()->getParentOp();
  Operation *loop = nullptr;
  for (Operation *parent = op->getParentOp(); parent && !isa<func::FuncOp>(parent);
       parent = parent->getParentOp())
    if (isa<scf::ForOp>(parent) && !parent->isAncestor(tableScope))
      loop = parent;
  return loop;
}
