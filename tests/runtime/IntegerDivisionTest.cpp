//===- IntegerDivisionTest.cpp - run-time / and % on the host target ------===//
//
// Integer division by a run-time value on the host CPU: random operands give
// C++'s quotients and remainders (truncation toward zero, the remainder with
// the dividend's sign) for i32, i64 and u8, as tiles and as scalars; a zero
// divisor, and the signed minimum over -1, do not take the process down
// (x86's idiv traps on both): the host gives x / 0 = x, x % 0 = 0, MIN / -1 =
// MIN and MIN % -1 = 0, as docs/language.md says.
//
//===----------------------------------------------------------------------===//
#include "tile/Tile.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

// Each program divides a tile of 16 dividends by its own divisor d[p], and
// the first dividend by it once more as a scalar.
const char *kSource = R"(
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

template <typename T> void checkType(const char *dtype, uint64_t seed) {
  SCOPED_TRACE(dtype);
  tile::CompileOptions options;
  options.defines["T"] = dtype;
  auto kernel = tile::compileForHost(kSource, "divide.tile", options);
  ASSERT_TRUE(kernel) << kernel.message();
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
  std::string err = (*kernel)->launch(
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
  checkType<int32_t>("i32", 20261203);
  checkType<int64_t>("i64", 20261204);
  checkType<uint8_t>("u8", 20261205);
}

} // namespace
