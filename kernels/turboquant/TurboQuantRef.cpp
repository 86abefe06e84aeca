//===- TurboQuantRef.cpp - TurboQuant cache encoder and f64 reference -----===//
#include "TurboQuantRef.h"

#include "FloatBits.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>

using namespace tile;
using namespace tile::tq;

namespace {

/// Probability mass of N(0, 1) in [a, b], from the tail nearer to the
/// interval so that no digits cancel.
double gaussMass(double a, double b) {
  constexpr double invSqrt2 = 0.70710678118654752440;
  if (a >= 0)
    return 0.5 * (std::erfc(a * invSqrt2) - std::erfc(b * invSqrt2));
  return 0.5 * (std::erfc(-b * invSqrt2) - std::erfc(-a * invSqrt2));
}

double gaussPdf(double x) {
  if (std::isinf(x))
    return 0;
  return std::exp(-0.5 * x * x) * (0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
}

/// `v` as an OCP e4m3fn byte: nearest (ties to even), saturating at +-448.
uint8_t toE4M3Bits(double v) {
  if (std::isnan(v))
    return 0x7f;
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  double a = std::fabs(v);
  if (a == 0)
    return sign;
  if (a >= 448)
    return sign | 0x7e;
  // Three fraction bits; the subnormal spacing 2^-9 below 2^-6.
  int quantumExp = std::max(std::ilogb(a), -6) - 3;
  double scaled = std::ldexp(a, -quantumExp);
  double n = std::floor(scaled);
  double frac = scaled - n;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2) != 0))
    n += 1;
  double r = std::min(std::ldexp(n, quantumExp), 448.0);
  if (r < 0x1p-6)
    return sign | static_cast<uint8_t>(std::ldexp(r, 9));
  int e = std::ilogb(r);
  return sign | static_cast<uint8_t>((e + 7) << 3) | static_cast<uint8_t>(std::ldexp(r, 3 - e) - 8);
}

void packCode(uint8_t *bytes, int bits, int i, int code) {
  for (int b = 0; b < bits; ++b)
    if (code >> b & 1) {
      int pos = bits * i + b;
      bytes[pos >> 3] |= static_cast<uint8_t>(1 << (pos & 7));
    }
}

void putF16(uint8_t *bytes, double v) {
  uint16_t h = test::toF16Bits(v);
  bytes[0] = static_cast<uint8_t>(h & 0xff);
  bytes[1] = static_cast<uint8_t>(h >> 8);
}

double getF16(const uint8_t *bytes) {
  return test::fromF16Bits(static_cast<uint16_t>(bytes[0] | bytes[1] << 8));
}

void encodeKey(const SlotLayout &layout, const std::vector<float> &r,
               const std::vector<float> &codebook, const float *k, uint8_t *out) {
  int d = layout.d;
  if (!layout.mse) {
    for (int i = 0; i < d; ++i)
      out[i] = toE4M3Bits(k[i]);
    return;
  }
  double sumSq = 0;
  for (int i = 0; i < d; ++i)
    sumSq += double(k[i]) * k[i];
  double norm = std::sqrt(sumSq), inv = 1 / (norm + 1e-8);
  std::vector<double> mids(codebook.size() - 1);
  for (size_t c = 0; c + 1 < codebook.size(); ++c)
    mids[c] = (double(codebook[c]) + codebook[c + 1]) / 2;
  for (int i = 0; i < d; ++i) {
    double y = 0;
    for (int j = 0; j < d; ++j)
      y += double(r[size_t(i) * d + j]) * (k[j] * inv);
    auto idx = std::upper_bound(mids.begin(), mids.end(), y) - mids.begin();
    packCode(out, layout.kbits, i, int(idx));
  }
  putF16(out + layout.normOff, norm);
}

void encodeValue(const SlotLayout &layout, const float *v, uint8_t *out) {
  int top = (1 << layout.vbits) - 1;
  auto [lo, hi] = std::minmax_element(v, v + layout.d);
  double vmin = *lo, scale = std::max((double(*hi) - vmin) / top, 1e-8);
  for (int i = 0; i < layout.d; ++i) {
    double q = std::clamp(std::floor((v[i] - vmin) / scale + 0.5), 0.0, double(top));
    packCode(out + layout.vOff, layout.vbits, i, int(q));
  }
  putF16(out + layout.vScaleOff, scale);
  putF16(out + layout.vZeroOff, vmin);
}

void decodeInto(const SlotLayout &layout, const std::vector<float> &codebook, const uint8_t *slot,
                DecodedSlot &out) {
  int d = layout.d;
  out.key.resize(size_t(d));
  out.value.resize(size_t(d));
  out.norm = layout.mse ? getF16(slot + layout.normOff) : 1.0;
  for (int i = 0; i < d; ++i)
    out.key[size_t(i)] = layout.mse ? double(codebook[size_t(unpackCode(slot, layout.kbits, i))])
                                    : test::fromFp8Bits(slot[i], true);
  double scale = getF16(slot + layout.vScaleOff), zero = getF16(slot + layout.vZeroOff);
  for (int i = 0; i < d; ++i)
    out.value[size_t(i)] = unpackCode(slot + layout.vOff, layout.vbits, i) * scale + zero;
}

} // namespace

SlotLayout::SlotLayout(int d, int kbits, int vbits)
    : d(d), kbits(kbits), vbits(vbits), mse(kbits != 8) {
  assert(std::has_single_bit(unsigned(d)) && d >= 8 && d <= 256);
  assert((kbits == 3 || kbits == 4 || kbits == 8) && (vbits == 3 || vbits == 4));
  kb = d * kbits / 8;
  normOff = mse ? kb : 0;
  vOff = kb + (mse ? 2 : 0);
  vb = d * vbits / 8;
  vScaleOff = vOff + vb;
  vZeroOff = vScaleOff + 2;
  slot = vZeroOff + 2 + (vZeroOff & 1);
}

std::vector<double> tq::lloydMaxCodebook(int bits, int d) {
  int levels = 1 << bits;
  std::vector<double> c(static_cast<size_t>(levels)), edge(size_t(levels) + 1);
  for (int i = 0; i < levels; ++i)
    c[size_t(i)] = -3.5 + 7.0 * (i + 0.5) / levels;
  edge.front() = -std::numeric_limits<double>::infinity();
  edge.back() = std::numeric_limits<double>::infinity();
  for (int iter = 0; iter < 100000; ++iter) {
    for (int i = 1; i < levels; ++i)
      edge[size_t(i)] = (c[size_t(i) - 1] + c[size_t(i)]) / 2;
    double delta = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      double mean = (gaussPdf(edge[i]) - gaussPdf(edge[i + 1])) / gaussMass(edge[i], edge[i + 1]);
      delta = std::max(delta, std::fabs(mean - c[i]));
      c[i] = mean;
    }
    if (delta < 1e-13)
      break;
  }
  for (double &x : c)
    x /= std::sqrt(double(d));
  return c;
}

std::vector<float> tq::kernelCodebook(const SlotLayout &layout) {
  std::vector<double> c = lloydMaxCodebook(layout.mse ? layout.kbits : 4, layout.d);
  return std::vector<float>(c.begin(), c.end());
}

std::vector<float> tq::hadamard(int d) {
  auto entry = float(1 / std::sqrt(double(d)));
  std::vector<float> h(size_t(d) * d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      h[size_t(i) * d + j] = std::popcount(unsigned(i & j)) & 1 ? -entry : entry;
  return h;
}

int tq::unpackCode(const uint8_t *bytes, int bits, int i) {
  int pos = bits * i, shift = pos & 7;
  int window = bytes[pos >> 3];
  if (shift + bits > 8)
    window |= bytes[(pos >> 3) + 1] << 8;
  return window >> shift & ((1 << bits) - 1);
}

std::vector<uint8_t> tq::encode(const SlotLayout &layout, const std::vector<float> &r,
                                const std::vector<float> &codebook, const float *k, const float *v,
                                int64_t n) {
  std::vector<uint8_t> slots(size_t(n * layout.slot), 0);
  for (int64_t t = 0; t < n; ++t) {
    uint8_t *out = &slots[size_t(t * layout.slot)];
    encodeKey(layout, r, codebook, k + t * layout.d, out);
    encodeValue(layout, v + t * layout.d, out);
  }
  return slots;
}

DecodedSlot tq::decodeSlot(const SlotLayout &layout, const std::vector<float> &codebook,
                           const uint8_t *slot) {
  DecodedSlot out;
  decodeInto(layout, codebook, slot, out);
  return out;
}

std::vector<double> tq::dequantizeKey(const SlotLayout &layout, const std::vector<float> &r,
                                      const std::vector<float> &codebook, const uint8_t *slot) {
  DecodedSlot s = decodeSlot(layout, codebook, slot);
  if (!layout.mse)
    return s.key;
  int d = layout.d;
  std::vector<double> k(size_t(d), 0);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      k[size_t(j)] += s.norm * double(r[size_t(i) * d + j]) * s.key[size_t(i)];
  return k;
}

SeqAttention tq::referenceAttention(const SlotLayout &layout, const std::vector<float> &r,
                                    const std::vector<float> &codebook, const PagedCache &cache,
                                    int64_t b, const double *q, int64_t hq, double scale) {
  int64_t d = layout.d, hkv = cache.hkv, group = hq / hkv, len = cache.seqLens[b];
  // q' = R q for MSE keys, q itself for fp8 keys.
  std::vector<double> qr(size_t(hq * d), 0);
  for (int64_t h = 0; h < hq; ++h)
    for (int64_t i = 0; i < d; ++i) {
      if (!layout.mse) {
        qr[size_t(h * d + i)] = q[h * d + i];
        continue;
      }
      double sum = 0;
      for (int64_t j = 0; j < d; ++j)
        sum += double(r[size_t(i * d + j)]) * q[h * d + j];
      qr[size_t(h * d + i)] = sum;
    }
  auto slotOf = [&](int64_t j, int64_t kvHead) {
    int64_t block = cache.blockTable[b * cache.btStride + j / cache.blockSize];
    return cache.bytes +
           ((block * cache.blockSize + j % cache.blockSize) * hkv + kvHead) * layout.slot;
  };
  SeqAttention out;
  out.o.assign(size_t(hq * d), 0);
  out.lse.assign(size_t(hq), 0);
  out.vmax.assign(size_t(hq), 0);
  std::vector<double> s(size_t(hq * len)), m(size_t(hq), -std::numeric_limits<double>::infinity());
  DecodedSlot slot;
  for (int64_t j = 0; j < len; ++j)
    for (int64_t kvHead = 0; kvHead < hkv; ++kvHead) {
      decodeInto(layout, codebook, slotOf(j, kvHead), slot);
      double vmax = 0;
      for (double x : slot.value)
        vmax = std::max(vmax, std::fabs(x));
      for (int64_t h = kvHead * group; h < (kvHead + 1) * group; ++h) {
        double dot = 0;
        for (int64_t i = 0; i < d; ++i)
          dot += qr[size_t(h * d + i)] * slot.key[size_t(i)];
        double score = scale * slot.norm * dot;
        s[size_t(h * len + j)] = score;
        m[size_t(h)] = std::max(m[size_t(h)], score);
        out.vmax[size_t(h)] = std::max(out.vmax[size_t(h)], vmax);
      }
    }
  std::vector<double> l(size_t(hq), 0);
  for (int64_t h = 0; h < hq; ++h)
    for (int64_t j = 0; j < len; ++j) {
      double &p = s[size_t(h * len + j)];
      p = std::exp(p - m[size_t(h)]);
      l[size_t(h)] += p;
    }
  for (int64_t j = 0; j < len; ++j)
    for (int64_t kvHead = 0; kvHead < hkv; ++kvHead) {
      decodeInto(layout, codebook, slotOf(j, kvHead), slot);
      for (int64_t h = kvHead * group; h < (kvHead + 1) * group; ++h) {
        double p = s[size_t(h * len + j)] / l[size_t(h)];
        for (int64_t i = 0; i < d; ++i)
          out.o[size_t(h * d + i)] += p * slot.value[size_t(i)];
      }
    }
  for (int64_t h = 0; h < hq; ++h)
    out.lse[size_t(h)] = m[size_t(h)] + std::log(l[size_t(h)]);
  return out;
}
