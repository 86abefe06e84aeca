//===- ExpandFP8.cpp - decode fp8 values with integer arithmetic ----------===//
//
// The definition of fp8 -> wider float on every target: the exact value of
// the code, and for NaN codes the default quiet NaN of the result type.
// On NVIDIA sm_89 and newer tile-nvptx-extend-fp8 (compiler/targets/nvptx/
// NVPTXConvert.cpp) runs first and converts pairs with cvt.rn.f16x2.e4m3x2
// to the same values (and the same bits wherever NaN bits can be observed);
// this pass decodes what it leaves, and everything on the other targets.
//
// Conversions to fp8 stay unsupported on every target. sm_89's
// cvt.rn.satfinite.e4m3x2.f32 would not do for arith.truncf: .satfinite
// (mandatory there) clamps overflow and infinities to +-MAX_NORM (448,
// 57344) where IEEE rounding gives NaN (e4m3fn, which has no infinity) or
// +-inf (e5m2), and a conversion only sm_89+ can compile is not one the
// language can offer.
//
//===----------------------------------------------------------------------===//
#include "tile/Dialect/TileDialect.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tileir {
#define GEN_PASS_DEF_EXPANDFP8
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tileir

using namespace mlir;

namespace {

/// An 8-bit float format: exponent and mantissa widths, bias, and whether it
/// is a "finite, unsigned zero" (fnuz) format whose only NaN is 0x80.
struct Format {
  unsigned expBits, mantBits;
  int bias;
  bool fnuz;
};

struct ExtFLowering : OpRewritePattern<arith::ExtFOp> {
  ExtFLowering(MLIRContext *ctx, bool fnuz) : OpRewritePattern(ctx), fnuz(fnuz) {}

  LogicalResult matchAndRewrite(arith::ExtFOp op, PatternRewriter &rewriter) const override {
    Type src = getElementTypeOrSelf(op.getIn().getType());
    Format f;
    if (isa<Float8E4M3FNType>(src))
      f = fnuz ? Format{4, 3, 8, true} : Format{4, 3, 7, false};
    else if (isa<Float8E5M2Type>(src))
      f = {5, 2, 15, false};
    else
      return failure();
    Location loc = op.getLoc();
    Type like = op.getIn().getType();
    Type i8 = tileir::getSameShape(like, rewriter.getI8Type());
    Type i32 = tileir::getSameShape(like, rewriter.getI32Type());
    Type f32 = tileir::getSameShape(like, rewriter.getF32Type());
    auto cst = [&](Type t, int64_t v) -> Value {
      Type elem = getElementTypeOrSelf(t);
      TypedAttr attr = isa<FloatType>(elem) ? TypedAttr(rewriter.getFloatAttr(elem, double(v)))
                                            : TypedAttr(rewriter.getIntegerAttr(elem, v));
      if (auto shaped = dyn_cast<ShapedType>(t))
        attr = DenseElementsAttr::get(shaped, attr);
      return arith::ConstantOp::create(rewriter, loc, attr);
    };
    auto fcst = [&](double v) -> Value {
      TypedAttr attr = rewriter.getF32FloatAttr(float(v));
      if (auto shaped = dyn_cast<ShapedType>(f32))
        attr = DenseElementsAttr::get(shaped, attr);
      return arith::ConstantOp::create(rewriter, loc, attr);
    };
    Value bits8 = arith::BitcastOp::create(rewriter, loc, i8, op.getIn());
    Value b = arith::ExtUIOp::create(rewriter, loc, i32, bits8);
    Value sign = arith::ShRUIOp::create(rewriter, loc, b, cst(i32, 7));
    Value exp = arith::AndIOp::create(
        rewriter, loc, arith::ShRUIOp::create(rewriter, loc, b, cst(i32, f.mantBits)),
        cst(i32, (1 << f.expBits) - 1));
    Value mant = arith::AndIOp::create(rewriter, loc, b, cst(i32, (1 << f.mantBits) - 1));
    // Normal numbers: rebias the exponent, widen the mantissa.
    Value normal = arith::OrIOp::create(
        rewriter, loc,
        arith::OrIOp::create(rewriter, loc,
                             arith::ShLIOp::create(rewriter, loc, sign, cst(i32, 31)),
                             arith::ShLIOp::create(
                                 rewriter, loc,
                                 arith::AddIOp::create(rewriter, loc, exp, cst(i32, 127 - f.bias)),
                                 cst(i32, 23))),
        arith::ShLIOp::create(rewriter, loc, mant, cst(i32, 23 - f.mantBits)));
    Value normalF = arith::BitcastOp::create(rewriter, loc, f32, normal);
    // Subnormals (and zero): mant * 2^(1 - bias - mantBits), signed.
    Value sub = arith::MulFOp::create(rewriter, loc,
                                      arith::UIToFPOp::create(rewriter, loc, f32, mant),
                                      fcst(std::ldexp(1.0, 1 - f.bias - int(f.mantBits))));
    Value negative = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, sign,
                                           cst(i32, 0));
    if (!f.fnuz)
      sub = arith::SelectOp::create(rewriter, loc, negative,
                                    arith::NegFOp::create(rewriter, loc, sub), sub);
    Value isSub = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, exp, cst(i32, 0));
    Value value = arith::SelectOp::create(rewriter, loc, isSub, sub, normalF);
    // Specials.
    Value nan = fcst(std::nan(""));
    if (f.fnuz) {
      Value isNaN = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, b, cst(i32, 0x80));
      value = arith::SelectOp::create(rewriter, loc, isNaN, nan, value);
    } else if (f.expBits == 4) {
      Value isNaN = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                          arith::AndIOp::create(rewriter, loc, b, cst(i32, 0x7f)),
                                          cst(i32, 0x7f));
      value = arith::SelectOp::create(rewriter, loc, isNaN, nan, value);
    } else {
      Value maxExp = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, exp,
                                           cst(i32, 31));
      Value isInf = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, mant,
                                          cst(i32, 0));
      Value inf = arith::SelectOp::create(rewriter, loc, negative, fcst(-INFINITY), fcst(INFINITY));
      value = arith::SelectOp::create(rewriter, loc, maxExp,
                                      arith::SelectOp::create(rewriter, loc, isInf, inf, nan),
                                      value);
    }
    Type resElem = getElementTypeOrSelf(op.getType());
    if (resElem.isF32())
      rewriter.replaceOp(op, value);
    else if (resElem.getIntOrFloatBitWidth() > 32)
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), value);
    else
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), value);
    return success();
  }

  bool fnuz;
};

struct ExpandFP8 : tileir::impl::ExpandFP8Base<ExpandFP8> {
  using ExpandFP8Base::ExpandFP8Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExtFLowering>(&getContext(), fnuz);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     tileir::expansionConfig())))
      return signalPassFailure();
    WalkResult result = getOperation()->walk([](arith::TruncFOp op) {
      Type dst = getElementTypeOrSelf(op.getType());
      if (isa<Float8E4M3FNType, Float8E5M2Type>(dst)) {
        op.emitError() << "conversion to " << dst << " is not supported yet";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
