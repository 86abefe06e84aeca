//===- TileToGPULayout.cpp - ops that move tile elements between threads --===//
//
// broadcast, expand_dims, reshape, convert_layout, reduce and gather on
// #tile.dist tiles.
// Layouts are bit maps (TileAttrs.td), so which register, lane or warp holds
// an element is known at compile time: these lowerings pick registers
// statically and use 8x8 transposes (16-bit tiles, where the target has
// them), shuffles or shared memory only for the bits that cross threads.
//
//===----------------------------------------------------------------------===//
#include "GPULowering.h"
#include "Reduction.h"

#include "tile/Analysis/SharedMemory.h"

using namespace mlir;
using namespace mlir::tileir;

namespace {

/// Which register bits of `layout` number index bits outside [first, first + count).
SmallVector<bool> registersOutside(DistributedLayoutAttr layout, int64_t first, int64_t count) {
  SmallVector<bool> keep;
  for (int64_t bit : layout.getReg())
    keep.push_back(bit < first || bit >= first + count);
  return keep;
}

struct BroadcastLowering : GPUPattern<BroadcastOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto srcType = op.getSrc().getType();
    auto dstType = cast<RankedTensorType>(op.getType());
    auto src = getLayout(srcType), dst = getLayout(dstType);
    SmallVector<int64_t> dims;
    SmallVector<bool> keep(dst.getReg().size(), true);
    for (auto [d, s, r] : llvm::enumerate(srcType.getShape(), dstType.getShape())) {
      if (s == r)
        continue;
      dims.push_back(d);
      auto [first, count] = dimensionBits(dstType.getShape(), d);
      for (auto [i, k] : llvm::enumerate(registersOutside(dst, first, count)))
        keep[i] = keep[i] && k;
    }
    // The register layout of the source this broadcast copies from.
    auto need = dropDimensions(dst, dstType.getShape(), dims);
    if (need.getLane() != src.getLane() || need.getWarp() != src.getWarp())
      return rewriter.notifyMatchFailure(op, "source layout is not the broadcast's slice");
    SmallVector<Value> regs = unpack(rewriter, op.getLoc(), adaptor.getSrc());
    SmallVector<Value> out;
    for (int64_t r = 0; r < dst.getNumRegisters(); ++r)
      out.push_back(regs[src.registerOf(need.registerIndex(compressBits(r, keep)))]);
    rewriter.replaceOp(op, pack(rewriter, op.getLoc(),
                                getTypeConverter()->convertType(dstType), out));
    return success();
  }
};

/// expand_dims and reshape: layouts number bits of the row-major index, which
/// a size-1 dimension or a new shape leaves as they are: the same elements
/// in the same registers.
template <typename Op> struct SameRegistersLowering : GPUPattern<Op> {
  using GPUPattern<Op>::GPUPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (getLayout(op.getSrc().getType()) != getLayout(op.getType()))
      return rewriter.notifyMatchFailure(op, "the result has another layout");
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

struct TransLowering : GPUPattern<TransOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(TransOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // The result's layout names the same registers with the dimensions swapped.
    auto src = op.getSrc().getType();
    if (transposeLayout(getLayout(src), src.getShape()) != getLayout(op.getType()))
      return rewriter.notifyMatchFailure(op, "trans changes the threads' elements");
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// `v` (an integer or float of at most 64 bits; tile pointers are i64
/// addresses here) as lane `lane` holds it.
Value shuffleValue(OpBuilder &b, Location loc, const GPUTargetInfo &target, Value v,
                   Value lane) {
  Type type = v.getType(), i32 = b.getI32Type(), i64 = b.getI64Type();
  Value bits = v;
  if (isa<FloatType>(type))
    bits = arith::BitcastOp::create(b, loc, b.getIntegerType(type.getIntOrFloatBitWidth()), v);
  Type intType = bits.getType();
  unsigned width = intType.getIntOrFloatBitWidth();
  assert((width <= 32 || width == 64) && "tile elements are at most 64 bits");
  Value moved;
  if (width <= 32) {
    Value word = width < 32 ? Value(arith::ExtUIOp::create(b, loc, i32, bits)) : bits;
    moved = target.shuffleIndex(b, loc, word, lane);
    if (width < 32)
      moved = arith::TruncIOp::create(b, loc, intType, moved);
  } else {
    Value c32 = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32));
    Value lo = arith::TruncIOp::create(b, loc, i32, bits);
    Value hi = arith::TruncIOp::create(b, loc, i32, arith::ShRUIOp::create(b, loc, bits, c32));
    lo = arith::ExtUIOp::create(b, loc, i64, target.shuffleIndex(b, loc, lo, lane));
    hi = arith::ExtUIOp::create(b, loc, i64, target.shuffleIndex(b, loc, hi, lane));
    moved = arith::OrIOp::create(b, loc, lo, arith::ShLIOp::create(b, loc, hi, c32));
  }
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(b, loc, type, moved);
  return moved;
}

/// The registers of layout `to` from `regs` by `plan` (planShuffles): for
/// each, the candidate source registers (one, or two to eight when the
/// source register depends on the thread), shuffled from the source lane
/// when the element crosses lanes, then the thread's own candidate selected.
SmallVector<Value> moveByShuffles(OpBuilder &b, Location loc, const GPUTargetInfo &target,
                                  const ShufflePlan &plan, DistributedLayoutAttr to,
                                  ArrayRef<Value> regs) {
  Value tid;
  auto threadId = [&] { return tid ? tid : tid = target.threadId(b, loc); };
  auto threadBit = [&](int64_t t) -> Value {
    Value v = t ? Value(arith::ShRUIOp::create(b, loc, threadId(), i32Const(b, loc, t)))
                : threadId();
    return arith::AndIOp::create(b, loc, v, i32Const(b, loc, 1));
  };
  // The source lane's bits every result register shares: the reading
  // thread's own lane bits and bits moved from its thread id.
  Value laneBase;
  if (plan.crossesLanes) {
    int64_t own = 0;
    for (auto [k, s] : llvm::enumerate(plan.laneBits))
      if (s.kind == ShuffleBit::Own)
        own |= int64_t(1) << k;
    laneBase = own ? Value(arith::AndIOp::create(b, loc, threadId(), i32Const(b, loc, own)))
                   : i32Const(b, loc, 0);
    for (auto [k, s] : llvm::enumerate(plan.laneBits))
      if (s.kind == ShuffleBit::Thread)
        laneBase = arith::OrIOp::create(
            b, loc, laneBase, arith::ShLIOp::create(b, loc, threadBit(s.pos), i32Const(b, loc, k)));
  }
  SmallVector<int64_t> dynamic;
  SmallVector<Value> selectors;
  for (auto [j, s] : llvm::enumerate(plan.regBits))
    if (s.kind == ShuffleBit::Thread) {
      dynamic.push_back(int64_t(j));
      selectors.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                                threadBit(s.pos), i32Const(b, loc, 0)));
    }
  auto bitOf = [](int64_t value, int64_t pos) { return (value >> pos) & 1; };
  SmallVector<Value> out;
  for (int64_t r = 0; r < to.getNumRegisters(); ++r) {
    int64_t laneConst = 0, reg = 0;
    for (auto [k, s] : llvm::enumerate(plan.laneBits))
      if (s.kind == ShuffleBit::Register)
        laneConst |= bitOf(r, s.pos) << k;
    for (auto [j, s] : llvm::enumerate(plan.regBits))
      if (s.kind == ShuffleBit::Register)
        reg |= bitOf(r, s.pos) << j;
    Value lane = laneBase;
    if (plan.crossesLanes && laneConst)
      lane = arith::OrIOp::create(b, loc, laneBase, i32Const(b, loc, laneConst));
    SmallVector<Value> candidates;
    for (int64_t a = 0; a < (int64_t(1) << dynamic.size()); ++a) {
      int64_t source = reg;
      for (auto [i, j] : llvm::enumerate(dynamic))
        source |= bitOf(a, int64_t(i)) << j;
      Value v = regs[source];
      candidates.push_back(plan.crossesLanes ? shuffleValue(b, loc, target, v, lane) : v);
    }
    for (int64_t i = int64_t(dynamic.size()) - 1; i >= 0; --i) {
      int64_t half = int64_t(1) << i;
      for (int64_t c = 0; c < half; ++c)
        candidates[c] = arith::SelectOp::create(b, loc, selectors[i], candidates[c + half],
                                                candidates[c]);
      candidates.resize(half);
    }
    out.push_back(candidates.front());
  }
  return out;
}

/// The registers of the result from `regs` (16-bit elements) by `plan`
/// (planTransposes): each pair of source registers joined in one word,
/// transposed, and the word split into a pair of result registers.
SmallVector<Value> moveByTransposes(OpBuilder &b, Location loc, const GPUTargetInfo &target,
                                   const TransposePlan &plan, ArrayRef<Value> regs) {
  Type elem = regs.front().getType(), i16 = b.getI16Type(), i32 = b.getI32Type();
  auto toWord = [&](Value v) -> Value {
    if (isa<FloatType>(elem))
      v = arith::BitcastOp::create(b, loc, i16, v);
    return arith::ExtUIOp::create(b, loc, i32, v);
  };
  auto fromWord = [&](Value w) -> Value {
    Value v = arith::TruncIOp::create(b, loc, i16, w);
    return isa<FloatType>(elem) ? Value(arith::BitcastOp::create(b, loc, elem, v)) : v;
  };
  Value c16 = i32Const(b, loc, 16);
  SmallVector<Value> out(plan.source.size());
  for (auto [r, s] : llvm::enumerate(plan.source)) {
    if (s < 0)
      continue;
    Value hi = toWord(regs[s | (int64_t(1) << plan.fromBit)]);
    Value word = arith::OrIOp::create(b, loc, toWord(regs[s]),
                                      arith::ShLIOp::create(b, loc, hi, c16));
    Value moved = target.transpose8x8(b, loc, word);
    out[r] = fromWord(moved);
    out[r | (int64_t(1) << plan.toBit)] = fromWord(arith::ShRUIOp::create(b, loc, moved, c16));
  }
  return out;
}

struct ConvertLayoutLowering : GPUPattern<ConvertLayoutOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto src = getLayout(op.getSrc().getType()), dst = getLayout(op.getType());
    Type resultType = getTypeConverter()->convertType(op.getType());
    SmallVector<Value> regs = unpack(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> out;
    const GPUTargetInfo &target = lowering.target;
    if (!op->hasAttr(kSharedOffsetAttr)) {
      // A 16-bit tile transposed in 8x8 blocks (an mma result taken as the
      // next product's B operand): one instruction a register pair.
      std::optional<TransposePlan> transposes = planTransposes(src, dst);
      if (transposes && target.canTranspose8x8() &&
          regs.front().getType().getIntOrFloatBitWidth() == 16) {
        rewriter.replaceOp(op, pack(rewriter, loc, resultType,
                                    moveByTransposes(rewriter, loc, target, *transposes, regs)));
        return success();
      }
      std::optional<ShufflePlan> plan = planShuffles(src, dst);
      if (!plan)
        return rewriter.notifyMatchFailure(op, "no shared memory allocated");
      rewriter.replaceOp(op, pack(rewriter, loc, resultType,
                                  moveByShuffles(rewriter, loc, target, *plan, dst, regs)));
      return success();
    }
    // Through shared memory: every thread writes what it holds at the
    // elements' linear indices, then reads what the new layout gives it.
    Type elem = regs.front().getType();
    int64_t bytes = sharedElementBytes(op.getType());
    auto access = [&](DistributedLayoutAttr layout, auto &&body) {
      Value base = threadIndex(rewriter, loc, target, layout);
      int64_t width = std::min(consecutiveRegisters(layout), std::max<int64_t>(1, 16 / bytes));
      for (int64_t r = 0; r < layout.getNumRegisters(); r += width) {
        Value index = arith::OrIOp::create(rewriter, loc, base,
                                           i32Const(rewriter, loc, layout.registerIndex(r)));
        Value offset = arith::MulIOp::create(rewriter, loc, index, i32Const(rewriter, loc, bytes));
        body(r, width, sharedAddress(rewriter, loc, target, op, offset));
      }
    };
    access(src, [&](int64_t r, int64_t width, Value ptr) {
      LLVM::StoreOp::create(rewriter, loc,
                            toMemory(rewriter, loc, ArrayRef<Value>(regs).slice(r, width)), ptr,
                            width * bytes);
    });
    target.barrier(rewriter, loc);
    access(dst, [&](int64_t, int64_t width, Value ptr) {
      Value raw = LLVM::LoadOp::create(rewriter, loc, memoryType(elem, width), ptr, width * bytes);
      llvm::append_range(out, fromMemory(rewriter, loc, raw, elem, width));
    });
    target.barrier(rewriter, loc);
    rewriter.replaceOp(op, pack(rewriter, loc, resultType, out));
    return success();
  }
};

struct GatherLowering : GPUPattern<GatherOp> {
  using GPUPattern::GPUPattern;

  /// An index as i32: truncated, or zero-extended (narrow indices are
  /// unsigned).
  static Value toI32(OpBuilder &b, Location loc, Value index) {
    auto width = index.getType().getIntOrFloatBitWidth();
    if (width > 32)
      return arith::TruncIOp::create(b, loc, b.getI32Type(), index);
    if (width < 32)
      return arith::ExtUIOp::create(b, loc, b.getI32Type(), index);
    return index;
  }

  LogicalResult matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op->hasAttr(kGatherReadsStageAttr))
      return lowerFromStage(op, adaptor, rewriter);
    if (!op->hasAttr(kSharedOffsetAttr))
      return rewriter.notifyMatchFailure(op, "no shared memory allocated");
    // The table goes to shared memory (every thread writes the elements it
    // holds; copies of one element write the same value), then each thread
    // reads its indices' elements. A table defined outside a loop around the
    // gather is written once, before the loop (gatherTableLoop; its buffer
    // lives through the loop, a barrier after it), and the gather only reads.
    // A table of 32-bit elements that fits a warp N | warpSize times over is
    // read from shared memory once instead, each lane taking element lane
    // mod N, and each index becomes a warp shuffle from lane index mod
    // warpSize: table[index mod N] with no address arithmetic (the targets'
    // shuffles use the lane's low bits).
    Location loc = op.getLoc();
    const GPUTargetInfo &target = lowering.target;
    auto tableType = op.getTable().getType();
    auto layout = getLayout(tableType);
    int64_t bytes = sharedElementBytes(tableType);
    int64_t n = tableType.getDimSize(0);
    bool shuffle = bytes == 4 && int64_t(target.warpSize()) % n == 0;
    Operation *loop = gatherTableLoop(op);
    SmallVector<Value> table;
    Value laneElement;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      if (loop)
        rewriter.setInsertionPoint(loop);
      table = unpack(rewriter, loc, adaptor.getTable());
      Value base = threadIndex(rewriter, loc, target, layout);
      for (auto [r, v] : llvm::enumerate(table)) {
        Value index = arith::OrIOp::create(
            rewriter, loc, base, i32Const(rewriter, loc, layout.registerIndex(int64_t(r))));
        Value offset = arith::MulIOp::create(rewriter, loc, index, i32Const(rewriter, loc, bytes));
        LLVM::StoreOp::create(rewriter, loc, toMemory(rewriter, loc, v),
                              sharedAddress(rewriter, loc, target, op, offset), bytes);
      }
      target.barrier(rewriter, loc);
      if (shuffle) {
        Value lane = arith::AndIOp::create(rewriter, loc, target.threadId(rewriter, loc),
                                           i32Const(rewriter, loc, n - 1));
        Value offset = arith::MulIOp::create(rewriter, loc, lane, i32Const(rewriter, loc, bytes));
        laneElement = LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(),
                                           sharedAddress(rewriter, loc, target, op, offset), bytes);
      }
      if (loop) { // no thread may reuse the bytes while another still reads
        rewriter.setInsertionPointAfter(loop);
        target.barrier(rewriter, loc);
      }
    }
    Type elem = table.front().getType();
    Value mask = i32Const(rewriter, loc, n - 1);
    SmallVector<Value> out;
    for (Value index : unpack(rewriter, loc, adaptor.getIndices())) {
      index = toI32(rewriter, loc, index);
      if (shuffle) {
        Value moved = target.shuffleIndex(rewriter, loc, laneElement, index);
        out.push_back(elem == moved.getType()
                          ? moved
                          : arith::BitcastOp::create(rewriter, loc, elem, moved).getResult());
        continue;
      }
      index = arith::AndIOp::create(rewriter, loc, index, mask);
      Value offset = arith::MulIOp::create(rewriter, loc, index, i32Const(rewriter, loc, bytes));
      Value raw = LLVM::LoadOp::create(rewriter, loc, memoryType(elem, 1),
                                       sharedAddress(rewriter, loc, target, op, offset), bytes);
      out.push_back(fromMemory(rewriter, loc, raw, elem, 1).front());
    }
    if (!loop)
      target.barrier(rewriter, loc);
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(op.getType()), out));
    return success();
  }

  /// The table is a stage of a ring buffer (its tile in row-major order):
  /// each index is one load from the stage, valid from the wait before the
  /// stage_read to the next wait, which the gather comes between.
  LogicalResult lowerFromStage(GatherOp op, OpAdaptor adaptor,
                               ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto read = op.getTable().getDefiningOp<StageReadOp>();
    auto tableType = op.getTable().getType();
    Type elem = tableType.getElementType();
    int64_t bytes = sharedElementBytes(tableType), n = tableType.getDimSize(0);
    Value stage = rewriter.getRemappedValue(read.getStage());
    SmallVector<Value> out;
    for (Value index : unpack(rewriter, loc, adaptor.getIndices())) {
      index = arith::AndIOp::create(rewriter, loc, toI32(rewriter, loc, index),
                                    i32Const(rewriter, loc, n - 1));
      // A trimmed stage: an element past the live ones is 0 (masked off), and
      // its lookup reads element 0 instead, inside the stage.
      Value inside = insideLiveElements(rewriter, loc, read.getBuffer(), index);
      if (inside)
        index = arith::SelectOp::create(rewriter, loc, inside, index, i32Const(rewriter, loc, 0));
      Value ptr =
          stageAddress(rewriter, loc, lowering.target, read, read.getBuffer(), stage, index, bytes);
      Value raw = LLVM::LoadOp::create(rewriter, loc, memoryType(elem, 1), ptr, bytes);
      Value v = fromMemory(rewriter, loc, raw, elem, 1).front();
      if (inside)
        v = arith::SelectOp::create(
            rewriter, loc, inside, v,
            arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(elem))));
      out.push_back(v);
    }
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(op.getType()), out));
    return success();
  }
};

struct ReduceLowering : GPUPattern<ReduceOp> {
  using GPUPattern::GPUPattern;

  LogicalResult matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ReduceKind kind = op.getKind();
    auto srcType = op.getSrc().getType();
    auto layout = getLayout(srcType);
    auto [first, count] = dimensionBits(srcType.getShape(), int32_t(op.getAxis()));
    auto inAxis = [&](int64_t bit) { return bit >= first && bit < first + count; };
    Type elem = srcType.getElementType();
    // Combine in 32 bits: narrower floats in f32, narrower ints in i32.
    Type work = elem;
    if (isa<FloatType>(elem) && elem.getIntOrFloatBitWidth() < 32)
      work = rewriter.getF32Type();
    else if (isa<IntegerType>(elem) && elem.getIntOrFloatBitWidth() < 32)
      work = rewriter.getI32Type();
    if (work.getIntOrFloatBitWidth() != 32)
      return rewriter.notifyMatchFailure(op, "64-bit reductions");
    auto widen = [&](Value v) -> Value {
      if (work == elem)
        return v;
      if (isa<FloatType>(elem))
        return arith::ExtFOp::create(rewriter, loc, work, v);
      return arith::ExtSIOp::create(rewriter, loc, work, v);
    };

    // Registers: those differing only in reduced bits fold into one.
    SmallVector<bool> keep = registersOutside(layout, first, count);
    auto out = dropDimensions(layout, srcType.getShape(), {int64_t(int32_t(op.getAxis()))});
    SmallVector<Value> acc(out.getNumRegisters());
    for (auto [r, v] : llvm::enumerate(unpack(rewriter, loc, adaptor.getSrc()))) {
      Value &slot = acc[compressBits(int64_t(r), keep)];
      slot = slot ? combineReduction(rewriter, loc, kind, slot, widen(v)) : widen(v);
    }
    // Lanes: butterfly over the lane bits that number reduced elements.
    const GPUTargetInfo &target = lowering.target;
    for (int64_t j = int64_t(layout.getLane().size()) - 1; j >= 0; --j)
      if (inAxis(layout.getLane()[j]))
        for (Value &a : acc)
          a = combineReduction(rewriter, loc, kind, a,
                               target.shuffleXor(rewriter, loc, a, int(int64_t(1) << j)));
    // Warps: through shared memory, one slot per result element and warp.
    SmallVector<int64_t> warpBits;
    for (auto [k, bit] : llvm::enumerate(layout.getWarp()))
      if (inAxis(bit))
        warpBits.push_back(int64_t(k));
    if (!warpBits.empty()) {
      if (!op->hasAttr(kSharedOffsetAttr))
        return rewriter.notifyMatchFailure(op, "no shared memory allocated");
      int64_t warps = int64_t(1) << warpBits.size();
      int64_t laneBits = layout.getLane().size();
      Value tid = target.threadId(rewriter, loc);
      Value warpSlot = i32Const(rewriter, loc, 0);
      for (auto [i, k] : llvm::enumerate(warpBits)) {
        Value bit = arith::ShRUIOp::create(rewriter, loc, tid, i32Const(rewriter, loc, laneBits + k));
        bit = arith::AndIOp::create(rewriter, loc, bit, i32Const(rewriter, loc, 1));
        bit = arith::ShLIOp::create(rewriter, loc, bit, i32Const(rewriter, loc, int64_t(i)));
        warpSlot = arith::OrIOp::create(rewriter, loc, warpSlot, bit);
      }
      // Written in `out`, read back in the result's layout (which may spread
      // the elements over the warps instead of repeating them in each).
      auto res = isa<RankedTensorType>(op.getType()) ? getLayout(op.getType()) : out;
      auto slotAddress = [&](DistributedLayoutAttr in, Value base, int64_t r, Value warp) {
        Value index = arith::OrIOp::create(rewriter, loc, base,
                                           i32Const(rewriter, loc, in.registerIndex(r)));
        index = arith::MulIOp::create(rewriter, loc, index, i32Const(rewriter, loc, warps));
        index = arith::AddIOp::create(rewriter, loc, index, warp);
        index = arith::MulIOp::create(rewriter, loc, index, i32Const(rewriter, loc, 4));
        return sharedAddress(rewriter, loc, target, op, index);
      };
      Value outBase = threadIndex(rewriter, loc, target, out);
      for (auto [r, a] : llvm::enumerate(acc))
        LLVM::StoreOp::create(rewriter, loc, a, slotAddress(out, outBase, int64_t(r), warpSlot));
      target.barrier(rewriter, loc);
      Value resBase = threadIndex(rewriter, loc, target, res);
      acc.assign(res.getNumRegisters(), Value());
      for (auto [r, a] : llvm::enumerate(acc)) {
        auto partial = [&](int64_t w) -> Value {
          return LLVM::LoadOp::create(rewriter, loc, work,
                                      slotAddress(res, resBase, int64_t(r),
                                                  i32Const(rewriter, loc, w)));
        };
        a = partial(0);
        for (int64_t w = 1; w < warps; ++w)
          a = combineReduction(rewriter, loc, kind, a, partial(w));
      }
      target.barrier(rewriter, loc);
    }
    if (work != elem)
      for (Value &a : acc)
        a = isa<FloatType>(elem) ? Value(arith::TruncFOp::create(rewriter, loc, elem, a))
                                 : Value(arith::TruncIOp::create(rewriter, loc, elem, a));
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(op.getType()), acc));
    return success();
  }
};

struct DotLowering : GPUPattern<DotOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(DotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto a = op.getA().getType(), b = op.getB().getType();
    DotLayouts layouts{getLayout(a), getLayout(b), getLayout(op.getType())};
    Value shared;
    bool bInShared = op->hasAttr(kDotReadsStageAttr);
    if (bInShared) {
      // B = trans(stage_read): the stage itself (its buffer is swizzled).
      auto read = op.getB().getDefiningOp<TransOp>().getSrc().getDefiningOp<StageReadOp>();
      Value stage = rewriter.getRemappedValue(read.getStage());
      int64_t bytes = b.getNumElements() * sharedElementBytes(b);
      shared = sharedAddress(rewriter, loc, lowering.target, read,
                             arith::MulIOp::create(rewriter, loc, stage,
                                                   i32Const(rewriter, loc, bytes)));
    } else if (op->hasAttr(kDotStagingAttr)) {
      if (!op->hasAttr(kSharedOffsetAttr))
        return rewriter.notifyMatchFailure(op, "no shared memory allocated");
      shared = sharedAddress(rewriter, loc, lowering.target, op, i32Const(rewriter, loc, 0));
    }
    SmallVector<Value> aRegs = unpack(rewriter, loc, adaptor.getA()),
                       bRegs = unpack(rewriter, loc, adaptor.getB()),
                       accRegs = unpack(rewriter, loc, adaptor.getAcc());
    int64_t rank = a.getRank(), batchRegs = 1;
    if (rank == 3) {
      // Each batch element the thread holds is one run of each operand's
      // registers (batchLayout), multiplied on its own.
      auto [la, regs] = unbatchLayout(getLayout(a), a.getShape());
      layouts = {la, unbatchLayout(getLayout(b), b.getShape()).first,
                 unbatchLayout(getLayout(op.getType()), op.getType().getShape()).first};
      batchRegs = regs;
    }
    SmallVector<Value> acc;
    for (int64_t i = 0; i < batchRegs; ++i) {
      auto slice = [&](ArrayRef<Value> regs) {
        return regs.slice(i * (regs.size() / batchRegs), regs.size() / batchRegs);
      };
      llvm::append_range(acc, lowering.target.lowerDot(
                                  rewriter, loc, a.getElementType(), a.getDimSize(rank - 2),
                                  b.getDimSize(rank - 1), a.getDimSize(rank - 1), layouts,
                                  slice(aRegs), slice(bRegs), slice(accRegs), shared, bInShared));
    }
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(op.getType()), acc));
    return success();
  }
};

} // namespace

void mlir::tileir::populateLayoutPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const GPULowering &lowering) {
  patterns.add<BroadcastLowering, SameRegistersLowering<ExpandDimsOp>,
               SameRegistersLowering<ReshapeOp>, ConvertLayoutLowering, ReduceLowering, DotLowering,
               TransLowering, GatherLowering>(
      converter, patterns.getContext(), lowering);
}
