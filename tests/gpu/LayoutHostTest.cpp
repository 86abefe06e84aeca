//===- LayoutHostTest.cpp - the layout kernels on the host target ---------===//
//
// Every variant of LayoutCases compiled for the host and checked on all its
// shapes: the kernels and references that layout-gpu runs on the H200.
//
//===----------------------------------------------------------------------===//
#include "LayoutCases.h"

#include "FloatBits.h"
#include "ReadFile.h"

#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

using namespace tile;
using namespace tile::layouts;

namespace {

TEST(LayoutHostTest, EveryVariantMatchesItsReference) {
  std::optional<std::string> source = test::readFile(TILEC_LAYOUT_KERNELS);
  ASSERT_TRUE(source) << "cannot read " << TILEC_LAYOUT_KERNELS;
  uint64_t seed = 100;
  for (const LayoutVariant &v : layoutVariants()) {
    CompileOptions options;
    options.kernel = v.kernel;
    options.defines = v.defines;
    auto kernel = compileForHost(*source, "layouts.tile", options);
    ASSERT_TRUE(bool(kernel)) << v.name() << ": " << kernel.message();
    norms::Launcher launch = [&](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                                 const std::vector<size_t> &) {
      return (*kernel)->launch(grid, args);
    };
    for (auto [m, n] : layoutShapes(v))
      EXPECT_EQ(runLayoutCase(v, (*kernel)->params(), launch, m, n, seed++), "")
          << v.name() << " M=" << m << " N=" << n;
  }
}

// fp8_codes compares the kernels' conversions with test::fromFp8Bits; that
// decode agrees with LLVM's APFloat (Float8E4M3FN, Float8E5M2) on all 256
// codes of each format: the same value, or NaN for both.
TEST(LayoutHostTest, Fp8DecodeMatchesAPFloat) {
  for (bool e4m3 : {true, false})
    for (unsigned code = 0; code < 256; ++code) {
      llvm::APFloat f(e4m3 ? llvm::APFloat::Float8E4M3FN() : llvm::APFloat::Float8E5M2(),
                      llvm::APInt(8, code));
      double want = f.convertToDouble(), got = test::fromFp8Bits(uint8_t(code), e4m3);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got)) << (e4m3 ? "e4m3 " : "e5m2 ") << code;
      else
        EXPECT_TRUE(got == want && std::signbit(got) == std::signbit(want))
            << (e4m3 ? "e4m3 " : "e5m2 ") << code << ": " << got << " != " << want;
    }
}

} // namespace
