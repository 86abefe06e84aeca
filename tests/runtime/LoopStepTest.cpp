//===- LoopStepTest.cpp - range with a run-time step on the host target ---===//
//
// `for i in range(start, end, step)` with a run-time step: random bounds and
// positive steps visit exactly what a C++ loop visits (count and sum of i,
// i32 and i64 bounds); a step of 0 or below runs no iterations, as
// docs/language.md says, instead of never ending (ctest's timeout on this
// test catches a loop that hangs).
//
//===----------------------------------------------------------------------===//
#include "tile/Tile.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

const char *kSource = R"(
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

template <typename T> void checkType(const char *dtype, uint64_t seed) {
  SCOPED_TRACE(dtype);
  tile::CompileOptions options;
  options.defines["T"] = dtype;
  auto kernel = tile::compileForHost(kSource, "visit.tile", options);
  ASSERT_TRUE(kernel) << kernel.message();
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
  std::string err = (*kernel)->launch(
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
  checkType<int32_t>("i32", 20261206);
  checkType<int64_t>("i64", 20261207);
}

} // namespace
