//===- FloatToIntTest.cpp - float-to-integer conversion on the host -------===//
//
// `.to(I)` of a float on the host target, from f32 and from f16 (converted in
// the kernel first), to i8, u8, i32 and i64: values in range truncate toward
// zero; past the integer's range the result saturates at its minimum or
// maximum, and NaN gives 0, as docs/language.md says (x86's conversion gives
// the minimum for all of them, and LLVM leaves them poison).
//
//===----------------------------------------------------------------------===//
#include "tile/Tile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

const char *kSource = R"(
kernel convert<F: dtype = f32, I: dtype = i32>(x: ptr<f32>, y: ptr<I>, n: i32) {
  let i = program_id(0) * 64 + arange(0, 64);
  let m = i < n;
  store(y + i, load(x + i, mask=m, other=0).to(F).to(I), mask=m);
}
)";

/// The inputs: the special values and bounds, then values k / 4 of random k
/// in [-1000, 1000] (exact in f16 too).
std::vector<float> inputs(uint64_t seed) {
  float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {std::nanf(""), -std::nanf(""), inf, -inf, 3e9f, -3e9f, 1e20f, -1e20f,
                          300.75f, -300.75f, 255.5f, 256.0f, 127.9f, -128.0f, -128.9f, 2.9f,
                          -2.9f, -0.5f, -1.0f, 0.0f, 65504.0f, 70000.0f, -70000.0f,
                          2147483520.0f, -2147483648.0f, 9.2233715e18f};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> k(-1000, 1000);
  while (x.size() < 100)
    x.push_back(float(k(rng)) / 4);
  return x;
}

template <typename I> void check(const char *from, const char *to, uint64_t seed) {
  SCOPED_TRACE(std::string(from) + " to " + to);
  tile::CompileOptions options;
  options.defines = {{"F", from}, {"I", to}};
  auto kernel = tile::compileForHost(kSource, "convert.tile", options);
  ASSERT_TRUE(kernel) << kernel.message();
  std::vector<float> x = inputs(seed);
  std::vector<I> y(x.size(), I(0x5a));
  int n = int(x.size());
  ASSERT_EQ((*kernel)->launch({uint32_t((n + 63) / 64), 1, 1},
                              {tile::Arg::pointer(x.data()), tile::Arg::pointer(y.data()),
                               tile::Arg::integer(n)}),
            "");
  bool f16 = std::string(from) == "f16";
  constexpr long double lo = std::numeric_limits<I>::min(), hi = std::numeric_limits<I>::max();
  for (size_t i = 0; i < x.size(); ++i) {
    long double v = x[i];
    if (f16 && std::fabs(x[i]) >= 65520.0f) // rounds to an infinity in f16
      v = std::copysign(std::numeric_limits<long double>::infinity(), x[i]);
    long double t = std::trunc(v);
    I want = std::isnan(x[i]) ? I(0) : t >= hi ? std::numeric_limits<I>::max()
                                  : t <= lo    ? std::numeric_limits<I>::min()
                                               : I(t);
    EXPECT_EQ(int64_t(y[i]), int64_t(want)) << "x = " << x[i];
  }
}

TEST(FloatToInt, SaturatesOnTheHost) {
  uint64_t seed = 20261208;
  for (const char *from : {"f32", "f16"}) {
    check<int8_t>(from, "i8", seed++);
    check<uint8_t>(from, "u8", seed++);
    check<int32_t>(from, "i32", seed++);
    check<int64_t>(from, "i64", seed++);
  }
}

} // namespace
