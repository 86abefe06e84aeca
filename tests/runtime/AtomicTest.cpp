//===- AtomicTest.cpp - atomic_add on the host target ----------------------===//
//
// atomic_add is one read-modify-write per program: on the host, programs run
// on several threads at once, so the old values the programs get must be a
// permutation of 0 .. N-1, and the program that sees N - 1 (the last to
// arrive) must see every other program's partial sum (stored before its add).
//
//===----------------------------------------------------------------------===//
#include "tile/Tile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace {

const char *kSource = R"(
kernel total<BLOCK: int = 64>(x: ptr<f32>, partial: ptr<f32>, order: ptr<i32>,
                              arrivals: ptr<i32>, out: ptr<f32>) {
  let p = program_id(0);
  store(partial + p, sum(load(x + p * BLOCK + arange(0, BLOCK)), 0));
  let before = atomic_add(arrivals, 1);
  store(order + p, before);
  if before == num_programs(0) - 1 {
    let all = zeros([BLOCK], f32);
    for i in range(0, num_programs(0), BLOCK) {
      let j = i + arange(0, BLOCK);
      all = all + load(partial + j, mask=j < num_programs(0), other=0);
    }
    store(out, sum(all, 0));
    store(arrivals, 0);
  }
}
)";

TEST(AtomicAdd, LastProgramSeesEveryPartialOnHostThreads) {
  auto kernel = tile::compileForHost(kSource, "total.tile", tile::CompileOptions());
  ASSERT_TRUE(kernel) << kernel.message();
  const int programs = 999, block = 64;
  std::mt19937 rng(20261202);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> x(size_t(programs * block));
  for (float &v : x)
    v = dist(rng);
  double want = 0;
  for (int p = 0; p < programs; ++p) {
    float partial = 0;
    for (int i = 0; i < block; ++i)
      partial += x[size_t(p * block + i)];
    want += partial;
  }
  int32_t arrivals = 0;
  for (int run = 0; run < 3; ++run) { // the last program resets the count
    std::vector<float> partial(programs, std::nanf("")), out(1, std::nanf(""));
    std::vector<int32_t> order(programs, -1);
    std::string err = (*kernel)->launch(
        {uint32_t(programs), 1, 1},
        {tile::Arg::pointer(x.data()), tile::Arg::pointer(partial.data()),
         tile::Arg::pointer(order.data()), tile::Arg::pointer(&arrivals),
         tile::Arg::pointer(out.data())});
    ASSERT_TRUE(err.empty()) << err;
    std::vector<int32_t> sorted = order, expected(programs);
    std::sort(sorted.begin(), sorted.end());
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(sorted, expected) << "run " << run;
    EXPECT_EQ(arrivals, 0) << "run " << run;
    EXPECT_NEAR(out[0], want, 1e-3 * std::sqrt(double(programs * block))) << "run " << run;
  }
}

} // namespace
