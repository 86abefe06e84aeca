//===- TileToHost.cpp - tile ops to tensors, linalg and i64 addresses -----===//
//
// The host target bufferizes tiles with upstream machinery: each tile op is
// rewritten into linalg/tensor ops (or loops over `bufferization.to_buffer`
// for stores), pointers become i64 addresses, and one-shot bufferization plus
// linalg-to-loops turn the result into scalar loops that LLVM vectorises.
//
//===----------------------------------------------------------------------===//
#include "Reduction.h"
#include "tile/Dialect/TileDialect.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Bufferize.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tileir {
#define GEN_PASS_DEF_CONVERTTILETOHOST
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tileir

using namespace mlir;
using namespace mlir::tileir;

namespace {

/// Number of trailing grid arguments added to each kernel.
constexpr unsigned kGridArgs = 6;

class HostTypeConverter : public TypeConverter {
public:
  HostTypeConverter() {
    addConversion([](Type t) { return t; });
    addConversion([](PointerType t) -> Type { return IntegerType::get(t.getContext(), 64); });
    addConversion([this](RankedTensorType t) -> Type {
      return RankedTensorType::get(t.getShape(), convertType(t.getElementType()));
    });
  }
};

/// Address (i64) -> !llvm.ptr.
Value toLLVMPtr(OpBuilder &b, Location loc, Value address) {
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
}

/// The storage type of `elem` in memory (fp8 is loaded and stored as i8).
Type storageType(Type elem) {
  if (isa<FloatType>(elem) && elem.getIntOrFloatBitWidth() == 8)
    return IntegerType::get(elem.getContext(), 8);
  return elem;
}

Value loadScalar(OpBuilder &b, Location loc, Type elem, Value address) {
  Type storage = storageType(elem);
  Value v = LLVM::LoadOp::create(b, loc, storage, toLLVMPtr(b, loc, address));
  if (storage != elem)
    v = arith::BitcastOp::create(b, loc, elem, v);
  return v;
}

void storeScalar(OpBuilder &b, Location loc, Value value, Value address) {
  Type storage = storageType(value.getType());
  if (storage != value.getType())
    value = arith::BitcastOp::create(b, loc, storage, value);
  LLVM::StoreOp::create(b, loc, value, toLLVMPtr(b, loc, address));
}

/// Loads `address` when `mask` holds, else yields `other`.
Value maskedLoad(OpBuilder &b, Location loc, Type elem, Value address, Value mask, Value other) {
  if (!mask)
    return loadScalar(b, loc, elem, address);
  auto ifOp = scf::IfOp::create(
      b, loc, mask,
      [&](OpBuilder &tb, Location l) {
        scf::YieldOp::create(tb, l, loadScalar(tb, l, elem, address));
      },
      [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, other); });
  return ifOp.getResult(0);
}

Value emptyLike(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
}

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

template <typename Op> struct GridArgLowering : OpConversionPattern<Op> {
  GridArgLowering(const TypeConverter &tc, MLIRContext *ctx, unsigned offset)
      : OpConversionPattern<Op>(tc, ctx), offset(offset) {}
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto func = op->template getParentOfType<func::FuncOp>();
    unsigned first = func.getNumArguments() - kGridArgs;
    rewriter.replaceOp(op, func.getArgument(first + offset + op.getAxis()));
    return success();
  }
  unsigned offset;
};

struct RangeLowering : OpConversionPattern<RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(RangeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    int32_t start = int32_t(op.getStart());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, ValueRange{emptyLike(rewriter, loc, type)},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(1)}, parallelIterators(1),
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, 0);
          Value v = arith::IndexCastOp::create(b, l, b.getI32Type(), i);
          Value s = arith::ConstantOp::create(b, l, b.getI32IntegerAttr(start));
          linalg::YieldOp::create(b, l, ValueRange{arith::AddIOp::create(b, l, v, s)});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct SplatLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SplatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Value empty = emptyLike(rewriter, op.getLoc(), type);
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, adaptor.getSrc(), empty);
    return success();
  }
};

struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> srcExprs;
    for (auto [i, d] : llvm::enumerate(op.getSrc().getType().getShape()))
      srcExprs.push_back(d == 1 && type.getDimSize(i) != 1 ? rewriter.getAffineConstantExpr(0)
                                                           : rewriter.getAffineDimExpr(i));
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, srcExprs, getContext()),
                                   rewriter.getMultiDimIdentityMap(rank)};
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), type, ValueRange{adaptor.getSrc()},
        ValueRange{emptyLike(rewriter, op.getLoc(), type)}, maps, parallelIterators(rank),
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, ValueRange{args[0]});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct ExpandDimsLowering : OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    int64_t srcRank = op.getSrc().getType().getRank();
    int64_t axis = op.getAxis();
    SmallVector<ReassociationIndices> reassociation;
    if (srcRank == 0) {
      reassociation = {};
    } else {
      for (int64_t i = 0, r = 0; i < srcRank; ++i) {
        ReassociationIndices group;
        if (i == axis)
          group.push_back(r++);
        group.push_back(r++);
        if (i == srcRank - 1 && axis == srcRank)
          group.push_back(r++);
        reassociation.push_back(group);
      }
    }
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, type, adaptor.getSrc(), reassociation);
    return success();
  }
};

struct AddPtrLowering : OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto pointee = cast<PointerType>(getElementTypeOrSelf(op.getType())).getPointee();
    int64_t elemBytes = (storageType(pointee).getIntOrFloatBitWidth() + 7) / 8;
    Type i64 = getTypeConverter()->convertType(op.getType());
    Value offset = adaptor.getOffset();
    if (getElementTypeOrSelf(offset.getType()).getIntOrFloatBitWidth() < 64)
      offset = arith::ExtSIOp::create(rewriter, loc, i64, offset);
    if (elemBytes != 1) {
      Value size = arith::ConstantOp::create(
          rewriter, loc, cast<TypedAttr>(i64.isInteger(64) ? Attribute(rewriter.getI64IntegerAttr(elemBytes))
                                             : Attribute(DenseElementsAttr::get(
                                                   cast<ShapedType>(i64),
                                                   rewriter.getI64IntegerAttr(elemBytes)))));
      offset = arith::MulIOp::create(rewriter, loc, offset, size);
    }
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, adaptor.getPtr(), offset);
    return success();
  }
};

struct LoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elem = getElementTypeOrSelf(op.getType());
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    if (!tensorType) {
      rewriter.replaceOp(op, maskedLoad(rewriter, loc, elem, adaptor.getPtr(), adaptor.getMask(),
                                        adaptor.getOther()));
      return success();
    }
    SmallVector<Value> inputs = {adaptor.getPtr()};
    if (adaptor.getMask())
      inputs.push_back(adaptor.getMask());
    if (adaptor.getOther())
      inputs.push_back(adaptor.getOther());
    int64_t rank = tensorType.getRank();
    SmallVector<AffineMap> maps(inputs.size() + 1, rewriter.getMultiDimIdentityMap(rank));
    bool hasMask = bool(adaptor.getMask()), hasOther = bool(adaptor.getOther());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, tensorType, inputs, ValueRange{emptyLike(rewriter, loc, tensorType)}, maps,
        parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange args) {
          Value other = hasOther ? args[2]
                                 : Value(arith::ConstantOp::create(b, l, b.getZeroAttr(elem)));
          Value v = maskedLoad(b, l, elem, args[0], hasMask ? args[1] : Value(), other);
          linalg::YieldOp::create(b, l, ValueRange{v});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct StoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto storeOne = [&](OpBuilder &b, Location l, Value address, Value value, Value mask) {
      if (!mask) {
        storeScalar(b, l, value, address);
        return;
      }
      scf::IfOp::create(b, l, mask, [&](OpBuilder &tb, Location tl) {
        storeScalar(tb, tl, value, address);
        scf::YieldOp::create(tb, tl);
      });
    };
    auto tensorType = dyn_cast<RankedTensorType>(adaptor.getPtr().getType());
    if (!tensorType) {
      storeOne(rewriter, loc, adaptor.getPtr(), adaptor.getValue(), adaptor.getMask());
      rewriter.eraseOp(op);
      return success();
    }
    auto toBuffer = [&](Value t) -> Value {
      if (!t)
        return t;
      auto type = bufferization::getMemRefTypeWithFullyDynamicLayout(cast<TensorType>(t.getType()));
      return bufferization::ToBufferOp::create(rewriter, loc, type, t, /*readOnly=*/true);
    };
    Value ptrs = toBuffer(adaptor.getPtr()), values = toBuffer(adaptor.getValue()),
          mask = toBuffer(adaptor.getMask());
    SmallVector<Value> lbs, ubs, steps;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t d : tensorType.getShape()) {
      lbs.push_back(zero);
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, d));
      steps.push_back(one);
    }
    scf::buildLoopNest(rewriter, loc, lbs, ubs, steps,
                       [&](OpBuilder &b, Location l, ValueRange ivs) {
                         Value address = memref::LoadOp::create(b, l, ptrs, ivs);
                         Value value = memref::LoadOp::create(b, l, values, ivs);
                         Value m = mask ? Value(memref::LoadOp::create(b, l, mask, ivs)) : Value();
                         storeOne(b, l, address, value, m);
                       });
    rewriter.eraseOp(op);
    return success();
  }
};

/// llvm.atomicrmw reads and writes through its pointer.
struct AtomicRMWEffects
    : public MemoryEffectOpInterface::ExternalModel<AtomicRMWEffects, LLVM::AtomicRMWOp> {
  void getEffects(Operation *op,
                  SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects)
      const {
    OpOperand &ptr = cast<LLVM::AtomicRMWOp>(op).getPtrMutable();
    effects.emplace_back(MemoryEffects::Read::get(), &ptr);
    effects.emplace_back(MemoryEffects::Write::get(), &ptr);
  }
};

/// A host program is one thread: one sequentially consistent add (programs
/// run on several threads at once).
struct AtomicAddLowering : OpConversionPattern<AtomicAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AtomicAddOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(
        op, LLVM::AtomicBinOp::add, toLLVMPtr(rewriter, loc, adaptor.getPtr()),
        adaptor.getValue(), LLVM::AtomicOrdering::seq_cst);
    return success();
  }
};

/// Host launches never overlap: tile.gdc_wait and
/// tile.gdc_launch_dependents have nothing to do.
template <typename Op> struct EraseLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = op.getSrc().getType();
    Type elem = srcType.getElementType();
    ReduceKind kind = op.getKind();
    TypedAttr identity = reductionIdentity(rewriter, kind, elem);
    SmallVector<int64_t> shape(srcType.getShape());
    shape.erase(shape.begin() + op.getAxis());
    auto initType = RankedTensorType::get(shape, elem);
    Value init = arith::ConstantOp::create(rewriter, loc, identity);
    Value filled = linalg::FillOp::create(rewriter, loc, init, emptyLike(rewriter, loc, initType))
                       .getResult(0);
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{adaptor.getSrc()}, ValueRange{filled},
        ArrayRef<int64_t>{op.getAxis()}, [&](OpBuilder &b, Location l, ValueRange args) {
          Value r = combineReduction(b, l, kind, args[1], args[0]);
          linalg::YieldOp::create(b, l, ValueRange{r});
        });
    Value result = reduce.getResult(0);
    if (shape.empty())
      result = tensor::ExtractOp::create(rewriter, loc, result, ValueRange{});
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// dot: both operands widened to f32 (exact), then a linalg.matmul (a
/// linalg.batch_matmul for a batch) into the accumulator: plain f32 loops.
struct DotLowering : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto widen = [&](Value v) -> Value {
      auto type = cast<RankedTensorType>(v.getType());
      return arith::ExtFOp::create(
          rewriter, loc, RankedTensorType::get(type.getShape(), rewriter.getF32Type()), v);
    };
    SmallVector<Value, 2> operands{widen(adaptor.getA()), widen(adaptor.getB())};
    Operation *matmul = op.getA().getType().getRank() == 3
                            ? linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{op.getType()},
                                                            operands, ValueRange{adaptor.getAcc()})
                                  .getOperation()
                            : linalg::MatmulOp::create(rewriter, loc, TypeRange{op.getType()},
                                                       operands, ValueRange{adaptor.getAcc()})
                                  .getOperation();
    rewriter.replaceOp(op, matmul->getResult(0));
    return success();
  }
};

struct TransLowering : OpConversionPattern<TransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TransOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Value init = emptyLike(rewriter, op.getLoc(), type);
    SmallVector<int64_t> permutation = llvm::to_vector(llvm::seq<int64_t>(type.getRank()));
    std::swap(permutation[type.getRank() - 2], permutation.back());
    auto t = linalg::TransposeOp::create(rewriter, op.getLoc(), adaptor.getSrc(), init,
                                         permutation);
    rewriter.replaceOp(op, t.getResult()[0]);
    return success();
  }
};

/// gather: a linalg.generic over the indices that extracts table[index mod N].
struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    int64_t size = op.getTable().getType().getDimSize(0);
    Value table = adaptor.getTable();
    AffineMap map = rewriter.getMultiDimIdentityMap(type.getRank());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{adaptor.getIndices()},
        ValueRange{emptyLike(rewriter, loc, type)}, ArrayRef<AffineMap>{map, map},
        parallelIterators(type.getRank()), [&](OpBuilder &b, Location l, ValueRange args) {
          Value mask = arith::ConstantOp::create(b, l, b.getIntegerAttr(args[0].getType(), size - 1));
          Value index = arith::IndexCastUIOp::create(b, l, b.getIndexType(),
                                                     arith::AndIOp::create(b, l, args[0], mask));
          linalg::YieldOp::create(b, l, ValueRange{tensor::ExtractOp::create(b, l, table, index)});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// reshape: collapse to one dimension, then expand to the result's shape.
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    auto all = [](int64_t rank) {
      ReassociationIndices group;
      for (int64_t i = 0; i < rank; ++i)
        group.push_back(i);
      return SmallVector<ReassociationIndices>{group};
    };
    Value flat = adaptor.getSrc();
    int64_t srcRank = op.getSrc().getType().getRank();
    if (srcRank != 1)
      flat = tensor::CollapseShapeOp::create(rewriter, loc, flat, all(srcRank));
    if (type.getRank() == 1)
      rewriter.replaceOp(op, flat);
    else
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, type, flat, all(type.getRank()));
    return success();
  }
};

/// ptr_cast: addresses are i64 whatever they point to.
struct PtrCastLowering : OpConversionPattern<PtrCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PtrCastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// arith.select on pointer tiles: same op, converted types.
struct SelectLowering : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::SelectOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, adaptor.getCondition(),
                                                 adaptor.getTrueValue(), adaptor.getFalseValue());
    return success();
  }
};

struct ConvertTileToHost : mlir::tileir::impl::ConvertTileToHostBase<ConvertTileToHost> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr("tile.kernel") || func.isExternal())
        continue;
      Type i32 = IntegerType::get(ctx, 32);
      SmallVector<unsigned> indices(kGridArgs, func.getNumArguments());
      SmallVector<Type> types(kGridArgs, i32);
      SmallVector<DictionaryAttr> attrs(kGridArgs, DictionaryAttr::get(ctx));
      SmallVector<Location> locs(kGridArgs, func.getLoc());
      if (failed(func.insertArguments(indices, types, attrs, locs)))
        return signalPassFailure();
    }

    HostTypeConverter converter;
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           linalg::LinalgDialect, LLVM::LLVMDialect, memref::MemRefDialect,
                           scf::SCFDialect, tensor::TensorDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType());
    });
    target.addDynamicallyLegalOp<arith::SelectOp>(
        [&](arith::SelectOp op) { return converter.isLegal(op.getOperation()); });
    target.addLegalOp<ModuleOp, func::ReturnOp>();

    RewritePatternSet patterns(ctx);
    patterns.add<GridArgLowering<ProgramIdOp>>(converter, ctx, 0);
    patterns.add<GridArgLowering<NumProgramsOp>>(converter, ctx, 3);
    patterns.add<DotLowering, TransLowering, GatherLowering, PtrCastLowering, ReshapeLowering>(
        converter, ctx);
    patterns.add<RangeLowering, SplatLowering, BroadcastLowering, ExpandDimsLowering,
                 AddPtrLowering, LoadLowering, StoreLowering, ReduceLowering, SelectLowering,
                 AtomicAddLowering, EraseLowering<GridDependencyWaitOp>,
                 EraseLowering<GridDependencyLaunchOp>>(
        converter, ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::tileir::registerHostAtomicEffects(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, LLVM::LLVMDialect *) {
    LLVM::AtomicRMWOp::attachInterface<AtomicRMWEffects>(*ctx);
  });
}
