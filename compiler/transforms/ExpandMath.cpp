//===- ExpandMath.cpp - target-neutral transcendental expansions ----------===//
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tileir {
#define GEN_PASS_DEF_EXPANDMATH
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tileir

using namespace mlir;

namespace {

/// f32 erfc in two pieces, chosen by a select (GPU threads run both):
///
///   |x| < 0.75:  erfc(x) = 1 - x * Q(x^2)           (Q: degree 4)
///   |x| >= 0.75: E = erfc(a), a = min(|x|, 10.0546875):
///                t = 1 / (1 + a/2),  u = A t + B in [-1, 1],
///                E = t * 2^(G(u) - a^2 log2(e))   (G: degree 7)
///                erfc(x) = x < 0 ? 2 - E : E
///
/// G fits log2(erfc(a) e^(a^2) (1 + a/2)), which is smooth in t over
/// [0.75, 10.05], as a minimax polynomial weighted by 1 / (1 + a^2) (the
/// error that the rounding of a^2 adds grows like that anyway). The second
/// piece has no cancellation: the negative tail of gelu (x > 0) keeps its
/// relative accuracy down to the subnormals. a is clamped where erfc
/// rounds to 0 in f32 (and +-inf stay out of the reciprocal's residual).
///
/// Measured over every f32 x (exact exp2), in ulp of erfc(x) in double:
/// <= 2.6 for |x| < 0.75, <= 1.4 for x <= -0.75 (results in [1, 2]), <= 8.7
/// for x < 2, then the rounding of the f32 exponent (under 2 x^2 ulp: 26 at
/// x = 4, 109 at x = 10). norm-erfc-test sweeps every 97th f32; rms_norm_gelu
/// stays within tier A's f32 terms (kernels/norms/README.md).
///
/// 2^y is either the target's instruction (`native-exp2`: NVPTX's
/// ex2.approx, 2 ulp) or, by default, a portable expansion: y = n + f with
/// n = round(y) by the 1.5 * 2^23 trick, 2^f by a degree-6 polynomial, and
/// n added to the exponent bits of a value kept 2^64 larger than the result
/// (t is 2^-64 smaller), so results down to the subnormals round once.
struct ErfcF32Expansion : OpRewritePattern<math::ErfcOp> {
  ErfcF32Expansion(MLIRContext *context, bool nativeExp2)
      : OpRewritePattern(context), nativeExp2(nativeExp2) {}

  LogicalResult matchAndRewrite(math::ErfcOp op, PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto shaped = [&](Type elem) -> Type {
      if (auto vec = dyn_cast<VectorType>(type))
        return vec.clone(elem);
      return elem;
    };
    Type i32 = shaped(b.getI32Type());
    auto splat = [&](Type t, TypedAttr attr) -> Value {
      if (auto vec = dyn_cast<VectorType>(t))
        return arith::ConstantOp::create(b, vec, DenseElementsAttr::get(vec, attr));
      return arith::ConstantOp::create(b, attr);
    };
    auto f = [&](float v) { return splat(type, b.getF32FloatAttr(v)); };
    auto fma = [&](Value x, Value y, Value z) { return math::FmaOp::create(b, x, y, z); };
    auto mul = [&](Value x, Value y) { return arith::MulFOp::create(b, x, y); };
    auto horner = [&](Value x, ArrayRef<float> c) {
      Value r = f(c.back());
      for (float ci : llvm::reverse(c.drop_back()))
        r = fma(r, x, f(ci));
      return r;
    };

    Value x = op.getOperand();
    Value absX = math::AbsFOp::create(b, x);

    // |x| < 0.75: erf(x) / x as a polynomial in x^2; one rounding at the end.
    static constexpr float kQ[] = {0x1.20dd6ap+0f, -0x1.81221ep-2f, 0x1.cd74c0p-4f,
                                   -0x1.acf88ap-6f, 0x1.0784cep-8f};
    Value q = horner(mul(x, x), kQ);
    Value small = fma(arith::NegFOp::create(b, x), q, f(1.0f));

    // |x| >= 0.75.
    Value a = arith::MinimumFOp::create(b, absX, f(10.0546875f));
    float scale = nativeExp2 ? 1.0f : 0x1p64f;
    Value d = fma(f(0.5f * scale), a, f(scale));
    Value t = arith::DivFOp::create(b, f(1.0f), d);
    // One Newton step: the quotient may come from a fast reciprocal.
    t = fma(t, fma(arith::NegFOp::create(b, d), t, f(1.0f)), t);
    Value u = fma(t, f(0x1.c7f966p+1f * scale), f(-0x1.973c38p+0f));
    static constexpr float kG[] = {-0x1.127296p+0f, 0x1.121c38p-1f,  0x1.caf37ap-6f,
                                   -0x1.5d1fb6p-7f, -0x1.0994f8p-9f, 0x1.3022dap-11f,
                                   0x1.1d6478p-13f, -0x1.85f880p-15f};
    Value g = horner(u, kG);
    Value y = fma(mul(a, f(-1.44269504088896341f)), a, g);
    Value p;
    if (nativeExp2) {
      p = math::Exp2Op::create(b, y);
    } else {
      Value j = arith::AddFOp::create(b, y, f(0x1.8p23f)); // round(y) in the low bits
      Value frac = arith::SubFOp::create(b, y, arith::SubFOp::create(b, j, f(0x1.8p23f)));
      static constexpr float kExp2[] = {0x1p+64f,        0x1.62e430p+63f, 0x1.ebfbdap+61f,
                                        0x1.c6aed4p+59f, 0x1.3b2dbcp+57f, 0x1.5f456ap+54f,
                                        0x1.41d334p+51f}; // 2^64 * 2^f, |f| <= 1/2
      Value m = horner(frac, kExp2);
      Value n = arith::ShLIOp::create(b, arith::BitcastOp::create(b, i32, j),
                                      splat(i32, b.getI32IntegerAttr(23)));
      p = arith::BitcastOp::create(
          b, type, arith::AddIOp::create(b, arith::BitcastOp::create(b, i32, m), n));
    }
    Value e = mul(t, p);
    Value negative = arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x, f(0.0f));
    Value large = arith::SelectOp::create(b, negative, arith::SubFOp::create(b, f(2.0f), e), e);
    Value isSmall = arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, absX, f(0.75f));
    rewriter.replaceOp(op, arith::SelectOp::create(b, isSmall, small, large));
    return success();
  }

  bool nativeExp2;
};

struct ExpandMath : tileir::impl::ExpandMathBase<ExpandMath> {
  using ExpandMathBase::ExpandMathBase;

  void runOnOperation() override {
    llvm::DenseSet<Operation *> userDivisions;
    getOperation()->walk([&](arith::DivFOp op) { userDivisions.insert(op); });

    // Upstream's approximations for everything but erfc; upstream names the
    // ops with or without the dialect prefix.
    RewritePatternSet patterns(&getContext());
    auto expanded = [](StringRef name) {
      name.consume_front("math.");
      return llvm::is_contained({StringRef("erf"), StringRef("tanh"), StringRef("exp"),
                                 StringRef("log"), StringRef("log2")},
                                name);
    };
    populateMathF32ExpansionPatterns(patterns, expanded);
    populateMathPolynomialApproximationPatterns(patterns, expanded);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     tileir::expansionConfig())))
      return signalPassFailure();

    // Then erfc, whose expansion may leave a math.exp2 for the target.
    RewritePatternSet erfc(&getContext());
    erfc.add<ErfcF32Expansion>(&getContext(), nativeExp2);
    if (failed(applyPatternsGreedily(getOperation(), std::move(erfc),
                                     tileir::expansionConfig())))
      return signalPassFailure();

    // The expansions refine their quotients with a residual step, so their
    // divisions may use the target's fast reciprocal (div.approx on NVPTX,
    // 2 ulp); the kernel's own divisions stay correctly rounded.
    getOperation()->walk([&](arith::DivFOp op) {
      if (!userDivisions.contains(op))
        op.setFastmath(arith::FastMathFlags::afn);
    });
  }
};
} // namespace
