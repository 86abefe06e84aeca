//===- FloatBits.h - Exact double <-> f32/f16/bf16 conversions --*- C++ -*-===//
//
// Conversions between float64 and the storage of the kernels' element types,
// rounded to nearest-even exactly from the double (never through float), and
// ulp_T(v), the spacing of a type at |v|, as the accuracy tiers define it.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TEST_FLOATBITS_H
#define TILE_TEST_FLOATBITS_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

namespace tile::test {

enum class Dtype { F32, F16, BF16 };

inline size_t sizeOf(Dtype t) { return t == Dtype::F32 ? 4 : 2; }

inline const char *name(Dtype t) {
  switch (t) {
  case Dtype::F32:
    return "f32";
  case Dtype::F16:
    return "f16";
  case Dtype::BF16:
    return "bf16";
  }
  return "?";
}

inline std::optional<Dtype> parseDtype(std::string_view text) {
  for (Dtype t : {Dtype::F32, Dtype::F16, Dtype::BF16})
    if (text == name(t))
      return t;
  return std::nullopt;
}

/// Significand bits (including the implicit one) and exponent range of a type.
struct FloatFormat {
  int precision;
  int minExp;
  int maxExp;
};

inline FloatFormat formatOf(Dtype t) {
  switch (t) {
  case Dtype::F32:
    return {24, -126, 127};
  case Dtype::F16:
    return {11, -14, 15};
  case Dtype::BF16:
    return {8, -126, 127};
  }
  return {24, -126, 127};
}

/// ulp_T(v): 2^(max(floor(log2 |v|), emin) - (p - 1)); the subnormal spacing
/// at and below the smallest normal, including at zero.
inline double ulp(Dtype t, double v) {
  if (std::isnan(v))
    return v;
  double a = std::fabs(v);
  if (std::isinf(a))
    return a;
  FloatFormat f = formatOf(t);
  int e = a == 0 ? f.minExp : std::max(std::ilogb(a), f.minExp);
  return std::ldexp(1.0, e - (f.precision - 1));
}

/// `v` rounded to the nearest value of `t` (ties to even) in one step;
/// overflow gives +-inf and NaN stays NaN. The result is exact in a double.
inline double roundTo(Dtype t, double v) {
  if (std::isnan(v) || std::isinf(v) || v == 0)
    return v;
  FloatFormat f = formatOf(t);
  double a = std::fabs(v);
  int quantumExp = std::max(std::ilogb(a), f.minExp) - (f.precision - 1);
  // Scaling by a power of two is exact; a is then rounded to an integer.
  double scaled = std::ldexp(a, -quantumExp);
  double n = std::floor(scaled);
  double frac = scaled - n;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2) != 0))
    n += 1;
  double r = std::ldexp(n, quantumExp);
  double maxFinite = std::ldexp(std::ldexp(1.0, f.precision) - 1,
                                f.maxExp - (f.precision - 1));
  if (r > maxFinite)
    r = std::numeric_limits<double>::infinity();
  return std::copysign(r, v);
}

inline float toF32(double v) {
  return static_cast<float>(roundTo(Dtype::F32, v));
}

inline uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

inline float floatFromBits(uint32_t b) {
  float v;
  std::memcpy(&v, &b, 4);
  return v;
}

/// bf16 is the upper half of an f32 with the same exponent range.
inline uint16_t toBF16Bits(double v) {
  if (std::isnan(v))
    return std::signbit(v) ? 0xFFC0 : 0x7FC0;
  return static_cast<uint16_t>(
      bitsOf(static_cast<float>(roundTo(Dtype::BF16, v))) >> 16);
}

inline double fromBF16Bits(uint16_t b) {
  return floatFromBits(static_cast<uint32_t>(b) << 16);
}

inline uint16_t toF16Bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v))
    return sign | 0x7E00;
  double a = std::fabs(roundTo(Dtype::F16, v));
  if (std::isinf(a))
    return sign | 0x7C00;
  if (a < 0x1p-14)
    return sign | static_cast<uint16_t>(std::ldexp(a, 24));
  int e = std::ilogb(a);
  auto mantissa = static_cast<uint16_t>(std::ldexp(a, 10 - e) - 1024);
  return sign | static_cast<uint16_t>((e + 15) << 10) | mantissa;
}

inline double fromF16Bits(uint16_t b) {
  double sign = (b & 0x8000) ? -1.0 : 1.0;
  int exp = (b >> 10) & 0x1F;
  int mantissa = b & 0x3FF;
  if (exp == 0x1F)
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  if (exp == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exp - 25);
}

/// Stores `v` rounded to `t` as element `i` of a buffer of `t`.
/// The value of an OCP fp8 byte: e4m3fn (bias 7, 0x7f/0xff NaN, no
/// infinities) or e5m2 (bias 15, IEEE-like infinities and NaNs).
inline double fromFp8Bits(uint8_t b, bool e4m3) {
  int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  int e = (b & 0x7f) >> mbits, m = b & ((1 << mbits) - 1);
  double sign = b >> 7 ? -1.0 : 1.0;
  if (e4m3 && (b & 0x7f) == 0x7f)
    return std::nan("");
  if (!e4m3 && e == 31)
    return m ? std::nan("") : sign * INFINITY;
  if (e == 0)
    return sign * std::ldexp(double(m), 1 - bias - mbits);
  return sign * std::ldexp(1.0 + double(m) / (1 << mbits), e - bias);
}

inline void storeAs(Dtype t, void *buf, size_t i, double v) {
  auto *bytes = static_cast<unsigned char *>(buf) + i * sizeOf(t);
  if (t == Dtype::F32) {
    float f = toF32(v);
    std::memcpy(bytes, &f, 4);
    return;
  }
  uint16_t b = t == Dtype::F16 ? toF16Bits(v) : toBF16Bits(v);
  std::memcpy(bytes, &b, 2);
}

/// Element `i` of a buffer of `t`, exactly, as a double.
inline double loadAs(Dtype t, const void *buf, size_t i) {
  const auto *bytes = static_cast<const unsigned char *>(buf) + i * sizeOf(t);
  if (t == Dtype::F32) {
    float f;
    std::memcpy(&f, bytes, 4);
    return f;
  }
  uint16_t b;
  std::memcpy(&b, bytes, 2);
  return t == Dtype::F16 ? fromF16Bits(b) : fromBF16Bits(b);
}

} // namespace tile::test

#endif // TILE_TEST_FLOATBITS_H
