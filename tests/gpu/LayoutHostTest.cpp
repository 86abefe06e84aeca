//===- LayoutHostTest.cpp - the layout kernels on the host target ---------===//
//
// Every variant of LayoutCases compiled for the host and checked on all its
// shapes: the kernels and references that layout-gpu runs on the H200.
//
//===----------------------------------------------------------------------===//
#include "LayoutCases.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace tile;
using namespace tile::layouts;

namespace {

TEST(LayoutHostTest, EveryVariantMatchesItsReference) {
  std::ifstream in(TILEC_LAYOUT_KERNELS);
  std::stringstream source;
  source << in.rdbuf();
  ASSERT_FALSE(source.str().empty()) << "cannot read " << TILEC_LAYOUT_KERNELS;
  uint64_t seed = 100;
  for (const LayoutVariant &v : layoutVariants()) {
    CompileOptions options;
    options.kernel = v.kernel;
    options.defines = v.defines;
    auto kernel = compileForHost(source.str(), "layouts.tile", options);
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

} // namespace
