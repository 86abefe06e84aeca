//===- ExpandMath.cpp - target-neutral transcendental expansions ----------===//
#include "tile/Transforms/Passes.h"

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
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
