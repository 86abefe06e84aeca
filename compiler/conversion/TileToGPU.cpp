//===- TileToGPU.cpp - distribute tiles over the threads of a workgroup ---===//
#include "Reduction.h"
#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/TileDialect.h"
#include "tile/Target/GPUTarget.h"
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

constexpr StringLiteral kReduceScratch = "__tile_reduce_scratch";

/// How a 1-D tile of `size` elements is spread over `threads` threads.
struct Layout {
  int64_t size, threads, perThread, run;
  Layout(int64_t size, int64_t threads, int64_t vectorWidth)
      : size(size), threads(threads), perThread(std::max<int64_t>(1, size / threads)),
        run(std::min(vectorWidth, perThread)) {}
  /// Constant part of the element index of register `r` (add tid * run).
  int64_t offset(int64_t r) const { return (r / run) * threads * run + r % run; }
  bool replicated() const { return size < threads; }
};

/// Everything the patterns share.
struct Context {
  const GPUTargetInfo &target;
  const AxisInfoAnalysis &axis;
  int64_t threads;
  int64_t vectorWidth;
  Layout layout(Type tileType) const {
    return Layout(cast<ShapedType>(tileType).getNumElements(), threads, vectorWidth);
  }
};

class GPUTypeConverter : public TypeConverter {
public:
  explicit GPUTypeConverter(const Context &ctx) {
    addConversion([](Type t) { return t; });
    addConversion([](PointerType t) -> Type { return IntegerType::get(t.getContext(), 64); });
    addConversion([this, &ctx](RankedTensorType t) -> std::optional<Type> {
      if (t.getRank() != 1)
        return std::nullopt;
      Type elem = convertType(t.getElementType());
      return VectorType::get({ctx.layout(t).perThread}, elem);
    });
  }
};

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

int64_t byteWidth(Type t) { return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8); }

SmallVector<Value> unpack(OpBuilder &b, Location loc, Value v) {
  auto type = dyn_cast<VectorType>(v.getType());
  if (!type)
    return {v};
  SmallVector<Value> out;
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    out.push_back(vector::ExtractOp::create(b, loc, v, i));
  return out;
}

Value pack(OpBuilder &b, Location loc, Type type, ArrayRef<Value> elems) {
  if (!isa<VectorType>(type))
    return elems.front();
  return vector::FromElementsOp::create(b, loc, cast<VectorType>(type), elems);
}

/// Loads `count` elements of `elem` from global address `address`.
SmallVector<Value> loadRun(OpBuilder &b, Location loc, const GPUTargetInfo &target, Type elem,
                           int64_t count, Value address) {
  int64_t bytes = count * byteWidth(elem);
  Type ptrType = LLVM::LLVMPointerType::get(b.getContext(), target.globalAddressSpace());
  Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, address);
  int64_t wordBytes = std::min<int64_t>(bytes, 4);
  Type word = b.getIntegerType(wordBytes * 8);
  Type loadType = bytes == wordBytes ? word : VectorType::get({bytes / wordBytes}, word);
  Value raw = LLVM::LoadOp::create(b, loc, loadType, ptr, /*alignment=*/bytes);
  // bool and fp8 live in memory as i8 (LLVM has no fp8 type).
  Type storage = elem.getIntOrFloatBitWidth() <= 8 ? b.getI8Type() : elem;
  Type asElems = count == 1 ? storage : VectorType::get({count}, storage);
  Value cast = raw.getType() == asElems ? raw : LLVM::BitcastOp::create(b, loc, asElems, raw);
  SmallVector<Value> out = unpack(b, loc, cast);
  if (storage != elem)
    for (Value &v : out)
      v = isa<FloatType>(elem) ? Value(arith::BitcastOp::create(b, loc, elem, v))
                               : Value(arith::TruncIOp::create(b, loc, elem, v));
  return out;
}

void storeRun(OpBuilder &b, Location loc, const GPUTargetInfo &target, ArrayRef<Value> values,
              Value address) {
  Type elem = values.front().getType();
  int64_t count = values.size();
  int64_t bytes = count * byteWidth(elem);
  SmallVector<Value> stored(values);
  Type storage = elem;
  if (elem.getIntOrFloatBitWidth() <= 8 && !elem.isInteger(8)) {
    storage = b.getI8Type();
    for (Value &v : stored)
      v = isa<FloatType>(elem) ? Value(arith::BitcastOp::create(b, loc, storage, v))
                               : Value(arith::ExtUIOp::create(b, loc, storage, v));
  }
  Value packed = count == 1 ? stored.front()
                            : pack(b, loc, VectorType::get({count}, storage), stored);
  int64_t wordBytes = std::min<int64_t>(bytes, 4);
  Type word = b.getIntegerType(wordBytes * 8);
  Type storeType = bytes == wordBytes ? word : VectorType::get({bytes / wordBytes}, word);
  if (packed.getType() != storeType)
    packed = LLVM::BitcastOp::create(b, loc, storeType, packed);
  Type ptrType = LLVM::LLVMPointerType::get(b.getContext(), target.globalAddressSpace());
  Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, address);
  LLVM::StoreOp::create(b, loc, packed, ptr, /*alignment=*/bytes);
}

/// Elements per vectorised access: bounded by the layout's runs, 16 bytes,
/// and what AxisInfo proves about the pointers, the mask and `other`.
int64_t accessWidth(const Context &ctx, Value ptr, Value mask, Value other, Type elem,
                    const Layout &layout) {
  int64_t eb = byteWidth(elem);
  AxisInfo p = ctx.axis.get(ptr);
  int64_t width = std::min({layout.run, p.contiguity, std::max<int64_t>(1, p.divisibility / eb),
                            std::max<int64_t>(1, 16 / eb)});
  if (mask)
    width = std::min(width, ctx.axis.get(mask).constancy);
  if (other)
    width = std::min(width, ctx.axis.get(other).constancy);
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

template <typename Op> struct GPUPattern : OpConversionPattern<Op> {
  GPUPattern(const TypeConverter &tc, MLIRContext *mctx, const Context &ctx)
      : OpConversionPattern<Op>(tc, mctx), ctx(ctx) {}
  const Context &ctx;
};

struct ProgramIdLowering : GPUPattern<ProgramIdOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(ProgramIdOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, ctx.target.programId(rewriter, op.getLoc(), op.getAxis()));
    return success();
  }
};

struct NumProgramsLowering : GPUPattern<NumProgramsOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(NumProgramsOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, ctx.target.numPrograms(rewriter, op.getLoc(), op.getAxis()));
    return success();
  }
};

struct RangeLowering : GPUPattern<RangeOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(RangeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Layout l = ctx.layout(op.getType());
    Value tid = ctx.target.threadId(rewriter, loc);
    Value base = arith::MulIOp::create(rewriter, loc, tid, i32Const(rewriter, loc, l.run));
    SmallVector<Value> elems;
    for (int64_t r = 0; r < l.perThread; ++r) {
      Value e = arith::AddIOp::create(rewriter, loc, base, i32Const(rewriter, loc, l.offset(r)));
      e = arith::AndIOp::create(rewriter, loc, e, i32Const(rewriter, loc, l.size - 1));
      elems.push_back(
          arith::AddIOp::create(rewriter, loc, e, i32Const(rewriter, loc, int32_t(op.getStart()))));
    }
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

struct BroadcastLowering : GPUPattern<BroadcastOp> {
  using GPUPattern::GPUPattern;
  LogicalResult matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // 1-D only: [1] -> [S]; every register holds element 0.
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    Value first = vector::ExtractOp::create(rewriter, op.getLoc(), adaptor.getSrc(), 0);
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type, first);
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
          [&](OpBuilder &b) { return loadRun(b, loc, ctx.target, elem, 1, adaptor.getPtr()); },
          [&](OpBuilder &b) {
            return SmallVector<Value>{adaptor.getOther() ? adaptor.getOther() : zero(b)};
          });
      rewriter.replaceOp(op, v);
      return success();
    }
    Layout l = ctx.layout(op.getType());
    int64_t width = accessWidth(ctx, op.getPtr(), op.getMask(), op.getOther(), elem, l);
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks, others;
    if (adaptor.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    if (adaptor.getOther())
      others = unpack(rewriter, loc, adaptor.getOther());
    SmallVector<Value> elems;
    Type runType = width == 1 ? elem : VectorType::get({width}, elem);
    for (int64_t r = 0; r < l.perThread; r += width) {
      Value run = guarded(
          rewriter, loc, masks.empty() ? Value() : masks[r], runType,
          [&](OpBuilder &b) {
            return SmallVector<Value>{
                pack(b, loc, runType, loadRun(b, loc, ctx.target, elem, width, ptrs[r]))};
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
      width = accessWidth(ctx, op.getPtr(), op.getMask(), Value(), elem,
                          ctx.layout(op.getValue().getType()));
    for (size_t r = 0; r < ptrs.size(); r += width) {
      guarded(
          rewriter, loc, masks.empty() ? Value() : masks[r], TypeRange(),
          [&](OpBuilder &b) {
            storeRun(b, loc, ctx.target, ArrayRef<Value>(values).slice(r, width), ptrs[r]);
            return SmallVector<Value>();
          },
          [](OpBuilder &) { return SmallVector<Value>(); });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReduceLowering : GPUPattern<ReduceOp> {
  using GPUPattern::GPUPattern;

  LogicalResult matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ReduceKind kind = op.getKind();
    Type elem = op.getType();
    Layout l = ctx.layout(op.getSrc().getType());
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
    SmallVector<Value> regs = unpack(rewriter, loc, adaptor.getSrc());
    Value acc = widen(regs.front());
    for (size_t i = 1; i < regs.size(); ++i)
      acc = combineReduction(rewriter, loc, kind, acc, widen(regs[i]));
    Value tid = ctx.target.threadId(rewriter, loc);
    if (l.replicated()) {
      Value owns = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, tid,
                                         i32Const(rewriter, loc, l.size));
      acc = arith::SelectOp::create(rewriter, loc, owns, acc, arith::ConstantOp::create(rewriter, loc, reductionIdentity(rewriter, kind, work)));
    }
    int64_t warp = ctx.target.warpSize();
    for (int64_t m = warp / 2; m >= 1; m /= 2)
      acc = combineReduction(rewriter, loc, kind, acc, ctx.target.shuffleXor(rewriter, loc, acc, m));
    int64_t warps = ctx.threads / warp;
    if (warps > 1) {
      auto module = op->getParentOfType<ModuleOp>();
      auto global = module.lookupSymbol<LLVM::GlobalOp>(kReduceScratch);
      Type sharedPtr =
          LLVM::LLVMPointerType::get(rewriter.getContext(), ctx.target.sharedAddressSpace());
      Value base = LLVM::AddressOfOp::create(rewriter, loc, sharedPtr, global.getSymName());
      Value warpId = arith::DivUIOp::create(rewriter, loc, tid, i32Const(rewriter, loc, warp));
      Value lane = arith::RemUIOp::create(rewriter, loc, tid, i32Const(rewriter, loc, warp));
      Value isLeader = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane,
                                             i32Const(rewriter, loc, 0));
      auto slot = [&](OpBuilder &b, Value index) {
        return LLVM::GEPOp::create(b, loc, sharedPtr, work, base, ValueRange{index});
      };
      guarded(
          rewriter, loc, isLeader, TypeRange(),
          [&](OpBuilder &b) {
            LLVM::StoreOp::create(b, loc, acc, slot(b, warpId));
            return SmallVector<Value>();
          },
          [](OpBuilder &) { return SmallVector<Value>(); });
      ctx.target.barrier(rewriter, loc);
      acc = LLVM::LoadOp::create(rewriter, loc, work, slot(rewriter, i32Const(rewriter, loc, 0)));
      for (int64_t w = 1; w < warps; ++w)
        acc = combineReduction(rewriter, loc, kind, acc,
                      LLVM::LoadOp::create(rewriter, loc, work,
                                           slot(rewriter, i32Const(rewriter, loc, w))));
      ctx.target.barrier(rewriter, loc);
    }
    if (work != elem)
      acc = isa<FloatType>(elem) ? Value(arith::TruncFOp::create(rewriter, loc, elem, acc))
                                 : Value(arith::TruncIOp::create(rewriter, loc, elem, acc));
    rewriter.replaceOp(op, acc);
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

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *mctx = &getContext();
    std::string error;
    auto target = createGPUTargetInfo(this->target, error);
    if (!target) {
      module.emitError(error);
      return signalPassFailure();
    }
    int64_t threads = int64_t(numWarps) * target->warpSize();
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (!func->hasAttr("tile.kernel"))
        continue;
      if (failed(convertKernel(func, *target, threads)))
        return signalPassFailure();
    }
  }

  LogicalResult convertKernel(func::FuncOp func, const GPUTargetInfo &target, int64_t threads) {
    MLIRContext *mctx = &getContext();
    // One layout per kernel: runs of 16 bytes of the narrowest element loaded.
    int64_t narrowest = 16;
    bool unsupported = false, reduces = false;
    func.walk([&](Operation *op) {
      for (Type t : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes())) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        if (tensor && tensor.getRank() != 1 && !unsupported) {
          op->emitError() << "the GPU targets support 1-D tiles in this version, got " << t;
          unsupported = true;
        }
      }
      if (auto load = dyn_cast<LoadOp>(op))
        narrowest = std::min(narrowest, byteWidth(getElementTypeOrSelf(load.getType())));
      if (auto store = dyn_cast<StoreOp>(op))
        narrowest =
            std::min(narrowest, byteWidth(getElementTypeOrSelf(store.getValue().getType())));
      if (auto reduce = dyn_cast<ReduceOp>(op)) {
        reduces = true;
        if (getElementTypeOrSelf(reduce.getType()).getIntOrFloatBitWidth() > 32) {
          op->emitError() << "the GPU targets reduce 32-bit or narrower elements in this "
                             "version, got "
                          << reduce.getType();
          unsupported = true;
        }
      }
    });
    if (unsupported)
      return failure();
    AxisInfoAnalysis axis(func);
    Context ctx{target, axis, threads, 16 / narrowest};

    ModuleOp module = func->getParentOfType<ModuleOp>();
    int64_t sharedBytes = 0;
    if (reduces && threads > target.warpSize() && !module.lookupSymbol(kReduceScratch)) {
      OpBuilder b(module.getBodyRegion());
      int64_t warps = threads / target.warpSize();
      auto arrayType = LLVM::LLVMArrayType::get(b.getI32Type(), warps);
      LLVM::GlobalOp::create(b, module.getLoc(), arrayType, /*isConstant=*/false,
                             LLVM::Linkage::Internal, kReduceScratch, Attribute(),
                             /*alignment=*/16, target.sharedAddressSpace());
      sharedBytes = warps * 4;
    }

    GPUTypeConverter converter(ctx);
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
                 BroadcastLowering, AddPtrLowering, LoadLowering, StoreLowering,
                 ReduceLowering>(converter, mctx, ctx);
    patterns.add<ElementwiseLowering>(converter, mctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, conv);
    if (failed(applyPartialConversion(func, conv, std::move(patterns))))
      return failure();
    func->setAttr("tile.shared_bytes", IntegerAttr::get(IntegerType::get(mctx, 64), sharedBytes));
    func->setAttr("tile.threads", IntegerAttr::get(IntegerType::get(mctx, 64), threads));
    return success();
  }
};

} // namespace
