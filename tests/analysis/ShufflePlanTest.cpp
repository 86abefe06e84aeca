//===- ShufflePlanTest.cpp - planShuffles reads every element it should ---===//
//
// For random pairs of #tile.dist layouts of one tile (32-lane warps, 4
// warps), follows the plan planShuffles gives the way the GPU lowering does
// (moveByShuffles: source register and lane from the result register and the
// thread id) and checks that the source element is the one the result layout
// puts there, for every thread and result register; and that pairs that move
// an element to another warp get no plan. Likewise planTransposes, followed
// the way moveByTransposes and an 8x8 transpose (movmatrix) move elements,
// on layouts made to be transposes of each other (and refused on others).
//
//===----------------------------------------------------------------------===//
#include "tile/Analysis/SharedMemory.h"
#include "tile/Dialect/TileDialect.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace mlir;
using namespace mlir::tileir;

namespace {

constexpr int64_t kLaneBits = 5, kWarpBits = 2;

/// A layout of a tile of 2^bits elements: each index bit in a random
/// register, lane or warp bit (the warp bits `warps` when given); unused lane
/// and warp bits hold copies.
DistributedLayoutAttr randomLayout(MLIRContext *ctx, int64_t bits, std::mt19937_64 &rng,
                                   ArrayRef<int64_t> warps = {}) {
  SmallVector<int64_t> lane(kLaneBits, -1), warp(kWarpBits, -1), reg;
  if (!warps.empty())
    warp.assign(warps.begin(), warps.end());
  SmallVector<int64_t> order;
  for (int64_t i = 0; i < bits; ++i)
    if (!llvm::is_contained(warp, i))
      order.push_back(i);
  std::shuffle(order.begin(), order.end(), rng);
  for (int64_t bit : order) {
    switch (rng() % 3) {
    case 0:
      if (auto free = llvm::find(lane, -1); free != lane.end()) {
        *free = bit;
        continue;
      }
      break;
    case 1:
      if (auto free = llvm::find(warp, -1); free != warp.end()) {
        *free = bit;
        continue;
      }
      break;
    default:
      break;
    }
    reg.push_back(bit);
  }
  std::shuffle(lane.begin(), lane.end(), rng);
  if (warps.empty())
    std::shuffle(warp.begin(), warp.end(), rng);
  return DistributedLayoutAttr::get(ctx, reg, lane, warp);
}

/// The index of the element that register r of thread (lane, warp) holds.
int64_t elementAt(DistributedLayoutAttr layout, int64_t r, int64_t lane, int64_t warp) {
  int64_t index = layout.registerIndex(r);
  for (auto [k, bit] : llvm::enumerate(layout.getLane()))
    if (bit >= 0 && ((lane >> k) & 1))
      index |= int64_t(1) << bit;
  for (auto [k, bit] : llvm::enumerate(layout.getWarp()))
    if (bit >= 0 && ((warp >> k) & 1))
      index |= int64_t(1) << bit;
  return index;
}

/// Whether every thread finds each element of `to` in its own warp under `from`.
bool staysInWarps(DistributedLayoutAttr from, DistributedLayoutAttr to) {
  for (auto [k, bit] : llvm::enumerate(from.getWarp()))
    if (bit >= 0 && to.getWarp()[k] != bit)
      return false;
  return true;
}

/// Checks the plan for every thread and result register; "" when it holds.
std::string checkPlan(const ShufflePlan &plan, DistributedLayoutAttr from,
                      DistributedLayoutAttr to) {
  auto bitOf = [](int64_t v, int64_t pos) { return (v >> pos) & 1; };
  for (int64_t warp = 0; warp < (int64_t(1) << kWarpBits); ++warp)
    for (int64_t lane = 0; lane < (int64_t(1) << kLaneBits); ++lane) {
      int64_t tid = lane | (warp << kLaneBits);
      for (int64_t r = 0; r < to.getNumRegisters(); ++r) {
        int64_t srcLane = 0, srcReg = 0;
        for (auto [k, s] : llvm::enumerate(plan.laneBits)) {
          int64_t b = s.kind == ShuffleBit::Own        ? bitOf(lane, int64_t(k))
                      : s.kind == ShuffleBit::Register ? bitOf(r, s.pos)
                                                       : bitOf(tid, s.pos);
          srcLane |= b << k;
        }
        for (auto [j, s] : llvm::enumerate(plan.regBits)) {
          EXPECT_NE(s.kind, ShuffleBit::Own) << "a register bit read from the lane";
          int64_t b = s.kind == ShuffleBit::Register ? bitOf(r, s.pos) : bitOf(tid, s.pos);
          srcReg |= b << j;
        }
        if (!plan.crossesLanes && srcLane != lane)
          return "reads lane " + std::to_string(srcLane) + " without a shuffle";
        int64_t want = elementAt(to, r, lane, warp);
        int64_t got = elementAt(from, srcReg, srcLane, warp);
        if (got != want)
          return "thread " + std::to_string(tid) + " register " + std::to_string(r) +
                 ": element " + std::to_string(got) + " for " + std::to_string(want);
      }
    }
  return "";
}

TEST(ShufflePlan, ReadsTheRightElements) {
  MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  std::mt19937_64 rng(20261201);
  int planned = 0, crossing = 0, selecting = 0, refused = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    int64_t bits = 3 + int64_t(rng() % 8); // 8 to 1024 elements
    DistributedLayoutAttr from = randomLayout(&ctx, bits, rng);
    // Half the pairs keep the warp bits: conversions within warps.
    DistributedLayoutAttr to =
        rng() % 2 ? randomLayout(&ctx, bits, rng, from.getWarp()) : randomLayout(&ctx, bits, rng);
    std::optional<ShufflePlan> plan = planShuffles(from, to);
    if (!staysInWarps(from, to)) {
      EXPECT_FALSE(plan) << "planned a conversion across warps";
      continue;
    }
    if (!plan) {
      ++refused;
      continue;
    }
    ++planned;
    crossing += plan->crossesLanes;
    selecting += plan->dynamicRegBits > 0;
    std::string why = checkPlan(*plan, from, to);
    ASSERT_EQ(why, "");
  }
  // The random pairs cover each kind of plan.
  EXPECT_GT(planned, 200);
  EXPECT_GT(crossing, 50);
  EXPECT_GT(selecting, 50);
  EXPECT_GT(refused, 50);
}

/// A layout pair related by 8x8 transposes (planTransposes): index bits
/// a0..a2, b0..b2 in the lanes as the transpose wants them, the other
/// bits in registers (in another order on each side) or in warps.
std::pair<DistributedLayoutAttr, DistributedLayoutAttr>
transposedPair(MLIRContext *ctx, std::mt19937_64 &rng) {
  int64_t warpBits = int64_t(rng() % (kWarpBits + 1)), bits = 6 + warpBits + int64_t(rng() % 5);
  SmallVector<int64_t> order;
  for (int64_t i = 0; i < bits; ++i)
    order.push_back(i);
  std::shuffle(order.begin(), order.end(), rng);
  auto [a0, a1, a2, b0, b1, b2] =
      std::make_tuple(order[0], order[1], order[2], order[3], order[4], order[5]);
  SmallVector<int64_t> warp(order.begin() + 6, order.begin() + 6 + warpBits);
  warp.resize(kWarpBits, -1);
  SmallVector<int64_t> rest(order.begin() + 6 + warpBits, order.end());
  SmallVector<int64_t> fromReg(rest), toReg(rest);
  fromReg.push_back(a0);
  toReg.push_back(b0);
  std::shuffle(fromReg.begin(), fromReg.end(), rng);
  std::shuffle(toReg.begin(), toReg.end(), rng);
  return {DistributedLayoutAttr::get(ctx, fromReg, {a1, a2, b0, b1, b2}, warp),
          DistributedLayoutAttr::get(ctx, toReg, {b1, b2, a0, a1, a2}, warp)};
}

TEST(TransposePlan, ReadsTheRightElements) {
  MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  std::mt19937_64 rng(20261202);
  for (int trial = 0; trial < 500; ++trial) {
    auto [from, to] = transposedPair(&ctx, rng);
    std::optional<TransposePlan> plan = planTransposes(from, to);
    ASSERT_TRUE(plan) << "no plan for a transposed pair";
    for (int64_t warp = 0; warp < (int64_t(1) << kWarpBits); ++warp)
      for (int64_t lane = 0; lane < 32; ++lane)
        for (auto [r, s] : llvm::enumerate(plan->source)) {
          if (s < 0)
            continue;
          for (int64_t h = 0; h < 2; ++h) {
            // Half h of lane `lane`'s transposed word: row lane / 4, column
            // 2 (lane % 4) + h of the transpose, held before in half
            // (lane / 4) % 2 of lane 4 (2 (lane % 4) + h) + lane / 8.
            int64_t srcLane = 4 * (2 * (lane % 4) + h) + lane / 8;
            int64_t srcReg = s | (((lane / 4) % 2) << plan->fromBit);
            int64_t want = elementAt(to, int64_t(r) | (h << plan->toBit), lane, warp);
            ASSERT_EQ(elementAt(from, srcReg, srcLane, warp), want)
                << "lane " << lane << " register " << r << " half " << h;
          }
        }
  }
  // Random pairs are transposes of each other only by chance.
  int refused = 0;
  for (int trial = 0; trial < 200; ++trial) {
    int64_t bits = 6 + int64_t(rng() % 5);
    refused += !planTransposes(randomLayout(&ctx, bits, rng), randomLayout(&ctx, bits, rng));
  }
  EXPECT_GT(refused, 190);
}

} // namespace
