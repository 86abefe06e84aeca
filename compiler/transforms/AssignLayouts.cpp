//===- AssignLayouts.cpp - give every GPU tile a #tile.dist layout --------===//
//
// Tiles start blocked (TileLayout.h); a reduction's result keeps its source's
// threads (the source layout with the reduced dimension dropped), and a
// broadcast asks for its source in the layout whose broadcast is a register
// copy (computed data broadcast along one short dimension keeps its own
// threads, the copies in registers). Where a value's layout is not what its
// user needs, cheap values (ranges, splats, constants and integer arithmetic
// on them but divisions) are recomputed in the needed layout, and so are
// values computed from them and from short-run loads, table gathers and
// reductions along a short dimension (the loads re-issued in the new layout,
// the reduction done in each thread's registers); in addresses, shift
// amounts and select conditions, index-table loads, divisions and a loop's
// carried values are converted, the arithmetic on them redone; anything
// else goes through tile.convert_layout. A load that PipelineLoads will
// stage (in a loop of num_stages > 1) counts as one of any layout too: the
// data computed from it is redone in its user's layout and the load
// converted right after it, so that the stage is read back in that layout
// (PipelineLoads' readLayout) instead of converted again further on.
//
//===----------------------------------------------------------------------===//
#include "tile/Analysis/AxisInfo.h"
#include "tile/Analysis/SharedMemory.h"
#include "tile/Dialect/TileLayout.h"
#include "tile/Target/GPUTarget.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tileir {
#define GEN_PASS_DEF_ASSIGNLAYOUTS
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tileir

using namespace mlir;
using namespace mlir::tileir;

namespace {

/// Per-thread elements of one tile above which the GPU lowering refuses it.
constexpr int64_t kMaxRegistersPerThread = 1024;

/// Loads whose consecutive runs are this short may be issued in any layout.
constexpr int64_t kShortRunBytes = 8;

int64_t byteWidth(Type t) { return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8); }

bool isTile(Value v) { return isa<RankedTensorType>(v.getType()); }

/// Erases the ops in `block` (and the blocks nested in it) whose results
/// nothing uses, last to first, so that a dead chain goes as a whole: a
/// recomputed value's original (say an unpacking chain redone in a dot
/// operand's layout) must not count as a use of what it was computed from.
void eraseDeadOps(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        eraseDeadOps(nested);
    if (isOpTriviallyDead(&op))
      op.erase();
  }
}

/// An arith or math op with one result and no regions: it works element by
/// element, so it can run in any layout its operands share.
bool isElementwise(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         op->getNumRegions() == 0 && op->getNumResults() == 1;
}

/// Integer division and remainder by a divisor known only at run time: some
/// twenty instructions an element, dearer than a conversion's share. By a
/// constant they are a shift, a mask or a multiply (LLVM), as cheap as the
/// rest of the index arithmetic.
bool isDivision(Operation *op) {
  if (!isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
           arith::CeilDivUIOp, arith::FloorDivSIOp>(op))
    return false;
  Value divisor = op->getOperand(1);
  if (auto splat = divisor.getDefiningOp<SplatOp>())
    divisor = splat.getSrc();
  return !matchPattern(divisor, m_Constant());
}

/// Where the rematerialization of an address stops and converts: index-table
/// loads (re-reading the table in every layout put its latency in front of
/// each dependent load) and divisions (a paged kernel's `j % block_size`
/// redone in every layout slowed paged MQA by 22-30%).
bool isAddressLeaf(Operation *op) { return isa<LoadOp>(op) || isDivision(op); }

/// A load at the top level of a loop whose loads PipelineLoads stages
/// (`range(..., num_stages=S)`, S > 1): its tile is copied into shared memory
/// as it is laid out and can be read back in any layout, so the data
/// computed from it is redone in its users' layout and the load converted
/// (the conversion becomes the stage's read). A load PipelineLoads then
/// declines (its addresses depend on carried values, or its `other` is not
/// zero) keeps that conversion: of the loaded tile instead of the tile
/// computed from it, about the same bytes.
bool isStagedLoad(Operation *op) {
  auto load = dyn_cast<LoadOp>(op);
  auto loop = load ? dyn_cast<scf::ForOp>(load->getParentOp()) : scf::ForOp();
  auto stages = loop ? loop->getAttrOfType<IntegerAttr>(kNumStagesAttr) : IntegerAttr();
  return stages && stages.getInt() > 1 && isa<RankedTensorType>(load.getType());
}

/// What a value goes into where rematerialization meets it: data, or index
/// arithmetic, an address offset, a shift amount or a select's condition
/// (computed from a paged kernel's block table, and from the values a loop
/// carries, such as slot offsets or block-table entries read ahead: those
/// convert as leaves there).
enum class Use { Data, Index };

Use operandUse(Operation *op, Value operand) {
  if (auto addptr = dyn_cast<AddPtrOp>(op); addptr && operand == addptr.getOffset())
    return Use::Index;
  if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op) && operand == op->getOperand(1))
    return Use::Index;
  if (auto select = dyn_cast<arith::SelectOp>(op); select && operand == select.getCondition())
    return Use::Index;
  return Use::Data;
}

/// Elements of a reduced dimension up to which a reduction is redone in its
/// user's layout, the dimension in each thread's registers (two tokens'
/// codes joined into one operand register, say), rather than converted; and
/// of a broadcast dimension up to which computed data keeps its threads.
constexpr int64_t kMaxInThreadReduction = 4;

/// A reduction of a tile to a tile along a dimension short enough to redo
/// in one thread's registers.
bool isInThreadReduction(Operation *op) {
  auto reduce = dyn_cast<ReduceOp>(op);
  return reduce && isTile(reduce.getResult()) &&
         reduce.getSrc().getType().getDimSize(reduce.getAxis()) <= kMaxInThreadReduction;
}

/// Ops that are cheaper to recompute in another layout than to convert.
bool isCheap(Operation *op) {
  if (isa<RangeOp, SplatOp, ExpandDimsOp, ReshapeOp, BroadcastOp, AddPtrOp, PtrCastOp,
          ConvertLayoutOp>(op))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return isa<SplatElementsAttr>(constant.getValue());
  return isa<arith::ArithDialect>(op->getDialect()) && op->getNumResults() == 1 &&
         op->getNumRegions() == 0 && getElementTypeOrSelf(op->getResult(0)).isIntOrIndex() &&
         !isDivision(op);
}

class Assigner {
public:
  Assigner(MLIRContext *ctx, const GPUTargetInfo &target, const AxisInfoAnalysis &axis,
           int64_t numWarps, int64_t vectorWidth)
      : ctx(ctx), target(target), axis(axis), warpSize(target.warpSize()), numWarps(numWarps),
        vectorWidth(vectorWidth) {}

  LogicalResult run(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      if (failed(visit(&op)))
        return failure();
    return success();
  }

private:
  DistributedLayoutAttr blocked(Type type) {
    return getBlockedLayout(ctx, cast<RankedTensorType>(type).getShape(), warpSize, numWarps,
                            vectorWidth);
  }

  void setLayout(Value v, Attribute layout) { v.setType(withLayout(v.getType(), layout)); }

  /// Gives a new tile result its layout, refusing tiles too big for registers.
  LogicalResult assign(Operation *op, Value v, DistributedLayoutAttr layout) {
    setLayout(v, layout);
    if (layout.getNumRegisters() <= kMaxRegistersPerThread)
      return success();
    auto type = cast<RankedTensorType>(v.getType());
    return op->emitError() << "a tile of " << type.getNumElements()
                           << " elements needs " << layout.getNumRegisters()
                           << " registers per thread with " << numWarps << " warps of "
                           << warpSize << " threads; the GPU targets allow at most "
                           << kMaxRegistersPerThread
                           << " (use a smaller tile or more warps)";
  }

  bool canRecompute(Value v, int depth) {
    Operation *def = v.getDefiningOp();
    if (!def || depth > 8 || !isCheap(def))
      return false;
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return !isTile(operand) || canRecompute(operand, depth + 1);
    });
  }

  /// Whether `v` can take another layout without converting computed data:
  /// broadcasts and cheap values are redone, and loop-carried values (and
  /// elementwise results of them) are carried in the layout the body computes
  /// them in (visitFor).
  bool isMovable(Value v, int depth) {
    Operation *def = v.getDefiningOp();
    if (!def || canRecompute(v, 0))
      return true;
    // A broadcast that keeps its source's threads, and an expand_dims or
    // reshape (the same registers), move as their source does.
    if (auto broadcast = dyn_cast<BroadcastOp>(def))
      return !keptBroadcastDim(broadcast) ||
             (depth < 4 && isMovable(broadcast.getSrc(), depth + 1));
    if (isa<ExpandDimsOp, ReshapeOp>(def))
      return depth < 4 && isMovable(def->getOperand(0), depth + 1);
    return isElementwise(def) && depth < 4 && llvm::all_of(def->getOperands(), [&](Value operand) {
             return !isTile(operand) || isMovable(operand, depth + 1);
           });
  }

  /// The dimension along which `op` broadcasts computed data that keeps its
  /// threads (one dimension, at most kMaxInThreadReduction long: the copies
  /// go to registers); none for other broadcasts, which are blocked.
  std::optional<int64_t> keptBroadcastDim(BroadcastOp op) {
    SmallVector<int64_t> dims = broadcastDims(op);
    if (dims.size() != 1 ||
        cast<RankedTensorType>(op.getType()).getDimSize(dims.front()) > kMaxInThreadReduction ||
        canRecompute(op.getSrc(), 0))
      return std::nullopt;
    return dims.front();
  }

  /// Whether `v`, directly or through elementwise ops, becomes an
  /// expand_dims operand or a value a loop or branch carries on (whose layout
  /// the body decides).
  bool reachesExpandOrCarried(Value v, int depth) {
    if (depth > 6)
      return true;
    for (Operation *user : v.getUsers()) {
      if (isa<ExpandDimsOp, scf::YieldOp>(user))
        return true;
      if (isElementwise(user) && reachesExpandOrCarried(user->getResult(0), depth + 1))
        return true;
    }
    return false;
  }

  /// Whether `v` can be computed anew from cheap values and memory: loads
  /// whose pointers hold runs of consecutive addresses of at most
  /// kShortRunBytes (no layout would make them wide accesses), gathers from
  /// a table and elementwise arithmetic on them but divisions. A value made
  /// so (packed codes decoded into a dot operand, say) is computed in the
  /// layout its user needs, its loads issued there, instead of passing
  /// through shared memory. In index arithmetic (`use` not Data: what an
  /// address offset or a shift amount is computed from), isAddressLeaf
  /// values and carried values stop the search: convertTo converts them.
  bool canRematerialize(Value v, int depth, Use use = Use::Data) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return reloadable.contains(v) || use == Use::Index;
    if (depth > 64)
      return false;
    auto key = std::make_pair(v, int(use));
    if (auto known = rematerializable.find(key); known != rematerializable.end())
      return known->second;
    if ((use == Use::Index && isAddressLeaf(def)) || isStagedLoad(def))
      return rematerializable[key] = true;
    bool ok = canRecompute(v, 0);
    if (!ok && ((isElementwise(def) && !isDivision(def)) || isInThreadReduction(def) ||
                isa<LoadOp, GatherOp, TransOp, ReshapeOp, BroadcastOp, ExpandDimsOp, AddPtrOp,
                    PtrCastOp, ConvertLayoutOp>(def))) {
      ok = true;
      if (auto load = dyn_cast<LoadOp>(def)) {
        AxisInfo ptr = axis.get(load.getPtr());
        ok = ptr.contiguity * byteWidth(getElementTypeOrSelf(load)) <= kShortRunBytes;
      }
      auto gather = dyn_cast<GatherOp>(def);
      ok = ok && llvm::all_of(def->getOperands(), [&](Value operand) {
             return !isTile(operand) || (gather && operand == gather.getTable()) ||
                    canRematerialize(operand, depth + 1, std::max(use, operandUse(def, operand)));
           });
    }
    rematerializable[key] = ok;
    return ok;
  }

  /// `v` computed anew in `layout`, right after the original (`use`: what
  /// `v` goes into).
  Value recompute(Value v, DistributedLayoutAttr layout, Use use) {
    Operation *def = v.getDefiningOp();
    if (auto convert = dyn_cast<ConvertLayoutOp>(def))
      return convertTo(convert.getSrc(), layout, use);
    if (isStagedLoad(def)) {
      OpBuilder b(ctx);
      b.setInsertionPointAfterValue(v);
      return ConvertLayoutOp::create(b, v.getLoc(), withLayout(v.getType(), layout), v);
    }
    auto gather = dyn_cast<GatherOp>(def);
    SmallVector<Value> operands;
    for (Value operand : def->getOperands()) {
      if (!isTile(operand) || (gather && operand == gather.getTable())) {
        operands.push_back(operand);
        continue;
      }
      DistributedLayoutAttr need = layout;
      if (auto broadcast = dyn_cast<BroadcastOp>(def))
        need = sourceLayoutFor(broadcast, layout);
      if (auto trans = dyn_cast<TransOp>(def)) // transposing twice gives the layout back
        need = transposeLayout(layout, cast<RankedTensorType>(trans.getType()).getShape());
      if (auto reduce = dyn_cast<ReduceOp>(def))
        need = insertDimension(layout, reduce.getSrc().getType().getShape(), reduce.getAxis());
      operands.push_back(convertTo(operand, need, std::max(use, operandUse(def, operand))));
    }
    OpBuilder b(def->getContext());
    b.setInsertionPointAfter(def);
    Operation *clone = b.clone(*def);
    clone->setOperands(operands);
    setLayout(clone->getResult(0), layout);
    if (auto constant = dyn_cast<arith::ConstantOp>(clone))
      constant.setValueAttr(cast<SplatElementsAttr>(constant.getValue())
                                .resizeSplat(cast<ShapedType>(clone->getResult(0).getType())));
    return clone->getResult(0);
  }

  /// `v` in `layout`: itself, recomputed, or through tile.convert_layout.
  Value convertTo(Value v, DistributedLayoutAttr layout, Use use = Use::Data) {
    if (getLayout(v.getType()) == layout)
      return v;
    auto key = std::make_pair(v, Attribute(layout));
    Operation *def = v.getDefiningOp();
    bool remat = def && canRematerialize(v, 0, use) && !(use == Use::Index && isAddressLeaf(def));
    // Recompute what an earlier use converted.
    if (Value done = converted.lookup(key);
        done && !(remat && isa_and_present<ConvertLayoutOp>(done.getDefiningOp())))
      return done;
    Value result;
    if (canRecompute(v, 0) ||
        isa_and_present<BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp, ConvertLayoutOp>(def) ||
        remat) {
      // Broadcasts, expand_dims and transposes move no data: redo them in
      // the new layout and convert their (smaller) source instead; a
      // conversion's result is converted from its source (once, not twice).
      result = recompute(v, layout, use);
    } else {
      OpBuilder b(ctx);
      b.setInsertionPointAfterValue(v);
      result = ConvertLayoutOp::create(b, v.getLoc(), withLayout(v.getType(), layout), v);
    }
    converted[key] = result;
    return result;
  }

  /// The layout most of `v`'s users take it in (converted or as it is; the
  /// first of those used as often).
  static DistributedLayoutAttr usedLayout(Value v) {
    SmallVector<DistributedLayoutAttr> used;
    for (Operation *user : v.getUsers())
      used.push_back(isa<ConvertLayoutOp>(user) ? getLayout(user->getResult(0).getType())
                                                : getLayout(v.getType()));
    DistributedLayoutAttr best;
    int64_t bestCount = 0;
    for (DistributedLayoutAttr layout : used)
      if (int64_t count = llvm::count(used, layout); count > bestCount)
        best = layout, bestCount = count;
    return best;
  }

  /// The dimensions `op` broadcasts along (the source's of size 1 that grow).
  static SmallVector<int64_t> broadcastDims(BroadcastOp op) {
    auto resShape = cast<RankedTensorType>(op.getType()).getShape();
    SmallVector<int64_t> dims;
    for (auto [d, s, r] : llvm::enumerate(op.getSrc().getType().getShape(), resShape))
      if (s != r)
        dims.push_back(int64_t(d));
    return dims;
  }

  /// The layout a broadcast's source needs for the broadcast to be a copy
  /// between registers of the same thread.
  DistributedLayoutAttr sourceLayoutFor(BroadcastOp op, DistributedLayoutAttr result) {
    return dropDimensions(result, cast<RankedTensorType>(op.getType()).getShape(),
                          broadcastDims(op));
  }

  /// Converts the tile operands of `op` other than its pointers to `layout`.
  void convertOperands(Operation *op, Value ptr, DistributedLayoutAttr layout) {
    for (OpOperand &operand : op->getOpOperands())
      if (operand.get() != ptr && isTile(operand.get()))
        operand.set(convertTo(operand.get(), layout));
  }

  LogicalResult visit(Operation *op);
  LogicalResult visitFor(scf::ForOp op);
  /// The layouts in which the body of `op` computes the values it carries
  /// when they come in as `carried` (empty if the body cannot be laid out),
  /// or, for those it can load anew in any layout (`reload`), the layout the
  /// body uses them in.
  SmallVector<DistributedLayoutAttr> computedLayouts(scf::ForOp op,
                                                     ArrayRef<DistributedLayoutAttr> carried,
                                                     SmallVector<bool> &reload);
  LogicalResult visitIf(scf::IfOp op);

  /// The layouts of `op`'s operands and result on the target's matrix
  /// instructions, or an error at `op`. A batch of B products gives each
  /// element min(B, numWarps) of the warps' share (batchLayout).
  FailureOr<DotLayouts> dotLayouts(DotOp op) {
    auto a = op.getA().getType(), b = op.getB().getType();
    int64_t rank = a.getRank(), m = a.getDimSize(rank - 2), k = a.getDimSize(rank - 1),
            n = b.getDimSize(rank - 1);
    int64_t batch = rank == 3 ? a.getDimSize(0) : 1, batchWarps = std::min(batch, numWarps);
    DotLayouts layouts;
    std::string why = target.dotLayouts(ctx, a.getElementType(), m, n, k, numWarps / batchWarps,
                                        rank == 3, layouts);
    if (!why.empty())
      return op->emitError(why);
    if (rank == 3) {
      auto batched = [&](Attribute layout, int64_t rows, int64_t cols) -> Attribute {
        return batchLayout(cast<DistributedLayoutAttr>(layout),
                           llvm::Log2_64(rows) + llvm::Log2_64(cols), batch, batchWarps);
      };
      assert(layouts.b && !layouts.sharedBytes && "a batch element's B stays in registers");
      layouts.a = batched(layouts.a, m, k);
      layouts.b = batched(layouts.b, k, n);
      layouts.acc = batched(layouts.acc, m, n);
    }
    return layouts;
  }

  MLIRContext *ctx;
  const GPUTargetInfo &target;
  const AxisInfoAnalysis &axis;
  int64_t warpSize, numWarps, vectorWidth;
  DenseMap<std::pair<Value, Attribute>, Value> converted;
  /// Inside a trial (computedLayouts), nested loops keep their initial
  /// layouts: trials within trials would cost 2^depth layouts of the body.
  bool inTrial = false;
  /// Carried values that can be loaded anew in any layout (their initial and
  /// next values can be rematerialized), which canRematerialize takes as
  /// leaves: in a trial every such value, in the real run those carried in
  /// the layout the body uses them in.
  DenseSet<Value> reloadable;
  /// canRematerialize's answers, by value and use (cleared when
  /// a trial's ops are erased).
  DenseMap<std::pair<Value, int>, bool> rematerializable;
};

LogicalResult Assigner::visit(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return visitFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return visitIf(ifOp);
  if (isa<scf::YieldOp, func::ReturnOp>(op))
    return success();
  bool hasTile = llvm::any_of(op->getOperands(), isTile) || llvm::any_of(op->getResults(), isTile);
  if (!hasTile)
    return success();
  if (isa<RangeOp, SplatOp, arith::ConstantOp>(op)) {
    Value result = op->getResult(0);
    if (failed(assign(op, result, blocked(result.getType()))))
      return failure();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
      if (!splat)
        return op->emitError() << "the GPU targets need tile constants with one value";
      constant.setValueAttr(splat.resizeSplat(cast<ShapedType>(result.getType())));
    }
    return success();
  }
  if (auto load = dyn_cast<LoadOp>(op)) {
    if (!isTile(load.getResult()))
      return success();
    auto layout = getLayout(load.getPtr().getType());
    convertOperands(op, load.getPtr(), layout);
    return assign(op, load.getResult(), layout);
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    auto layout = getLayout(store.getPtr().getType());
    if (layout)
      convertOperands(op, store.getPtr(), layout);
    return success();
  }
  if (auto trans = dyn_cast<TransOp>(op))
    return assign(op, trans.getResult(),
                  transposeLayout(getLayout(trans.getSrc().getType()),
                                  trans.getSrc().getType().getShape()));
  if (auto gather = dyn_cast<GatherOp>(op))
    return assign(op, gather.getResult(), getLayout(gather.getIndices().getType()));
  if (auto reshape = dyn_cast<ReshapeOp>(op))
    return assign(op, reshape.getResult(), getLayout(reshape.getSrc().getType()));
  if (auto expand = dyn_cast<ExpandDimsOp>(op))
    return assign(op, expand.getResult(), getLayout(expand.getSrc().getType()));
  if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
    // Computed data broadcast along one short dimension keeps its threads,
    // the copies in each one's registers (a reduction's result put back
    // beside its source: no conversion either way); the rest is blocked.
    auto layout = blocked(broadcast.getType());
    if (std::optional<int64_t> dim = keptBroadcastDim(broadcast))
      layout = insertDimension(getLayout(broadcast.getSrc().getType()),
                               cast<RankedTensorType>(broadcast.getType()).getShape(), *dim);
    broadcast.getSrcMutable().assign(
        convertTo(broadcast.getSrc(), sourceLayoutFor(broadcast, layout)));
    return assign(op, broadcast.getResult(), layout);
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    if (!isTile(reduce.getResult()))
      return success();
    auto srcType = reduce.getSrc().getType();
    auto srcLayout = getLayout(srcType);
    auto [first, count] = dimensionBits(srcType.getShape(), int32_t(reduce.getAxis()));
    bool acrossWarps = llvm::any_of(srcLayout.getWarp(), [&, first = first, count = count](
                                                             int64_t bit) {
      return bit >= first && bit < first + count;
    });
    // Partials of several warps meet in shared memory: unless the result goes
    // back into a tile of the source's shape (expand_dims) or is carried on,
    // the threads read them back spread as the blocked layout, not every warp
    // all of them.
    if (acrossWarps && !reachesExpandOrCarried(reduce.getResult(), 0))
      return assign(op, reduce.getResult(), blocked(reduce.getResult().getType()));
    return assign(op, reduce.getResult(),
                  dropDimensions(srcLayout, srcType.getShape(),
                                 {int64_t(int32_t(reduce.getAxis()))}));
  }
  if (auto dot = dyn_cast<DotOp>(op)) {
    auto layouts = dotLayouts(dot);
    if (failed(layouts))
      return failure();
    dot.getAMutable().assign(convertTo(dot.getA(), cast<DistributedLayoutAttr>(layouts->a)));
    if (layouts->b)
      dot.getBMutable().assign(convertTo(dot.getB(), cast<DistributedLayoutAttr>(layouts->b)));
    if (layouts->sharedBytes)
      dot->setAttr(kDotStagingAttr, DenseI64ArrayAttr::get(ctx, {layouts->sharedBytes,
                                                                 layouts->sharedAlignment}));
    auto acc = cast<DistributedLayoutAttr>(layouts->acc);
    dot.getAccMutable().assign(convertTo(dot.getAcc(), acc));
    return assign(op, dot.getResult(), acc);
  }
  if (!isa<AddPtrOp, PtrCastOp>(op) && !isElementwise(op))
    return op->emitError() << "internal error: no GPU layout rule for '" << op->getName()
                           << "'";
  // Elementwise: the layout of an operand that would cost a conversion
  // (computed data, not a broadcast, a cheap or a loop-carried value), else
  // of a loop-carried one, else of a broadcast or cheap one; blocked ones
  // first at each rank, then the first.
  DistributedLayoutAttr layout;
  int best = -1;
  for (Value operand : op->getOperands()) {
    auto candidate = getLayout(operand.getType());
    if (!candidate)
      continue;
    Operation *def = operand.getDefiningOp();
    bool computed = !isMovable(operand, 0);
    bool carried = !computed && !(def && (isa<BroadcastOp, ExpandDimsOp, ReshapeOp>(def) ||
                                          canRecompute(operand, 0)));
    int rank = 4 * computed + 2 * carried + (candidate == blocked(operand.getType()));
    if (rank > best) {
      best = rank;
      layout = candidate;
    }
  }
  for (auto &operand : op->getOpOperands())
    if (isTile(operand.get()))
      operand.set(convertTo(operand.get(), layout));
  return assign(op, op->getResult(0), layout);
}

LogicalResult Assigner::visitFor(scf::ForOp op) {
  auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
  // Carried values start in their initial value's layout; an accumulator
  // `acc = dot(a, b, acc)` stays in the matrix instructions' registers.
  SmallVector<DistributedLayoutAttr> carried;
  SmallVector<bool> fixed;
  for (auto [i, init, arg] : llvm::enumerate(op.getInitArgs(), op.getRegionIterArgs())) {
    carried.push_back(getLayout(init.getType()));
    auto dot = yield->getOperand(i).getDefiningOp<DotOp>();
    fixed.push_back(dot && dot.getAcc() == arg);
    if (!carried.back() || !fixed.back())
      continue;
    auto layouts = dotLayouts(dot);
    if (failed(layouts))
      return failure();
    carried.back() = cast<DistributedLayoutAttr>(layouts->acc);
  }
  // The others are carried in the layout the body computes them in, so
  // that no iteration converts them at its end and back at the next start.
  // Values the loop loads for its next iteration (software pipelining by
  // hand) are instead carried in the layout the body uses them in, and
  // loaded in it.
  SmallVector<DistributedLayoutAttr> computed;
  SmallVector<bool> reload;
  if (!inTrial)
    computed = computedLayouts(op, carried, reload);
  for (auto [i, layout] : llvm::enumerate(computed))
    if (layout && carried[i] && !fixed[i])
      carried[i] = layout;
  for (auto [i, arg, result] : llvm::enumerate(op.getRegionIterArgs(), op.getResults())) {
    if (!carried[i])
      continue;
    op.getInitArgsMutable()[i].assign(convertTo(op.getInitArgs()[i], carried[i]));
    setLayout(arg, carried[i]);
    setLayout(result, carried[i]);
    // What the body computes from a reloaded value is redone from it in the
    // layout it is carried in, as from the load it stands for.
    if (i < reload.size() && reload[i] && !fixed[i])
      reloadable.insert(arg);
  }
  LogicalResult ok = run(*op.getBody());
  for (Value arg : op.getRegionIterArgs())
    reloadable.erase(arg);
  if (failed(ok))
    return failure();
  for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs()))
    if (auto layout = getLayout(arg.getType()))
      yield->setOperand(i, convertTo(yield->getOperand(i), layout));
  return success();
}

SmallVector<DistributedLayoutAttr>
Assigner::computedLayouts(scf::ForOp op, ArrayRef<DistributedLayoutAttr> carried,
                          SmallVector<bool> &reload) {
  // A trial on a copy of the loop, with its diagnostics dropped (the real
  // run reports them); what it adds outside the copy is dead and erased.
  OpBuilder b(op);
  auto trial = cast<scf::ForOp>(b.clone(*op));
  auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
  for (auto [i, arg, layout] : llvm::enumerate(trial.getRegionIterArgs(), carried))
    if (layout)
      setLayout(arg, layout);
  // A value loaded more than one iteration ahead passes through a chain of
  // carried values (`k0 = k1; k1 = load(...)`): one whose next value is
  // another reloadable carried value is reloadable too.
  SmallVector<bool> reloads(carried.size(), false);
  for (bool grew = true; grew;) {
    grew = false;
    for (auto [i, layout] : llvm::enumerate(carried)) {
      if (!layout || reloads[i] || !canRematerialize(op.getInitArgs()[i], 0))
        continue;
      Value next = yield.getOperand(i);
      auto chained = dyn_cast<BlockArgument>(next);
      bool ok = chained && chained.getOwner() == op.getBody()
                    ? chained.getArgNumber() > 0 && reloads[chained.getArgNumber() - 1]
                    : canRematerialize(next, 0);
      if (ok)
        reloads[i] = grew = true;
    }
  }
  for (auto [i, arg] : llvm::enumerate(trial.getRegionIterArgs()))
    if (reloads[i])
      reloadable.insert(arg);
  auto saved = converted;
  LogicalResult ok = failure();
  {
    ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
    inTrial = true;
    ok = run(*trial.getBody());
    inTrial = false;
  }
  SmallVector<DistributedLayoutAttr> layouts;
  if (succeeded(ok)) {
    eraseDeadOps(*trial.getBody());
    for (auto [v, arg] : llvm::zip(trial.getBody()->getTerminator()->getOperands(),
                                   trial.getRegionIterArgs())) {
      DistributedLayoutAttr used = reloadable.contains(arg) ? usedLayout(arg) : nullptr;
      layouts.push_back(used ? used : getLayout(v.getType()));
      reload.push_back(bool(used));
    }
    // A link of a chain that the body uses only to pass on takes the layout
    // of the value it becomes, from the end of the chain back.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto [i, arg] : llvm::enumerate(trial.getRegionIterArgs())) {
        if (!reload[i] || !arg.hasOneUse())
          continue;
        OpOperand &use = *arg.use_begin();
        if (use.getOwner() != trial.getBody()->getTerminator())
          continue;
        unsigned next = use.getOperandNumber();
        if (reload[next] && layouts[next] != layouts[i])
          layouts[i] = layouts[next], changed = true;
      }
    }
  }
  for (Value arg : trial.getRegionIterArgs())
    reloadable.erase(arg);
  trial->erase();
  converted = std::move(saved);
  rematerializable.clear();
  return layouts;
}

LogicalResult Assigner::visitIf(scf::IfOp op) {
  if (failed(run(*op.thenBlock())) || (op.elseBlock() && failed(run(*op.elseBlock()))))
    return failure();
  if (op.getNumResults() == 0)
    return success();
  auto thenYield = op.thenYield(), elseYield = op.elseYield();
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    auto layout = getLayout(thenYield->getOperand(i).getType());
    if (!layout)
      continue;
    setLayout(result, layout);
    elseYield->setOperand(i, convertTo(elseYield->getOperand(i), layout));
  }
  return success();
}

struct AssignLayouts : mlir::tileir::impl::AssignLayoutsBase<AssignLayouts> {
  using AssignLayoutsBase::AssignLayoutsBase;

  void runOnOperation() override {
    std::string error;
    auto target = createGPUTargetInfo(this->target, error);
    if (!target) {
      getOperation().emitError(error);
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr("tile.kernel"))
        continue;
      for (auto [i, arg] : llvm::enumerate(func.getArguments()))
        if (isTile(arg)) {
          func.emitError() << "GPU kernels take scalars and pointers, not tiles: argument " << i
                           << " is " << arg.getType();
          return signalPassFailure();
        }
      // One run length per kernel: 16 bytes of the narrowest element accessed.
      int64_t narrowest = 16;
      func.walk([&](Operation *op) {
        if (auto load = dyn_cast<LoadOp>(op))
          narrowest = std::min(narrowest, byteWidth(getElementTypeOrSelf(load.getType())));
        if (auto store = dyn_cast<StoreOp>(op))
          narrowest =
              std::min(narrowest, byteWidth(getElementTypeOrSelf(store.getValue().getType())));
      });
      AxisInfoAnalysis axis(func);
      Assigner assigner(&getContext(), *target, axis, numWarps, 16 / narrowest);
      if (failed(assigner.run(func.getBody().front())))
        return signalPassFailure();
      // Values recomputed in other layouts leave their originals unused.
      eraseDeadOps(func.getBody().front());
      func->setAttr("tile.threads",
                    IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                     int64_t(numWarps) * target->warpSize()));
    }
  }
};

} // namespace
