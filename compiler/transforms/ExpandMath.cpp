//===- ExpandMath.cpp - target-neutral transcendental expansions ----------===//
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tileir {
#define GEN_PASS_DEF_EXPANDMATH
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tileir

using namespace mlir;

namespace {
struct ExpandMath : tileir::impl::ExpandMathBase<ExpandMath> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Upstream names the ops with or without the dialect prefix.
    auto expanded = [](StringRef name) {
      name.consume_front("math.");
      return llvm::is_contained({StringRef("erf"), StringRef("erfc"), StringRef("tanh"),
                                 StringRef("exp"), StringRef("exp2"), StringRef("log"),
                                 StringRef("log2")},
                                name);
    };
    populateMathF32ExpansionPatterns(patterns, expanded);
    populateMathPolynomialApproximationPatterns(patterns, expanded);
    populatePolynomialApproximateErfcPattern(patterns);
    llvm::DenseSet<Operation *> userDivisions;
    getOperation()->walk([&](arith::DivFOp op) { userDivisions.insert(op); });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
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
