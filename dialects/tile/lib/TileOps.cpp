//===- TileOps.cpp - tile dialect operations ------------------------------===//
#include "tile/Dialect/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mlir::tileir;

#define GET_OP_CLASSES
#include "tile/Dialect/TileOps.cpp.inc"

LogicalResult RangeOp::verify() {
  int64_t start = int32_t(getStart()), end = int32_t(getEnd());
  if (end <= start)
    return emitOpError() << "needs start < end, got " << start << " to " << end;
  int64_t size = getResult().getType().getDimSize(0);
  if (size != end - start)
    return emitOpError() << "result has " << size << " elements but the range has "
                         << end - start;
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  auto type = cast<ShapedType>(getType());
  if (auto value = dyn_cast_if_present<TypedAttr>(adaptor.getSrc()))
    if (isa<IntegerAttr, FloatAttr>(value))
      return DenseElementsAttr::get(type, value);
  return {};
}

namespace {
/// A loop that carries a tile which enters as a splat and is yielded as one
/// carries the scalar instead, splatted where the body and the code after
/// the loop use it: a scalar has no layout, so nothing is converted between
/// the layouts its users take it in (a paged kernel's page number, one a
/// block, read a block ahead).
struct CarrySplatScalars : OpRewritePattern<scf::ForOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(scf::ForOp loop, PatternRewriter &rewriter) const override {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    bool changed = false;
    for (unsigned i = 0, e = loop.getNumRegionIterArgs(); i < e; ++i) {
      auto in = loop.getInitArgs()[i].getDefiningOp<SplatOp>();
      auto out = yield.getOperand(i).getDefiningOp<SplatOp>();
      if (!in || !out)
        continue;
      Type tile = in.getType(), scalar = in.getSrc().getType();
      BlockArgument arg = loop.getRegionIterArgs()[i];
      OpResult result = loop->getResult(i);
      rewriter.modifyOpInPlace(loop, [&] {
        loop.getInitArgsMutable()[i].assign(in.getSrc());
        arg.setType(scalar);
        result.setType(scalar);
      });
      rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(i, out.getSrc()); });
      rewriter.setInsertionPointToStart(loop.getBody());
      Value inside = SplatOp::create(rewriter, loop.getLoc(), tile, arg);
      rewriter.replaceAllUsesExcept(arg, inside, inside.getDefiningOp());
      rewriter.setInsertionPointAfter(loop);
      Value after = SplatOp::create(rewriter, loop.getLoc(), tile, result);
      rewriter.replaceAllUsesExcept(result, after, after.getDefiningOp());
      changed = true;
    }
    return success(changed);
  }
};
} // namespace

void SplatOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<CarrySplatScalars>(context);
}

LogicalResult BroadcastOp::verify() {
  auto srcType = getSrc().getType();
  auto resType = cast<RankedTensorType>(getType());
  if (srcType.getRank() != resType.getRank())
    return emitOpError() << "source rank " << srcType.getRank()
                         << " differs from result rank " << resType.getRank();
  for (auto [i, s, r] : llvm::enumerate(srcType.getShape(), resType.getShape()))
    if (s != r && s != 1)
      return emitOpError() << "dimension " << i << " of size " << s
                           << " cannot broadcast to " << r;
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(cast<ShapedType>(getType()));
  return {};
}

LogicalResult ExpandDimsOp::verify() {
  auto srcType = getSrc().getType();
  auto resType = cast<RankedTensorType>(getType());
  int64_t axis = int32_t(getAxis());
  if (axis < 0 || axis > srcType.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << srcType.getRank();
  SmallVector<int64_t> expected(srcType.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (ArrayRef<int64_t>(expected) != resType.getShape())
    return emitOpError() << "result shape does not insert a unit dimension at "
                         << axis;
  return success();
}

LogicalResult AddPtrOp::verify() {
  auto ptrTile = dyn_cast<RankedTensorType>(getPtr().getType());
  auto offTile = dyn_cast<RankedTensorType>(getOffset().getType());
  if (bool(ptrTile) != bool(offTile) ||
      (ptrTile && ptrTile.getShape() != offTile.getShape()))
    return emitOpError() << "offset type " << getOffset().getType()
                         << " does not have the shape of " << getPtr().getType();
  return success();
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(getOffset(), m_Zero()))
    return getPtr();
  return {};
}

/// Checks that `valueType` matches the pointee of `ptrType` and its shape.
static LogicalResult verifyAccess(Operation *op, Type ptrType, Type valueType,
                                  Value mask) {
  auto ptr = cast<PointerType>(getElementTypeOrSelf(ptrType));
  if (getSameShape(ptrType, ptr.getPointee()) != valueType)
    return op->emitOpError() << "value type " << valueType
                             << " does not match pointer type " << ptrType;
  if (mask && getSameShape(ptrType, IntegerType::get(op->getContext(), 1)) !=
                  mask.getType())
    return op->emitOpError() << "mask type " << mask.getType()
                             << " does not match the shape of " << ptrType;
  return success();
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError() << "has 'other' without a mask";
  if (getOther() && getOther().getType() != getType())
    return emitOpError() << "'other' type " << getOther().getType()
                         << " differs from result type " << getType();
  return verifyAccess(*this, getPtr().getType(), getType(), getMask());
}

LogicalResult StoreOp::verify() {
  return verifyAccess(*this, getPtr().getType(), getValue().getType(), getMask());
}

LogicalResult AtomicAddOp::verify() {
  Type pointee = cast<PointerType>(getPtr().getType()).getPointee();
  if (!pointee.isInteger(32))
    return emitOpError() << "adds to i32, not " << pointee;
  return success();
}

LogicalResult ReduceOp::verify() {
  auto srcType = getSrc().getType();
  int64_t axis = int32_t(getAxis());
  if (axis < 0 || axis >= srcType.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << srcType.getRank();
  Type elem = srcType.getElementType();
  if (!isa<FloatType, IntegerType>(elem))
    return emitOpError() << "cannot reduce elements of type " << elem;
  SmallVector<int64_t> shape(srcType.getShape());
  shape.erase(shape.begin() + axis);
  Type expected = shape.empty() ? elem : RankedTensorType::get(shape, elem);
  auto result = dyn_cast<RankedTensorType>(getType());
  if ((result ? RankedTensorType::get(result.getShape(), result.getElementType()) : getType()) !=
      expected)
    return emitOpError() << "result type " << getType() << " should be " << expected;
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(cast<ShapedType>(getType()));
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), acc = getAcc().getType();
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "operands have different element types " << a.getElementType()
                         << " and " << b.getElementType();
  int64_t rank = a.getRank();
  if (b.getRank() != rank || acc.getRank() != rank)
    return emitOpError() << "a, b and the accumulator have ranks " << rank << ", " << b.getRank()
                         << " and " << acc.getRank() << ": they must be one (2, or 3 for a batch)";
  if (rank == 3 && (b.getDimSize(0) != a.getDimSize(0) || acc.getDimSize(0) != a.getDimSize(0)))
    return emitOpError() << "batches of " << a.getDimSize(0) << ", " << b.getDimSize(0) << " and "
                         << acc.getDimSize(0) << " products: they must be one";
  int64_t m = rank - 2, k = rank - 1;
  if (a.getDimSize(k) != b.getDimSize(m))
    return emitOpError() << "a is " << a.getDimSize(m) << "x" << a.getDimSize(k) << " but b is "
                         << b.getDimSize(m) << "x" << b.getDimSize(k)
                         << ": the inner dimensions differ";
  if (acc.getDimSize(m) != a.getDimSize(m) || acc.getDimSize(k) != b.getDimSize(k))
    return emitOpError() << "accumulator is " << acc.getDimSize(m) << "x" << acc.getDimSize(k)
                         << ", expected " << a.getDimSize(m) << "x" << b.getDimSize(k);
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType();
  auto res = cast<RankedTensorType>(getType());
  SmallVector<int64_t> want(src.getShape());
  std::swap(want[want.size() - 2], want.back());
  if (res.getShape() != ArrayRef<int64_t>(want))
    return emitOpError() << "result shape " << llvm::interleaved(res.getShape(), "x")
                         << " is not " << llvm::interleaved(src.getShape(), "x")
                         << " with its last two dimensions swapped";
  return success();
}

LogicalResult PtrCastOp::verify() {
  auto src = dyn_cast<RankedTensorType>(getSrc().getType());
  auto res = dyn_cast<RankedTensorType>(getType());
  if (bool(src) != bool(res) || (src && src.getShape() != res.getShape()))
    return emitOpError() << "changes the shape: " << getSrc().getType() << " to " << getType();
  return success();
}

LogicalResult GatherOp::verify() {
  auto table = getTable().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto res = cast<RankedTensorType>(getType());
  if (!llvm::isPowerOf2_64(table.getDimSize(0)))
    return emitOpError() << "table has " << table.getDimSize(0)
                         << " elements; gather needs a power of two";
  if (res.getShape() != indices.getShape() || res.getElementType() != table.getElementType())
    return emitOpError() << "result " << res << " is not the indices' shape with the table's "
                         << "element type " << table.getElementType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType();
  auto res = cast<RankedTensorType>(getType());
  if (src.getNumElements() != res.getNumElements())
    return emitOpError() << "reshapes " << src.getNumElements() << " elements into "
                         << res.getNumElements();
  return success();
}
