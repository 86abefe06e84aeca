//===- TileToGPU.cpp - distribute tiles over the threads of a workgroup ---===//
#include "GPULowering.h"

#include "tile/Analysis/SharedMemory.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tileir {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tileir

using namespace mlir;
using namespace mlir::tileir;

namespace {

class GPUTypeConverter : public TypeConverter {
public:
  GPUTypeConverter() {
    addConversion([](Type t) { return t; });
    addConversion([](PointerType t) -> Type { return IntegerType::get(t.getContext(), 64); });
    addConversion([this](RankedTensorType t) -> std::optional<Type> {
      auto layout = getLayout(t);
      if (!layout)
        return std::nullopt;
      return VectorType::get({layout.getNumRegisters()}, convertType(t.getElementType()));
    });
  }
};

int64_t byteWidth(Type t) { return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8); }

/// The global-memory pointer of an address (i64).
Value globalPointer(OpBuilder &b, Location loc, const GPUTargetInfo &target, Value address) {
  Type ptrType = LLVM::LLVMPointerType::get(b.getContext(), target.globalAddressSpace());
  return LLVM::IntToPtrOp::create(b, loc, ptrType, address);
}

/// Loads `count` elements of `elem` from global address `address`.
SmallVector<Value> loadRun(OpBuilder &b, Location loc, const GPUTargetInfo &target, Type elem,
                           int64_t count, Value address) {
  int64_t bytes = count * byteWidth(elem);
  Value ptr = globalPointer(b, loc, target, address);
  int64_t wordBytes = std::min<int64_t>(bytes, 4);
  Type word = b.getIntegerType(wordBytes * 8);
  Type loadType = bytes == wordBytes ? word : VectorType::get({bytes / wordBytes}, word);
  Value raw = LLVM::LoadOp::create(b, loc, loadType, ptr, /*alignment=*/bytes);
  return fromMemory(b, loc, raw, elem, count);
}

void storeRun(OpBuilder &b, Location loc, const GPUTargetInfo &target, ArrayRef<Value> values,
              Value address) {
  int64_t bytes = int64_t(values.size()) * byteWidth(values.front().getType());
  Value packed = toMemory(b, loc, values);
  int64_t wordBytes = std::min<int64_t>(bytes, 4);
  Type word = b.getIntegerType(wordBytes * 8);
  Type storeType = bytes == wordBytes ? word : VectorType::get({bytes / wordBytes}, word);
  if (packed.getType() != storeType)
    packed = LLVM::BitcastOp::create(b, loc, storeType, packed);
  LLVM::StoreOp::create(b, loc, packed, globalPointer(b, loc, target, address),
                        /*alignment=*/bytes);
}

/// Elements per vectorised access: bounded by the layout's runs of
/// consecutive registers within the last dimension, 16 bytes, and what
/// AxisInfo proves about the pointers, the mask and `other`.
int64_t accessWidth(const GPULowering &lowering, Value ptr, Value mask, Value other, Type elem,
                    RankedTensorType type) {
  int64_t eb = byteWidth(elem);
  AxisInfo p = lowering.axis.get(ptr);
  int64_t width = std::min({consecutiveRegisters(getLayout(type)), type.getShape().back(),
                            p.contiguity, std::max<int64_t>(1, p.divisibility / eb),
                            std::max<int64_t>(1, 16 / eb)});
  if (mask)
    width = std::min(width, lowering.axis.get(mask).constancy);
  if (other)
    width = std::min(width, lowering.axis.get(other).constancy);
  return int64_t(1) << llvm::Log2_64(std::max<int64_t>(1, width));
}

/// Runs `body` when `mask` holds (no branch without a mask); yields `type`.
Value guarded(OpBuilder &b, Location loc, Value mask, TypeRange types,
              function_ref<SmallVector<Value>(OpBuilder &)> body,
              function_ref<SmallVector<Value>(OpBuilder &)> otherwise) {
  if (!mask) {
    SmallVector<Value> r = body(b);
    return r.empty() ? Value() : r.front();
  }
  auto ifOp = scf::IfOp::create(b, loc, types, mask, /*withElseRegion=*/!types.empty());
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> r = body(b);
    if (!types.empty())
      scf::YieldOp::create(b, loc, r);
    if (!types.empty()) {
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, loc, otherwise(b));
    }
  }
  return types.empty() ? Value() : ifOp.getResult(0);
}

struct ProgramIdLowering : GPUPattern<ProgramIdOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(ProgramIdOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, lowering.target.programId(rewriter, op.getLoc(), op.getAxis()));
    return success();
  }
};

struct NumProgramsLowering : GPUPattern<NumProgramsOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(NumProgramsOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, lowering.target.numPrograms(rewriter, op.getLoc(), op.getAxis()));
    return success();
  }
};

struct RangeLowering : GPUPattern<RangeOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(RangeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto layout = getLayout(op.getType());
    Value base = threadIndex(rewriter, loc, lowering.target, layout);
    base = arith::AddIOp::create(rewriter, loc, base,
                                 i32Const(rewriter, loc, int32_t(op.getStart())));
    SmallVector<Value> elems;
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r)
      elems.push_back(
          arith::AddIOp::create(rewriter, loc, base, i32Const(rewriter, loc, layout.registerIndex(r))));
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(op.getType()),
                                elems));
    return success();
  }
};

struct SplatLowering : GPUPattern<SplatOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type, adaptor.getSrc());
    return success();
  }
};

struct AddPtrLowering : GPUPattern<AddPtrOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = cast<PointerType>(getElementTypeOrSelf(op.getType())).getPointee();
    Type i64 = getTypeConverter()->convertType(op.getType());
    Value offset = adaptor.getOffset();
    if (getElementTypeOrSelf(offset.getType()).getIntOrFloatBitWidth() < 64)
      offset = arith::ExtSIOp::create(rewriter, loc, i64, offset);
    int64_t bytes = byteWidth(pointee);
    if (bytes != 1) {
      TypedAttr size = rewriter.getI64IntegerAttr(bytes);
      if (auto vt = dyn_cast<VectorType>(i64))
        size = DenseElementsAttr::get(vt, size);
      offset = arith::MulIOp::create(rewriter, loc, offset,
                                     arith::ConstantOp::create(rewriter, loc, size));
    }
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, adaptor.getPtr(), offset);
    return success();
  }
};

/// ptr_cast: addresses are i64 whatever they point to.
struct PtrCastLowering : GPUPattern<PtrCastOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(PtrCastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// Runs `body` in the program's first thread only (where `also` holds, if
/// given).
void inFirstThread(OpBuilder &b, Location loc, const GPUTargetInfo &target, Value also,
                   function_ref<void(OpBuilder &)> body) {
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, target.threadId(b, loc),
                                      i32Const(b, loc, 0));
  if (also)
    first = arith::AndIOp::create(b, loc, first, also);
  guarded(
      b, loc, first, TypeRange(),
      [&](OpBuilder &then) {
        body(then);
        return SmallVector<Value>();
      },
      [](OpBuilder &) { return SmallVector<Value>(); });
}

/// A ring buffer is an address (its users carry its offset): nothing remains
/// but a bulk buffer's barriers, which one thread initialises here, before
/// the first copy, and every thread sees initialised past the barrier.
struct StageBufferLowering : GPUPattern<StageBufferOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(StageBufferOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const GPUTargetInfo &target = lowering.target;
    if (op->hasAttr(kStageBulkAttr)) {
      Value first =
          sharedAddress(rewriter, loc, target, op, i32Const(rewriter, loc, stageDataBytes(op)));
      inFirstThread(rewriter, loc, target, Value(),
                    [&](OpBuilder &b) { target.initBarriers(b, loc, first, op.getStages()); });
      target.barrier(rewriter, loc);
    }
    rewriter.replaceOp(op, i32Const(rewriter, loc, 0));
    return success();
  }
};

/// The copy of a bulk buffer's stage (kStageBulkAttr): the first thread copies
/// the whole run, from its first element's pointer, if that element's mask
/// (the iteration being in the loop) holds.
void bulkCopyStage(AsyncCopyOp op, ArrayRef<Value> ptrs, ArrayRef<Value> masks, Value stage,
                   ConversionPatternRewriter &rewriter, const GPUTargetInfo &target) {
  Location loc = op.getLoc();
  auto stages = op.getBuffer().getDefiningOp<StageBufferOp>();
  int64_t bytes = stageDataBytes(stages) / stages.getStages();
  Type elem = cast<PointerType>(getElementTypeOrSelf(op.getPtr().getType())).getPointee();
  Value dst = stageAddress(rewriter, loc, target, op, op.getBuffer(), stage,
                           i32Const(rewriter, loc, 0), byteWidth(elem));
  Value barrier = stageBarrier(rewriter, loc, target, op, op.getBuffer(), stage);
  Value src = globalPointer(rewriter, loc, target, ptrs.front());
  inFirstThread(rewriter, loc, target, masks.empty() ? Value() : masks.front(),
                [&](OpBuilder &b) { target.bulkCopy(b, loc, dst, src, bytes, barrier); });
}

/// Each thread copies the elements its pointers' layout gives it to their
/// row-major places in the stage: asynchronously where the target can (runs
/// of 4, 8 or 16 bytes), else through registers.
struct AsyncCopyLowering : GPUPattern<AsyncCopyOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const GPUTargetInfo &target = lowering.target;
    auto ptrType = cast<RankedTensorType>(op.getPtr().getType());
    auto layout = getLayout(ptrType);
    Type elem = cast<PointerType>(ptrType.getElementType()).getPointee();
    int64_t eb = byteWidth(elem);
    auto tileType = RankedTensorType::get(ptrType.getShape(), elem, ptrType.getEncoding());
    int64_t width = accessWidth(lowering, op.getPtr(), op.getMask(), Value(), elem, tileType);
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    if (op.getBuffer().getDefiningOp()->hasAttr(kStageBulkAttr)) {
      // Thread 0's first element is the tile's first (layouts map 0 to 0).
      bulkCopyStage(op, ptrs, masks, adaptor.getStage(), rewriter, target);
      rewriter.eraseOp(op);
      return success();
    }
    Value always = arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
    Value base = threadIndex(rewriter, loc, target, layout);
    for (int64_t r = 0; r < layout.getNumRegisters(); r += width) {
      Value index = arith::OrIOp::create(rewriter, loc, base,
                                         i32Const(rewriter, loc, layout.registerIndex(r)));
      // A run past a trimmed stage's live elements is not copied at all.
      OpBuilder::InsertionGuard guard(rewriter);
      if (Value inside = insideLiveElements(rewriter, loc, op.getBuffer(), index)) {
        auto branch = scf::IfOp::create(rewriter, loc, inside, /*withElseRegion=*/false);
        rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
      }
      Value dst =
          stageAddress(rewriter, loc, target, op, op.getBuffer(), adaptor.getStage(), index, eb);
      Value src = globalPointer(rewriter, loc, target, ptrs[r]);
      Value pred = masks.empty() ? always : masks[r];
      if (target.asyncCopy(rewriter, loc, dst, src, width * eb, pred))
        continue;
      Type runType = width == 1 ? elem : VectorType::get({width}, elem);
      Value run = guarded(
          rewriter, loc, masks.empty() ? Value() : masks[r], runType,
          [&](OpBuilder &b) -> SmallVector<Value> {
            return {pack(b, loc, runType, loadRun(b, loc, target, elem, width, ptrs[r]))};
          },
          [&](OpBuilder &b) -> SmallVector<Value> {
            return {arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(runType)))};
          });
      LLVM::StoreOp::create(rewriter, loc, toMemory(rewriter, loc, unpack(rewriter, loc, run)),
                            dst, width * eb);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitLowering : GPUPattern<AsyncCommitOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(AsyncCommitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    lowering.target.asyncCommit(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Waits for this thread's copies and synchronises: every thread's copy has
/// landed, and every thread is done with the stages the next copies overwrite.
struct AsyncWaitLowering : GPUPattern<AsyncWaitOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    lowering.target.asyncWait(rewriter, op.getLoc(), op.getPending());
    // A wait covers the copies into every buffer: where a dot reads a stage
    // (a swizzled buffer), they are fenced for the matrix unit.
    Operation *buffer = op.getBuffer().getDefiningOp();
    bool swizzled = false;
    buffer->getBlock()->walk([&](StageBufferOp stages) { swizzled |= stages.getSwizzled(); });
    if (swizzled)
      lowering.target.matrixReadFence(rewriter, op.getLoc());
    lowering.target.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Waits for the bulk copy into a stage: its barrier's phase of that parity.
struct StageWaitLowering : GPUPattern<StageWaitOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(StageWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const GPUTargetInfo &target = lowering.target;
    Value barrier =
        stageBarrier(rewriter, op.getLoc(), target, op, op.getBuffer(), adaptor.getStage());
    target.waitBarrier(rewriter, op.getLoc(), barrier, adaptor.getPhase());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Reads a stage in the result's layout, up to 16 bytes a access.
struct StageReadLowering : GPUPattern<StageReadOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(StageReadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const GPUTargetInfo &target = lowering.target;
    auto type = cast<RankedTensorType>(op.getType());
    auto layout = getLayout(type);
    Type elem = type.getElementType();
    int64_t eb = byteWidth(elem);
    Value base = threadIndex(rewriter, loc, target, layout);
    int64_t width = std::min(consecutiveRegisters(layout), std::max<int64_t>(1, 16 / eb));
    SmallVector<Value> out;
    Type runType = memoryType(elem, width);
    for (int64_t r = 0; r < layout.getNumRegisters(); r += width) {
      Value index = arith::OrIOp::create(rewriter, loc, base,
                                         i32Const(rewriter, loc, layout.registerIndex(r)));
      auto read = [&](OpBuilder &b) -> SmallVector<Value> {
        Value ptr = stageAddress(b, loc, target, op, op.getBuffer(), adaptor.getStage(), index, eb);
        return {LLVM::LoadOp::create(b, loc, runType, ptr, width * eb)};
      };
      // Past a trimmed stage's live elements: zeros, as they were copied.
      Value inside = insideLiveElements(rewriter, loc, op.getBuffer(), index);
      Value raw = !inside ? read(rewriter).front()
                          : guarded(rewriter, loc, inside, runType, read,
                                    [&](OpBuilder &b) -> SmallVector<Value> {
                                      return {arith::ConstantOp::create(
                                          b, loc, cast<TypedAttr>(b.getZeroAttr(runType)))};
                                    });
      llvm::append_range(out, fromMemory(rewriter, loc, raw, elem, width));
    }
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(type), out));
    return success();
  }
};

struct LoadLowering : GPUPattern<LoadOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(op.getType());
    Type resultType = getTypeConverter()->convertType(op.getType());
    auto zero = [&](OpBuilder &b) {
      return arith::ConstantOp::create(b, loc, b.getZeroAttr(elem)).getResult();
    };
    if (!isa<RankedTensorType>(op.getType())) {
      Value v = guarded(
          rewriter, loc, adaptor.getMask(), elem,
          [&](OpBuilder &b) { return loadRun(b, loc, lowering.target, elem, 1, adaptor.getPtr()); },
          [&](OpBuilder &b) {
            return SmallVector<Value>{adaptor.getOther() ? adaptor.getOther() : zero(b)};
          });
      rewriter.replaceOp(op, v);
      return success();
    }
    auto tileType = cast<RankedTensorType>(op.getType());
    int64_t registers = getLayout(tileType).getNumRegisters();
    int64_t width = accessWidth(lowering, op.getPtr(), op.getMask(), op.getOther(), elem, tileType);
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks, others;
    if (adaptor.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    if (adaptor.getOther())
      others = unpack(rewriter, loc, adaptor.getOther());
    SmallVector<Value> elems;
    Type runType = width == 1 ? elem : VectorType::get({width}, elem);
    for (int64_t r = 0; r < registers; r += width) {
      Value run = guarded(
          rewriter, loc, masks.empty() ? Value() : masks[r], runType,
          [&](OpBuilder &b) {
            return SmallVector<Value>{
                pack(b, loc, runType, loadRun(b, loc, lowering.target, elem, width, ptrs[r]))};
          },
          [&](OpBuilder &b) {
            SmallVector<Value> o;
            for (int64_t i = 0; i < width; ++i)
              o.push_back(others.empty() ? zero(b) : others[r + i]);
            return SmallVector<Value>{pack(b, loc, runType, o)};
          });
      llvm::append_range(elems, unpack(rewriter, loc, run));
    }
    rewriter.replaceOp(op, pack(rewriter, loc, resultType, elems));
    return success();
  }
};

struct StoreLowering : GPUPattern<StoreOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(op.getValue().getType());
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> values = unpack(rewriter, loc, adaptor.getValue());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    int64_t width = 1;
    if (isa<RankedTensorType>(op.getValue().getType()))
      width = accessWidth(lowering, op.getPtr(), op.getMask(), Value(), elem,
                          cast<RankedTensorType>(op.getValue().getType()));
    for (size_t r = 0; r < ptrs.size(); r += width) {
      guarded(
          rewriter, loc, masks.empty() ? Value() : masks[r], TypeRange(),
          [&](OpBuilder &b) {
            storeRun(b, loc, lowering.target, ArrayRef<Value>(values).slice(r, width), ptrs[r]);
            return SmallVector<Value>();
          },
          [](OpBuilder &) { return SmallVector<Value>(); });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// One add per program: after a barrier (every thread's earlier stores come
/// first), thread 0 adds, acquire-release at device scope, and leaves the
/// old value in shared memory; after a second barrier every thread reads it
/// (and its later loads come after the add).
struct AtomicAddLowering : GPUPattern<AtomicAddOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(AtomicAddOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const GPUTargetInfo &target = lowering.target;
    Value slot = sharedAddress(rewriter, loc, target, op, i32Const(rewriter, loc, 0));
    target.barrier(rewriter, loc);
    inFirstThread(rewriter, loc, target, Value(), [&](OpBuilder &b) {
      Value ptr = globalPointer(b, loc, target, adaptor.getPtr());
      // Fences around a relaxed add: LLVM 22's NVPTX backend emits a
      // relaxed atom for an acq_rel atomicrmw (docs/toolchain-notes.md).
      LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, target.deviceScope());
      Value old = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, ptr, adaptor.getValue(),
                                            LLVM::AtomicOrdering::monotonic, target.deviceScope());
      LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::acquire, target.deviceScope());
      LLVM::StoreOp::create(b, loc, old, slot);
    });
    target.barrier(rewriter, loc);
    rewriter.replaceOp(op, LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(), slot));
    return success();
  }
};

/// tile.gdc_wait and tile.gdc_launch_dependents: whatever the target has.
template <typename Op, bool Wait> struct GridDependencyLowering : GPUPattern<Op> {
  using GPUPattern<Op>::GPUPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    this->lowering.target.gridDependency(rewriter, op.getLoc(), Wait);
    rewriter.eraseOp(op);
    return success();
  }
};

/// arith and math ops on tiles: the same op on per-thread vectors.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (!isa_and_present<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        op->getNumRegions() != 0)
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
      if (!splat)
        return rewriter.notifyMatchFailure(op, "non-splat tile constant");
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          op, splat.resizeSplat(cast<ShapedType>(types.front())));
      return success();
    }
    OperationState state(op->getLoc(), op->getName(), operands, types, op->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

struct ConvertTileToGPU : mlir::tileir::impl::ConvertTileToGPUBase<ConvertTileToGPU> {
  using ConvertTileToGPUBase::ConvertTileToGPUBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertTileToGPUBase::getDependentDialects(registry);
    registerGPUTargetDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    auto target = createGPUTargetInfo(this->target, error);
    if (!target) {
      module.emitError(error);
      return signalPassFailure();
    }
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (!func->hasAttr("tile.kernel"))
        continue;
      if (failed(convertKernel(func, *target)))
        return signalPassFailure();
    }
  }

  LogicalResult convertKernel(func::FuncOp func, const GPUTargetInfo &target) {
    MLIRContext *mctx = &getContext();
    if (!func->hasAttr("tile.threads"))
      return func.emitError("internal error: the kernel has no layouts (run tile-assign-layouts "
                            "and tile-allocate-shared first)");
    bool unsupported = false;
    func.walk([&](ReduceOp reduce) {
      if (getElementTypeOrSelf(reduce.getType()).getIntOrFloatBitWidth() > 32) {
        reduce->emitError() << "the GPU targets reduce 32-bit or narrower elements in this "
                               "version, got "
                            << reduce.getType();
        unsupported = true;
      }
    });
    if (unsupported)
      return failure();
    AxisInfoAnalysis axis(func);
    GPULowering lowering{target, axis};

    auto bytes = func->getAttrOfType<IntegerAttr>(kSharedBytesAttr);
    if (bytes && bytes.getInt() > 0) {
      auto alignment = func->getAttrOfType<IntegerAttr>(kSharedAlignmentAttr);
      declareSharedArray(func->getParentOfType<ModuleOp>(), bytes.getInt(),
                         alignment ? alignment.getInt() : 16, target.sharedAddressSpace(),
                         target.staticSharedMemoryPerBlock());
    }

    GPUTypeConverter converter;
    ConversionTarget conv(*mctx);
    conv.addIllegalDialect<TileDialect>();
    conv.addLegalDialect<LLVM::LLVMDialect, vector::VectorDialect, scf::SCFDialect>();
    conv.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
        [&](Operation *op) { return converter.isLegal(op); });
    conv.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType());
    });
    conv.addLegalOp<ModuleOp, func::ReturnOp>();
    for (const char *name : {"nvvm", "rocdl"})
      if (Dialect *d = mctx->getLoadedDialect(name))
        conv.addLegalDialect(d->getNamespace());

    RewritePatternSet patterns(mctx);
    patterns.add<ProgramIdLowering, NumProgramsLowering, RangeLowering, SplatLowering,
                 AddPtrLowering, PtrCastLowering, LoadLowering, StoreLowering, StageBufferLowering,
                 AsyncCopyLowering, AsyncCommitLowering, AsyncWaitLowering, AtomicAddLowering,
                 GridDependencyLowering<GridDependencyWaitOp, true>,
                 GridDependencyLowering<GridDependencyLaunchOp, false>, StageReadLowering,
                 StageWaitLowering>(converter, mctx, lowering);
    populateLayoutPatterns(converter, patterns, lowering);
    patterns.add<ElementwiseLowering>(converter, mctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, conv);
    if (failed(applyPartialConversion(func, conv, std::move(patterns))))
      return failure();
    if (!bytes)
      func->setAttr(kSharedBytesAttr, IntegerAttr::get(IntegerType::get(mctx, 64), 0));
    return success();
  }
};

} // namespace
