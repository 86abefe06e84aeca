//===- PipelineLoads.cpp - stage loop loads through shared memory --------===//
//
// A loop marked `tile.num_stages` = S (the `num_stages=` of `range`) keeps
// S - 1 iterations of each eligible load in flight: the tiles go through a
// ring buffer of S stages in shared memory (LDS). Before the loop, the
// copies for iterations 0 .. S-2 start; iteration i waits, once, for its
// tiles (the wait's barrier also ends every thread's reads of iteration
// i - 1), starts the copies for iteration i + S - 1 into the stages
// iteration i - 1 released, and reads each tile where it is used, in the
// layout the user wants. Each copy (prologue stage or iteration) closes one
// group, so the wait leaves the (S - 2) * loads groups of the iterations
// after i in flight. A tile of 128-byte
// rows whose only use is trans(tile) as the B operand of a dot the target
// stages through shared memory (SharedMemory.h) goes into a swizzled
// buffer, in the layout the dot reads, and the dot reads the stage itself.
// A gather whose table is a staged tile looks its indices up in the stage
// (kGatherReadsStageAttr), instead of writing the table to shared memory
// again: a large table (a page of a paged cache, say) costs one copy. Where
// such a table is masked by `range < C` (a page padded to a power of two),
// each stage holds its first C elements only (kStageLiveAttr): nothing past
// them is copied, and their lookups give 0. With bulk-copies (a target with
// one-thread bulk copies: NVIDIA sm_90), a loop's only staged load whose stage
// is one contiguous, 16-byte aligned run of global memory (AxisInfo) gets a
// bulk buffer (kStageBulkAttr): each stage is copied by one bulk copy that
// completes on the stage's barrier, and each iteration, after its wait,
// waits on that barrier for the phase of its parity (tile.stage_wait).
//
//===----------------------------------------------------------------------===//
#include "tile/Analysis/AxisInfo.h"
#include "tile/Analysis/SharedMemory.h"
#include "tile/Dialect/TileDialect.h"
#include "tile/Dialect/TileLayout.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tileir {
#define GEN_PASS_DEF_PIPELINELOADS
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tileir

using namespace mlir;
using namespace mlir::tileir;

namespace {

/// Collects in `slice` the ops of `loop`'s body that compute `v` from the
/// induction variable and values defined before the loop, through ops free
/// of memory effects (integer divisions too: the copies ahead divide by
/// what the loop divides by) and masked loads, tiles or scalars (an index
/// read through a table: the copy ahead reads it then, masked off past the
/// loop's end);
/// false if `v` depends on anything else (carried values, unmasked loads,
/// nested regions).
bool addressSlice(Value v, scf::ForOp loop, llvm::SetVector<Operation *> &slice) {
  if (v == loop.getInductionVar())
    return true;
  if (!loop.getBody()->getParent()->isAncestor(v.getParentRegion()))
    return true; // defined before the loop
  Operation *def = v.getDefiningOp();
  auto load = dyn_cast_or_null<LoadOp>(def);
  bool readsIndex = load && load.getMask();
  if (!def || def->getBlock() != loop.getBody() || def->getNumRegions() ||
      !(isMemoryEffectFree(def) || readsIndex))
    return false;
  if (slice.contains(def))
    return true;
  for (Value operand : def->getOperands())
    if (!addressSlice(operand, loop, slice))
      return false;
  slice.insert(def);
  return true;
}

/// Whether `v` is zero everywhere (the copies fill masked elements with 0).
bool isZero(Value v) {
  if (auto splat = v.getDefiningOp<SplatOp>())
    v = splat.getSrc();
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

struct Candidate {
  LoadOp load;
  llvm::SetVector<Operation *> slice;
};

/// The layout the loaded tile is best read back in: the one a lone layout
/// conversion (directly or after a transpose) would give it.
DistributedLayoutAttr readLayout(LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  if (!load->hasOneUse())
    return getLayout(type);
  Operation *user = *load->getUsers().begin();
  if (auto convert = dyn_cast<ConvertLayoutOp>(user))
    return getLayout(convert.getType());
  auto trans = dyn_cast<TransOp>(user);
  if (!trans || !trans->hasOneUse())
    return getLayout(type);
  auto convert = dyn_cast<ConvertLayoutOp>(*trans->getUsers().begin());
  if (!convert)
    return getLayout(type);
  auto result = cast<RankedTensorType>(convert.getType());
  return transposeLayout(getLayout(result), result.getShape());
}

/// The dot that can read `load`'s tile from its stage: the one whose B
/// operand, staged by the target through shared memory, is the transpose of
/// the tile, rows of 128 bytes, and nothing else uses it.
DotOp stageReadingDot(LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  if (type.getRank() != 2 || !load->hasOneUse() ||
      type.getDimSize(1) * type.getElementTypeBitWidth() != 128 * 8)
    return {};
  auto trans = dyn_cast<TransOp>(*load->getUsers().begin());
  if (!trans || !trans->hasOneUse())
    return {};
  auto dot = dyn_cast<DotOp>(*trans->getUsers().begin());
  if (!dot || dot.getB() != trans.getResult() || !dot->hasAttr(kDotStagingAttr))
    return {};
  return dot;
}

/// C where `load` is a 1-D load masked by `range(0, N) < C` (a constant
/// 0 < C < N) whose users are all gathers looking up their indices in it
/// (directly, or after a layout conversion): its stages need hold only the
/// first C elements (kStageLiveAttr); else -1.
int64_t liveElements(LoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  auto cmp = load.getMask() ? load.getMask().getDefiningOp<arith::CmpIOp>() : arith::CmpIOp();
  if (type.getRank() != 1 || !cmp ||
      (cmp.getPredicate() != arith::CmpIPredicate::slt &&
       cmp.getPredicate() != arith::CmpIPredicate::ult))
    return -1;
  auto range = cmp.getLhs().getDefiningOp<RangeOp>();
  Value rhs = cmp.getRhs();
  if (auto splat = rhs.getDefiningOp<SplatOp>())
    rhs = splat.getSrc();
  APInt bound; // a splat, or a dense splat constant once canonicalized
  if (!range || range.getStart() != 0 || !matchPattern(rhs, m_ConstantInt(&bound)))
    return -1;
  int64_t live = bound.getSExtValue();
  if (live <= 0 || live >= type.getDimSize(0))
    return -1;
  auto looksUp = [](Operation *user, Value table) {
    auto gather = dyn_cast<GatherOp>(user);
    return gather && gather.getTable() == table;
  };
  for (Operation *user : load->getUsers()) {
    auto convert = dyn_cast<ConvertLayoutOp>(user);
    if (convert ? !llvm::all_of(convert->getUsers(),
                                [&](Operation *u) { return looksUp(u, convert.getResult()); })
                : !looksUp(user, load.getResult()))
      return -1;
  }
  return live;
}

/// Where to read the staged tile of `load`: before its first user when all
/// its users are in one block (inside a branch, iterations that take the
/// other way then read nothing), else where the load was.
Operation *readPoint(LoadOp load) {
  Operation *first = nullptr;
  for (Operation *user : load->getUsers()) {
    if (first && user->getBlock() != first->getBlock())
      return load;
    if (!first || user->isBeforeInBlock(first))
      first = user;
  }
  return first ? first : load.getOperation();
}

/// Replaces `load` by `value` (read in its own layout or readLayout's),
/// folding the conversion that readLayout looked through.
void replaceLoad(LoadOp load, Value value) {
  if (value.getType() == load.getType()) {
    load.replaceAllUsesWith(value);
    return;
  }
  Operation *user = *load->getUsers().begin();
  if (auto convert = dyn_cast<ConvertLayoutOp>(user)) {
    convert.replaceAllUsesWith(value);
    convert->erase();
    return;
  }
  auto trans = cast<TransOp>(user);
  auto convert = cast<ConvertLayoutOp>(*trans->getUsers().begin());
  trans.getSrcMutable().assign(value);
  trans.getResult().setType(convert.getType());
  convert.replaceAllUsesWith(trans.getResult());
  convert->erase();
}

/// Whether a stage of `load`'s tile (its first `live` elements; all of them
/// when `live` < 0) is one run of consecutive, 16-byte aligned global
/// addresses whose bytes are a multiple of 16: the shape of a bulk copy.
bool isBulkRun(LoadOp load, int64_t live, const AxisInfoAnalysis &axis) {
  auto type = cast<RankedTensorType>(load.getType());
  if (type.getRank() != 1 || (load.getMask() && live < 0))
    return false;
  int64_t count = live < 0 ? type.getNumElements() : live;
  int64_t bytes = count * std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  AxisInfo ptr = axis.get(load.getPtr());
  return ptr.contiguity >= count && ptr.divisibility % 16 == 0 && bytes % 16 == 0;
}

class Pipeliner {
public:
  Pipeliner(scf::ForOp loop, int64_t stages, const AxisInfoAnalysis *bulkAxis)
      : loop(loop), stages(stages), bulkAxis(bulkAxis) {}

  void run() {
    // Only loads every iteration runs (none inside a branch): the copies
    // ahead of time must not read what a branch would have kept the program
    // from reading.
    SmallVector<Candidate> candidates;
    for (auto load : loop.getBody()->getOps<LoadOp>()) {
      if (!isa<RankedTensorType>(load.getType()))
        continue;
      if (load.getOther() && !isZero(load.getOther()))
        continue;
      Candidate c{load, {}};
      if (!addressSlice(load.getPtr(), loop, c.slice) ||
          (load.getMask() && !addressSlice(load.getMask(), loop, c.slice)))
        continue;
      candidates.push_back(std::move(c));
    }
    if (candidates.empty())
      return;
    int64_t pending = (stages - 2) * int64_t(candidates.size());
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    SmallVector<Value> buffers;
    bool bulk = false;
    for (Candidate &c : candidates) {
      auto type = cast<RankedTensorType>(c.load.getType());
      int64_t elementBytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
      int64_t live = liveElements(c.load);
      int64_t bytes = (live < 0 ? type.getNumElements() * elementBytes
                                : llvm::alignTo(live * elementBytes, 16)) *
                      stages;
      // One bulk copy a stage, completing on the stage's barrier (8 bytes
      // each, after the data), where the loop stages this load alone.
      bulk = bulkAxis && candidates.size() == 1 && isBulkRun(c.load, live, *bulkAxis);
      if (bulk)
        bytes += 8 * stages;
      DotOp dot = stageReadingDot(c.load);
      if (dot) {
        dot->removeAttr(kDotStagingAttr);
        dot->setAttr(kDotReadsStageAttr, b.getUnitAttr());
      }
      auto buffer = StageBufferOp::create(b, loc, b.getI64IntegerAttr(bytes),
                                          b.getI32IntegerAttr(int32_t(stages)),
                                          dot ? b.getUnitAttr() : UnitAttr());
      if (live >= 0)
        buffer->setAttr(kStageLiveAttr, b.getI64IntegerAttr(live));
      if (bulk)
        buffer->setAttr(kStageBulkAttr, b.getUnitAttr());
      buffers.push_back(buffer);
    }
    // Prologue: iterations 0 .. S-2 into stages 0 .. S-2.
    for (int64_t k = 0; k + 1 < stages; ++k) {
      Value iv = arith::AddIOp::create(
          b, loc, loop.getLowerBound(),
          arith::MulIOp::create(b, loc, loop.getStep(), constant(b, k, ivType())));
      for (auto [c, buffer] : llvm::zip(candidates, buffers))
        copy(b, c, buffer, iv, constant(b, k, b.getI32Type()));
    }
    // Body: wait for this iteration's tiles, start iteration i + S - 1, and
    // read each tile where it is used.
    b.setInsertionPoint(candidates.front().load);
    Value iv = loop.getInductionVar();
    Value n = arith::DivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()), loop.getStep());
    Value stage = toI32(b, arith::RemSIOp::create(b, loc, n, constant(b, stages, ivType())));
    AsyncWaitOp::create(b, candidates.front().load.getLoc(), buffers.front(),
                        b.getI32IntegerAttr(int32_t(pending)));
    if (bulk) // the copies into a stage alternate its barrier's phase
      StageWaitOp::create(
          b, loc, buffers.front(), stage,
          toI32(b, arith::RemSIOp::create(
                       b, loc, arith::DivSIOp::create(b, loc, n, constant(b, stages, ivType())),
                       constant(b, 2, ivType()))));
    Value ahead = arith::AddIOp::create(
        b, loc, iv,
        arith::MulIOp::create(b, loc, loop.getStep(), constant(b, stages - 1, ivType())));
    Value next = toI32(
        b, arith::RemSIOp::create(
               b, loc, arith::AddIOp::create(b, loc, n, constant(b, stages - 1, ivType())),
               constant(b, stages, ivType())));
    for (auto [c, buffer] : llvm::zip(candidates, buffers))
      copy(b, c, buffer, ahead, next);
    for (auto [c, buffer] : llvm::zip(candidates, buffers)) {
      auto type = cast<RankedTensorType>(c.load.getType());
      OpBuilder at(readPoint(c.load));
      Value tile = StageReadOp::create(at, c.load.getLoc(), withLayout(type, readLayout(c.load)),
                                       buffer, stage);
      replaceLoad(c.load, tile);
      c.load->erase();
      for (Operation *user : tile.getUsers())
        if (auto gather = dyn_cast<GatherOp>(user); gather && gather.getTable() == tile)
          gather->setAttr(kGatherReadsStageAttr, b.getUnitAttr());
    }
    b.setInsertionPointAfter(loop);
    AsyncWaitOp::create(b, loc, buffers.front(), b.getI32IntegerAttr(0));
  }

private:
  Type ivType() { return loop.getInductionVar().getType(); }

  Value constant(OpBuilder &b, int64_t v, Type type) {
    return arith::ConstantOp::create(b, loop.getLoc(), b.getIntegerAttr(type, v));
  }

  /// A stage index (below S) as the i32 the buffer ops take.
  Value toI32(OpBuilder &b, Value v) {
    if (v.getType().isInteger(32))
      return v;
    return arith::TruncIOp::create(b, loop.getLoc(), b.getI32Type(), v);
  }

  /// Starts the copy of `c`'s tile for the iteration whose induction
  /// variable is `iv` into `stage` (masked off past the loop's end).
  void copy(OpBuilder &b, Candidate &c, Value buffer, Value iv, Value stage) {
    Location loc = c.load.getLoc();
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv,
                                          loop.getUpperBound());
    auto inRangeMask = [&](Value like) {
      auto type = cast<RankedTensorType>(like.getType());
      return SplatOp::create(
          b, loc, RankedTensorType::get(type.getShape(), b.getI1Type(), type.getEncoding()),
          inRange);
    };
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    for (Operation &op : *loop.getBody()) {
      if (!c.slice.contains(&op))
        continue;
      Operation *clone = b.clone(op, map);
      if (auto load = dyn_cast<LoadOp>(clone)) { // an index read ahead: nothing past the end
        b.setInsertionPoint(load);
        Value mask = load.getMask();
        load.getMaskMutable().assign(arith::AndIOp::create(
            b, loc, mask, isa<RankedTensorType>(mask.getType()) ? inRangeMask(mask) : inRange));
        b.setInsertionPointAfter(load);
      }
    }
    Value ptr = map.lookupOrDefault(c.load.getPtr());
    Value mask = inRangeMask(ptr);
    if (c.load.getMask())
      mask = arith::AndIOp::create(b, loc, map.lookupOrDefault(c.load.getMask()), mask);
    AsyncCopyOp::create(b, loc, buffer, stage, ptr, mask);
    AsyncCommitOp::create(b, loc);
  }

  scf::ForOp loop;
  int64_t stages;
  /// The kernel's AxisInfo where the target has bulk copies, else null.
  const AxisInfoAnalysis *bulkAxis;
};

struct PipelineLoads : mlir::tileir::impl::PipelineLoadsBase<PipelineLoads> {
  using PipelineLoadsBase::PipelineLoadsBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      SmallVector<std::pair<scf::ForOp, int64_t>> loops;
      func.walk([&](scf::ForOp loop) {
        if (auto stages = loop->getAttrOfType<IntegerAttr>(kNumStagesAttr))
          if (stages.getInt() >= 2)
            loops.push_back({loop, stages.getInt()});
      });
      // Analysed before any loop is rewritten: the candidates' pointers are
      // the kernel's own values.
      std::optional<AxisInfoAnalysis> axis;
      if (bulkCopies && !loops.empty())
        axis.emplace(func);
      for (auto [loop, stages] : loops)
        Pipeliner(loop, stages, axis ? &*axis : nullptr).run();
    }
  }
};

} // namespace
