//===- HostSemanticsTest.cpp - run-time edge cases on the host target ----===//
//
// What docs/language.md defines for run-time values that the CPU would
// otherwise trap on, loop on forever or leave to LLVM's poison:
// - Integer / and %: random operands give C++'s quotients and remainders
//   (truncation toward zero, the remainder with the dividend's sign) for i32,
//   i64 and u8, as tiles and as scalars; a zero divisor, and the signed
//   minimum over -1, do not take the process down (x86's idiv traps on both):
//   x / 0 = x, x % 0 = 0, MIN / -1 = MIN and MIN % -1 = 0.
// - range(start, end, step) with a run-time step: random bounds and positive
//   steps visit exactly what a C++ loop visits (count and sum of i, i32 and
//   i64 bounds); a step of 0 or below runs no iterations instead of never
//   ending (ctest's timeout on this test catches a loop that hangs).
// - Float to integer, from f32 and from f16 (converted in the kernel first),
//   to i8, u8, i32 and i64: values in range truncate toward zero; past the
//   integer's range the result saturates at its minimum or maximum, and NaN
//   gives 0 (x86's conversion gives the minimum for all of them, and LLVM
//   leaves them poison).
//
//===----------------------------------------------------------------------===//
#include "tile/Tile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

/// `source` compiled for the host with `defines`, or null after a failure.
std::shared_ptr<tile::HostKernel> compile(const char *source, const char *file,
                                          const std::map<std::string, std::string> &defines) {
  tile::CompileOptions options;
  options.defines = defines;
  auto kernel = tile::compileForHost(source, file, options);
  if (!kernel) {
    ADD_FAILURE() << file << ": " << kernel.message();
    return nullptr;
  }
  return *kernel;
}

//===----------------------------------------------------------------------===//
// Integer division
//===----------------------------------------------------------------------===//

// Each program divides a tile of 16 dividends by its own divisor d[p], and
// the first dividend by it once more as a scalar.
const char *kDivide = R"(
kernel divide<T: dtype = i32>(x: ptr<T>, d: ptr<T>, q: ptr<T>, r: ptr<T>, q1: ptr<T>,
                              r1: ptr<T>) {
  let p = program_id(0);
  let i = p * 16 + arange(0, 16);
  let v = load(x + i);
  let by = load(d + p);
  store(q + i, v / by);
  store(r + i, v % by);
  let first = load(x + p * 16);
  store(q1 + p, first / by);
  store(r1 + p, first % by);
}
)";

template <typename T> void checkDivision(const char *dtype, uint64_t seed) {
  SCOPED_TRACE(dtype);
  auto kernel = compile(kDivide, "divide.tile", {{"T", dtype}});
  ASSERT_TRUE(kernel);
  constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> any{int64_t(lo), int64_t(hi)};
  // Programs 0-1 divide by 0, program 2 by -1 (by 255 for u8) with the
  // minimum among its dividends, the rest by random non-zero divisors.
  const int programs = 8;
  std::vector<T> x(programs * 16), d(programs);
  for (T &v : x)
    v = T(any(rng));
  for (int p = 0; p < programs; ++p) {
    T by = 0;
    while (p >= 3 && by == 0)
      by = T(any(rng) >> (rng() % 60));
    d[size_t(p)] = p == 2 ? T(-1) : by;
  }
  x[2 * 16] = lo;
  x[2 * 16 + 5] = lo;
  T poison = T(0x5a);
  std::vector<T> q(x.size(), poison), r(x.size(), poison), q1(programs, poison),
      r1(programs, poison);
  std::string err = kernel->launch(
      {uint32_t(programs), 1, 1},
      {tile::Arg::pointer(x.data()), tile::Arg::pointer(d.data()), tile::Arg::pointer(q.data()),
       tile::Arg::pointer(r.data()), tile::Arg::pointer(q1.data()), tile::Arg::pointer(r1.data())});
  ASSERT_EQ(err, "");
  auto want = [](T a, T b, bool quotient) -> T {
    if (b == 0)
      return quotient ? a : T(0);
    if (std::numeric_limits<T>::is_signed && a == lo && b == T(-1))
      return quotient ? lo : T(0);
    return quotient ? T(a / b) : T(a % b);
  };
  for (int p = 0; p < programs; ++p) {
    T by = d[size_t(p)];
    for (int k = 0; k < 16; ++k) {
      size_t i = size_t(p * 16 + k);
      EXPECT_EQ(int64_t(q[i]), int64_t(want(x[i], by, true)))
          << int64_t(x[i]) << " / " << int64_t(by) << " (program " << p << ")";
      EXPECT_EQ(int64_t(r[i]), int64_t(want(x[i], by, false)))
          << int64_t(x[i]) << " % " << int64_t(by) << " (program " << p << ")";
    }
    T first = x[size_t(p * 16)];
    EXPECT_EQ(int64_t(q1[size_t(p)]), int64_t(want(first, by, true))) << "scalar, program " << p;
    EXPECT_EQ(int64_t(r1[size_t(p)]), int64_t(want(first, by, false))) << "scalar, program " << p;
  }
}

TEST(IntegerDivision, RunTimeDivisorsOnTheHost) {
  checkDivision<int32_t>("i32", 20261203);
  checkDivision<int64_t>("i64", 20261204);
  checkDivision<uint8_t>("u8", 20261205);
}

//===----------------------------------------------------------------------===//
// Loop steps
//===----------------------------------------------------------------------===//

const char *kVisit = R"(
kernel visit<T: dtype = i32>(bounds: ptr<T>, count: ptr<i64>, total: ptr<i64>) {
  let p = program_id(0);
  let start = load(bounds + 3 * p);
  let end = load(bounds + 3 * p + 1);
  let step = load(bounds + 3 * p + 2);
  let n = (0).to(i64);
  let s = (0).to(i64);
  for i in range(start, end, step) {
    n = n + 1;
    s = s + i.to(i64);
  }
  store(count + p, n);
  store(total + p, s);
}
)";

template <typename T> void checkLoop(const char *dtype, uint64_t seed) {
  SCOPED_TRACE(dtype);
  auto kernel = compile(kVisit, "visit.tile", {{"T", dtype}});
  ASSERT_TRUE(kernel);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> bound(-5000, 5000), positive(1, 700), negative(-700, -1);
  const int programs = 24;
  std::vector<T> bounds;
  for (int p = 0; p < programs; ++p) {
    T start = T(bound(rng)), end = T(bound(rng));
    // Programs 0-3 step by 0, 4-7 by a negative step, the rest forward.
    T step = p < 4 ? T(0) : p < 8 ? T(negative(rng)) : T(positive(rng));
    if (p < 8 && start > end)
      std::swap(start, end); // a loop that a positive step would enter
    bounds.insert(bounds.end(), {start, end, step});
  }
  std::vector<int64_t> count(programs, -1), total(programs, -1);
  std::string err = kernel->launch(
      {uint32_t(programs), 1, 1}, {tile::Arg::pointer(bounds.data()),
                                   tile::Arg::pointer(count.data()),
                                   tile::Arg::pointer(total.data())});
  ASSERT_EQ(err, "");
  for (int p = 0; p < programs; ++p) {
    T start = bounds[size_t(3 * p)], end = bounds[size_t(3 * p + 1)],
      step = bounds[size_t(3 * p + 2)];
    int64_t n = 0, s = 0;
    for (int64_t i = start; step > 0 && i < end; i += step)
      ++n, s += i;
    EXPECT_EQ(count[size_t(p)], n) << "range(" << int64_t(start) << ", " << int64_t(end) << ", "
                                   << int64_t(step) << ")";
    EXPECT_EQ(total[size_t(p)], s) << "range(" << int64_t(start) << ", " << int64_t(end) << ", "
                                   << int64_t(step) << ")";
  }
}

TEST(LoopStep, RunTimeStepsOnTheHost) {
  checkLoop<int32_t>("i32", 20261206);
  checkLoop<int64_t>("i64", 20261207);
}

//===----------------------------------------------------------------------===//
// Float to integer
//===----------------------------------------------------------------------===//

const char *kConvert = R"(
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

template <typename I> void checkConversion(const char *from, const char *to, uint64_t seed) {
  SCOPED_TRACE(std::string(from) + " to " + to);
  auto kernel = compile(kConvert, "convert.tile", {{"F", from}, {"I", to}});
  ASSERT_TRUE(kernel);
  std::vector<float> x = inputs(seed);
  std::vector<I> y(x.size(), I(0x5a));
  int n = int(x.size());
  ASSERT_EQ(kernel->launch({uint32_t((n + 63) / 64), 1, 1},
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
    checkConversion<int8_t>(from, "i8", seed++);
    checkConversion<uint8_t>(from, "u8", seed++);
    checkConversion<int32_t>(from, "i32", seed++);
    checkConversion<int64_t>(from, "i64", seed++);
  }
}

} // namespace
