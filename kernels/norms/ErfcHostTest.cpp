//===- ErfcHostTest.cpp - erfc's expansion over a dense sweep of f32 ------===//
//
// tile-expand-math's erfc (the cancellation-free core of rms_norm_gelu),
// compiled for the host, against std::erfc in double: every 97th f32 from 0
// up to where erfc underflows, both signs, plus the special values. Then
// gelu exactly as rms_norm_gelu forms it from its f32 product z,
// 0.5 * z * erfc(z * -1/sqrt 2), against the f32-output terms of tier A
// (README.md, "f32 outputs"): 2 ulp(ref) + |gelu'(z)| 4 ulp(z) + 4 ulp(gelu).
// The host takes the portable power of two; NVPTX's ex2.approx is checked
// by norm-gpu on the GPU.
//
//===----------------------------------------------------------------------===//

#include "NormReference.h"
#include "tile/Tile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

namespace tile::norms {
namespace {

using test::Dtype;
using test::ulp;

const char *kSource = R"(
kernel erfc_f32<BLOCK: int = 1024>(x: ptr<f32>, y: ptr<f32>, n: i32) {
  let c = program_id(0) * BLOCK + arange(0, BLOCK);
  store(y + c, erfc(load(x + c, mask=c < n, other=0)), mask=c < n);
}

kernel gelu_f32<BLOCK: int = 1024>(z: ptr<f32>, y: ptr<f32>, n: i32) {
  let c = program_id(0) * BLOCK + arange(0, BLOCK);
  let v = load(z + c, mask=c < n, other=0);
  store(y + c, 0.5 * v * erfc(v * -0.70710678118654752), mask=c < n);
}
)";

float fromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

/// Every `step`-th non-negative f32 up to `hi`, each with both signs.
std::vector<float> sweep(float hi, uint32_t step) {
  std::vector<float> v;
  for (uint64_t b = 0; b <= bitsOf(hi); b += step) {
    v.push_back(fromBits(uint32_t(b)));
    v.push_back(-fromBits(uint32_t(b)));
  }
  return v;
}

std::vector<float> run(const char *kernel, const std::vector<float> &in) {
  CompileOptions options;
  options.kernel = kernel;
  auto k = compileForHost(kSource, "erfc.tile", options);
  EXPECT_TRUE(bool(k)) << k.message();
  std::vector<float> out(in.size(), std::numeric_limits<float>::quiet_NaN());
  if (!k)
    return out;
  int64_t n = int64_t(in.size());
  std::string err = (*k)->launch({uint32_t((n + 1023) / 1024), 1, 1},
                                 {Arg::pointer(in.data()), Arg::pointer(out.data()),
                                  Arg::integer(n)});
  EXPECT_EQ(err, "");
  return out;
}

/// Allowed error of erfc(x) in ulp_f32(erfc(x)): what the expansion was
/// designed to (ExpandMath.cpp), a little above what it measures. From
/// 0.75 on, the rounding of x^2 inside the exponent adds ~x^2 ulp.
double allowedUlps(double x) {
  if (std::fabs(x) < 0.75)
    return 3;
  if (x < 0)
    return 2;
  return 6 + 2 * x * x;
}

TEST(Erfc, DenseSweepAgainstDouble) {
  std::vector<float> x = sweep(10.1f, 97);
  for (float s : {0.0f, -0.0f, 1e-30f, 10.0546875f, 10.06f, 12.0f, 1e30f,
                  std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()}) {
    x.push_back(s);
    x.push_back(-s);
  }
  std::vector<float> y = run("erfc_f32", x);
  // Worst error per range of x, in ulp_f32 of erfc(x) in double.
  const double edges[] = {0.75, 2, 4, 11, std::numeric_limits<double>::infinity()};
  double worst[5] = {}, negative = 0;
  int failures = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double ref = std::erfc(double(x[i]));
    double e = std::fabs(double(y[i]) - ref) / ulp(Dtype::F32, ref);
    if (!(e <= allowedUlps(x[i])) && failures++ < 10)
      ADD_FAILURE() << "erfc(" << x[i] << ") = " << y[i] << ", want " << ref << " (" << e
                    << " ulp)";
    if (x[i] < 0) {
      negative = std::max(negative, e);
      continue;
    }
    int r = 0;
    while (r < 4 && double(x[i]) >= edges[r])
      ++r;
    worst[r] = std::max(worst[r], e);
  }
  EXPECT_EQ(failures, 0);
  std::printf("erfc, max ulp_f32 over %zu inputs: [0, 0.75) %.2f, [0.75, 2) %.2f, [2, 4) %.2f, "
              "[4, 11) %.2f, x < 0 %.2f\n",
              x.size(), worst[0], worst[1], worst[2], worst[3], negative);
  EXPECT_TRUE(std::isnan(run("erfc_f32", {std::numeric_limits<float>::quiet_NaN()})[0]));
}

TEST(Erfc, GeluWithinTierAForF32) {
  std::vector<float> z = sweep(20.0f, 97);
  std::vector<float> y = run("gelu_f32", z);
  double worst = 0, worstZ = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    double g = gelu(z[i]);
    double ref = double(float(g));
    double bound = 2 * ulp(Dtype::F32, ref) + std::fabs(geluSlope(z[i])) * 4 * ulp(Dtype::F32, z[i]) +
                   4 * ulp(Dtype::F32, g);
    double r = std::fabs(double(y[i]) - ref) / bound;
    if (!(r <= worst))
      worst = r, worstZ = z[i];
  }
  std::printf("gelu f32: max error / bound %.3f (z = %g) over %zu inputs\n", worst, worstZ,
              z.size());
  EXPECT_LE(worst, 1.0) << "at z = " << worstZ;
}

} // namespace
} // namespace tile::norms
