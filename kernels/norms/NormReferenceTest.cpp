//===- NormReferenceTest.cpp - FloatBits and the norm references ---------===//

#include "NormReference.h"
#include "FloatBits.h"
#include "NormCheck.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace tile::test;
using namespace tile::norms;

namespace {

TEST(FloatBits, Names) {
  for (Dtype t : {Dtype::F32, Dtype::F16, Dtype::BF16})
    EXPECT_EQ(parseDtype(name(t)), t);
  EXPECT_FALSE(parseDtype("f64"));
  EXPECT_EQ(sizeOf(Dtype::F32), 4u);
  EXPECT_EQ(sizeOf(Dtype::F16), 2u);
  EXPECT_EQ(sizeOf(Dtype::BF16), 2u);
}

TEST(FloatBits, BF16TiesToEven) {
  EXPECT_EQ(toBF16Bits(1 + 0x1p-8), 0x3F80);
  EXPECT_EQ(toBF16Bits(1 + 3 * 0x1p-8), 0x3F82);
  EXPECT_EQ(toBF16Bits(-(1 + 0x1p-8)), 0xBF80);
  EXPECT_EQ(toBF16Bits(1 + 0x1p-8 + 0x1p-40), 0x3F81);
}

TEST(FloatBits, BF16RoundsOnceFromDouble) {
  double v = 1 + 0x1p-8 + 0x1p-30;
  // Through float this becomes the tie 1 + 2^-8 and then rounds down.
  ASSERT_EQ(static_cast<double>(static_cast<float>(v)), 1 + 0x1p-8);
  EXPECT_EQ(toBF16Bits(v), 0x3F81);
}

TEST(FloatBits, F16TiesToEven) {
  EXPECT_EQ(toF16Bits(1 + 0x1p-11), 0x3C00);
  EXPECT_EQ(toF16Bits(1 + 3 * 0x1p-11), 0x3C02);
  EXPECT_EQ(toF16Bits(1 + 0x1p-11 + 0x1p-40), 0x3C01);
  EXPECT_EQ(toF16Bits(-(1 + 3 * 0x1p-11)), 0xBC02);
}

TEST(FloatBits, Subnormals) {
  EXPECT_EQ(toF16Bits(0x1p-24), 0x0001);
  EXPECT_EQ(toF16Bits(0x1p-25), 0x0000);
  EXPECT_EQ(toF16Bits(0x1p-25 + 0x1p-60), 0x0001);
  EXPECT_EQ(toF16Bits(3 * 0x1p-25), 0x0002);
  EXPECT_EQ(toF16Bits(0x1p-14 - 0x1p-25), 0x0400);
  EXPECT_EQ(toF16Bits(-0x1p-26), 0x8000);
  EXPECT_EQ(fromF16Bits(0x03FF), 1023 * 0x1p-24);
  EXPECT_EQ(toBF16Bits(0x1p-133), 0x0001);
  EXPECT_EQ(toBF16Bits(0x1p-134), 0x0000);
  EXPECT_EQ(toBF16Bits(3 * 0x1p-134), 0x0002);
  EXPECT_EQ(toBF16Bits(0x1p-126), 0x0080);
  EXPECT_EQ(fromBF16Bits(0x007F), 127 * 0x1p-133);
  EXPECT_EQ(toF32(0x1p-150), 0.0f);
  EXPECT_EQ(toF32(0x1p-150 + 0x1p-200), 0x1p-149f);
}

TEST(FloatBits, Overflow) {
  EXPECT_EQ(toF16Bits(65504), 0x7BFF);
  EXPECT_EQ(toF16Bits(65519.99), 0x7BFF);
  EXPECT_EQ(toF16Bits(65520), 0x7C00);
  EXPECT_EQ(toF16Bits(-65520), 0xFC00);
  EXPECT_EQ(toF16Bits(1e300), 0x7C00);
  EXPECT_EQ(toF16Bits(-INFINITY), 0xFC00);
  double bf16Max = (2 - 0x1p-7) * 0x1p127;
  EXPECT_EQ(fromBF16Bits(0x7F7F), bf16Max);
  EXPECT_EQ(toBF16Bits((2 - 0x1p-8) * 0x1p127), 0x7F80);
  EXPECT_EQ(toBF16Bits((2 - 0x1p-8 - 0x1p-20) * 0x1p127), 0x7F7F);
  EXPECT_EQ(toBF16Bits(-1e39), 0xFF80);
  EXPECT_TRUE(std::isinf(toF32((2 - 0x1p-24) * 0x1p127)));
  EXPECT_EQ(toF32((2 - 0x1p-24 - 0x1p-40) * 0x1p127), 0x1.fffffep127f);
}

TEST(FloatBits, NaN) {
  uint16_t b = toBF16Bits(NAN);
  EXPECT_EQ(b & 0x7F80, 0x7F80);
  EXPECT_NE(b & 0x7F, 0);
  uint16_t h = toF16Bits(NAN);
  EXPECT_EQ(h & 0x7C00, 0x7C00);
  EXPECT_NE(h & 0x3FF, 0);
  EXPECT_TRUE(std::isnan(roundTo(Dtype::F16, NAN)));
  unsigned char poison[4];
  std::memset(poison, 0xFF, sizeof(poison));
  for (Dtype t : {Dtype::F32, Dtype::F16, Dtype::BF16})
    EXPECT_TRUE(std::isnan(loadAs(t, poison, 0))) << name(t);
}

TEST(FloatBits, RoundTripsEveryFinitePattern) {
  for (uint32_t i = 0; i < 65536; ++i) {
    auto b = static_cast<uint16_t>(i);
    double h = fromF16Bits(b);
    if (std::isfinite(h)) {
      EXPECT_EQ(toF16Bits(h), b) << std::hex << b;
      EXPECT_EQ(roundTo(Dtype::F16, h), h);
    }
    double bf = fromBF16Bits(b);
    if (std::isfinite(bf)) {
      EXPECT_EQ(toBF16Bits(bf), b) << std::hex << b;
      EXPECT_EQ(roundTo(Dtype::BF16, bf), bf);
    }
  }
}

/// `r` = round(v) is at least as near to v as both neighbours of r, and an
/// exact tie picks the even significand.
void expectNearest(Dtype t, double v) {
  uint16_t b = t == Dtype::F16 ? toF16Bits(v) : toBF16Bits(v);
  auto decode = [&](uint16_t x) {
    return t == Dtype::F16 ? fromF16Bits(x) : fromBF16Bits(x);
  };
  double r = decode(b);
  if (std::isinf(r))
    return;
  double err = std::fabs(v - r);
  for (int step : {-1, 1}) {
    auto nb = static_cast<uint16_t>(b + step);
    if ((nb & 0x7FFF) == 0x7FFF || (b & 0x7FFF) == 0)
      continue;
    double other = std::fabs(v - decode(nb));
    ASSERT_LE(err, other) << name(t) << " " << v;
    if (err == other) {
      ASSERT_EQ(b & 1, 0) << name(t) << " tie at " << v;
    }
  }
}

TEST(FloatBits, RoundsToNearestEven) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> mant(1, 2);
  std::uniform_int_distribution<int> exp(-26, 16);
  for (int i = 0; i < 200000; ++i) {
    double v = std::ldexp(mant(gen), exp(gen)) * (i % 2 ? -1 : 1);
    expectNearest(Dtype::F16, v);
    expectNearest(Dtype::BF16, v);
    // Ties on the grid of the next finer spacing.
    double u = ulp(Dtype::F16, v);
    expectNearest(Dtype::F16, std::round(v / u * 2) * u / 2);
    u = ulp(Dtype::BF16, v);
    expectNearest(Dtype::BF16, std::round(v / u * 2) * u / 2);
#ifdef __FLT16_MAX__
    _Float16 f = static_cast<_Float16>(v);
    uint16_t bits;
    std::memcpy(&bits, &f, 2);
    ASSERT_EQ(toF16Bits(v), bits) << v;
#endif
  }
}

TEST(FloatBits, Ulp) {
  EXPECT_EQ(ulp(Dtype::BF16, 1.0), 0x1p-7);
  EXPECT_EQ(ulp(Dtype::BF16, 1.99), 0x1p-7);
  EXPECT_EQ(ulp(Dtype::BF16, -3.0), 0x1p-6);
  EXPECT_EQ(ulp(Dtype::F16, 1.0), 0x1p-10);
  EXPECT_EQ(ulp(Dtype::F16, 0.0), 0x1p-24);
  EXPECT_EQ(ulp(Dtype::F16, 0x1p-20), 0x1p-24);
  EXPECT_EQ(ulp(Dtype::F16, 0x1p-14), 0x1p-24);
  EXPECT_EQ(ulp(Dtype::F16, 0x1p-13), 0x1p-23);
  EXPECT_EQ(ulp(Dtype::F32, 1.0), 0x1p-23);
  EXPECT_EQ(ulp(Dtype::F32, 0.0), 0x1p-149);
  EXPECT_EQ(ulp(Dtype::BF16, 1e-45), 0x1p-133);
}

TEST(NormReference, ConstantRow) {
  constexpr int64_t n = 64;
  constexpr double eps = 1e-6;
  std::vector<double> w(n, 1.5);
  for (double c : {3.0, -3.0}) {
    std::vector<double> x(n, c);
    // c * r = 1 - 5.6e-8: 1 in bf16 and f16.
    for (Dtype t : {Dtype::BF16, Dtype::F16}) {
      RefOutput y = rmsNormRef(t, x, w, 1, n, eps);
      double u = t == Dtype::BF16 ? 0x1p-7 : 0x1p-10;
      for (int64_t j = 0; j < n; ++j) {
        EXPECT_EQ(y.value[j], std::copysign(1.5, c));
        EXPECT_EQ(y.bound[j], 2 * u + 1.5 * u);
      }
    }
    // In f32 h = 1 - 2^-24, and 1.5 h rounds to 1.5 - 2^-23. The f32 bound
    // adds |w| |x| dr for the kernel's f32 sum of squares S = 576.
    RefOutput y = rmsNormRef(Dtype::F32, x, w, 1, n, eps);
    EXPECT_EQ(y.value[0], std::copysign(1.5 - 0x1p-23, c));
    double r = 1 / std::sqrt(9 + eps);
    double dr = r * n * 0x1p-24 * 576 / (2 * (576 + n * eps));
    EXPECT_DOUBLE_EQ(y.bound[0], 2 * 0x1p-23 + 1.5 * 0x1p-24 + 1.5 * 3 * dr);
  }
}

TEST(NormReference, TwoRowsAreIndependent) {
  std::vector<double> x = {1, 2, 3, -4, 100, 100, 100, 100};
  std::vector<double> w = {1.25, -0.5, 0.75, 1.75};
  RefOutput both = rmsNormRef(Dtype::BF16, x, w, 2, 4, 1e-6);
  std::vector<double> second(x.begin() + 4, x.end());
  RefOutput one = rmsNormRef(Dtype::BF16, second, w, 1, 4, 1e-6);
  for (int j = 0; j < 4; ++j)
    EXPECT_EQ(both.value[4 + j], one.value[j]);
  EXPECT_EQ(one.value[0], 1.25);
  EXPECT_EQ(one.value[1], -0.5);
}

TEST(NormReference, Gelu) {
  // gelu(1.5) = 1.5 Phi(1.5) = 1.39978920...
  EXPECT_NEAR(gelu(1.5), 1.3997892, 1e-7);
  // The negative tail without cancellation: gelu(-10) = -10 Phi(-10).
  EXPECT_NEAR(gelu(-10) / -7.6198530241605e-23, 1, 1e-12);
  for (double z : {-6.0, -2.5, -0.3, 0.0, 0.7, 3.0}) {
    double d = 1e-6;
    double slope = (gelu(z + d) - gelu(z - d)) / (2 * d);
    EXPECT_NEAR(geluSlope(z), slope, 1e-8) << z;
  }

  constexpr int64_t n = 16;
  std::vector<double> x(n, 2.0), w(n, 1.5);
  RefOutput bf = rmsNormGeluRef(Dtype::BF16, x, w, 1, n, 1e-6);
  EXPECT_EQ(bf.value[0], 179 * 0x1p-7);
  RefOutput h = rmsNormGeluRef(Dtype::F16, x, w, 1, n, 1e-6);
  EXPECT_EQ(h.value[0], 1433 * 0x1p-10);
  EXPECT_DOUBLE_EQ(h.bound[0], 2 * 0x1p-10 + 1.5 * geluSlope(1.5) * 0x1p-10);

  // f32 adds the sum of squares' term and 4 ulp_f32 of gelu's input and
  // output; h = T(2 r) = 1 - 2^-23 here, so z = 1.5 - 1.5 * 2^-23.
  RefOutput f = rmsNormGeluRef(Dtype::F32, x, w, 1, n, 1e-6);
  double z = 1.5 - 1.5 * 0x1p-23;
  double slope = geluSlope(z);
  double r = 1 / std::sqrt(4 + 1e-6);
  double dr = r * n * 0x1p-24 * (4 * n) / (2 * (4 * n + n * 1e-6));
  double plain = 2 * 0x1p-23 + 1.5 * slope * 0x1p-24;
  double internals = 1.5 * slope * 2 * dr + slope * 4 * 0x1p-23 + 4 * 0x1p-23;
  EXPECT_DOUBLE_EQ(f.bound[0], plain + internals);
}

TEST(NormReference, FusedAdd) {
  std::vector<double> x = {1, -2, 0.5, 3}, w = {1.5, 1.5, 1.5, 1.5};
  std::vector<double> neg = {-1, 2, -0.5, -3};
  FusedAddRef zero = fusedAddRmsNormRef(Dtype::F16, x, neg, w, 1, 4, 1e-6);
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(zero.res.value[j], 0);
    EXPECT_EQ(zero.res.bound[j], 2 * 0x1p-24);
    EXPECT_EQ(zero.x.value[j], 0);
  }
  FusedAddRef twice = fusedAddRmsNormRef(Dtype::BF16, x, x, w, 1, 4, 1e-6);
  RefOutput direct = rmsNormRef(Dtype::BF16, {2, -4, 1, 6}, w, 1, 4, 1e-6);
  EXPECT_EQ(twice.res.value, (std::vector<double>{2, -4, 1, 6}));
  EXPECT_EQ(twice.x.value, direct.value);
  EXPECT_EQ(twice.x.bound, direct.bound);
}

TEST(NormReference, EmbedSumOfOneRepeatedRow) {
  constexpr int64_t n = 8, k = 5, v = 3;
  std::vector<double> table(v * n), w(n);
  for (int64_t i = 0; i < v * n; ++i)
    table[i] = roundTo(Dtype::BF16, std::sin(i + 1.0));
  for (int64_t j = 0; j < n; ++j)
    w[j] = roundTo(Dtype::BF16, 0.3 * j - 1.1);
  std::vector<int32_t> ids(k, 2);
  RefOutput y = embedSumRmsNormRef(Dtype::BF16, ids, table, w, 1, k, n, 1e-6);
  std::vector<double> x(n);
  double sumSq = 0;
  for (int64_t j = 0; j < n; ++j) {
    x[j] = k * table[2 * n + j];
    sumSq += x[j] * x[j];
  }
  RefOutput direct = rmsNormRef(Dtype::BF16, x, w, 1, n, 1e-6);
  double r = 1 / std::sqrt(sumSq / n + 1e-6);
  for (int64_t j = 0; j < n; ++j) {
    EXPECT_EQ(y.value[j], direct.value[j]);
    double extra = std::fabs(w[j]) * r * k * 0x1p-24 * std::fabs(x[j]);
    EXPECT_DOUBLE_EQ(y.bound[j], direct.bound[j] + extra);
  }
}

TEST(NormCheck, EmbedIds) {
  std::vector<int32_t> ids = {0, 1, 99, 2, 96, 500};
  EXPECT_EQ(checkEmbedIds(ids.data(), 2, 2, 3, 97), "");
  ids[4] = 97;
  EXPECT_EQ(checkEmbedIds(ids.data(), 2, 2, 3, 97),
            "embed_sum_rms_norm: ids[1][1] = 97 is outside the table's rows "
            "[0, 97)");
  ids[3] = -1;
  EXPECT_NE(checkEmbedIds(ids.data(), 2, 2, 3, 97).find("ids[1][0] = -1"),
            std::string::npos);
}

} // namespace
