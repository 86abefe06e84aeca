//===- LayoutCases.cpp - the layout kernels' variants, cases and checks ---===//
#include "LayoutCases.h"

#include "FloatBits.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

using namespace tile;
using namespace tile::layouts;

namespace {

int64_t define(const LayoutVariant &v, const char *name) { return std::stoll(v.defines.at(name)); }

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::vector<float> randomVector(size_t n, std::mt19937_64 &rng, float scale) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

std::vector<float> poisoned(size_t n) {
  return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN());
}

/// "" when |got - want| <= tol for every element (NaN never passes).
std::string compare(const char *what, const std::vector<float> &got,
                    const std::vector<double> &want, const std::vector<double> &tol) {
  for (size_t i = 0; i < got.size(); ++i) {
    double err = std::fabs(double(got[i]) - want[i]);
    if (err <= tol[i])
      continue;
    std::ostringstream os;
    os << what << "[" << i << "] = " << got[i] << ", expected " << want[i] << " (tolerance "
       << tol[i] << ")";
    return os.str();
  }
  return "";
}

Arg ptr(const std::vector<float> &v) { return Arg::pointer(v.data()); }
size_t bytes(const std::vector<float> &v) { return v.size() * sizeof(float); }

std::string softmaxRows(const LayoutVariant &v, const norms::Launcher &launch, int64_t M,
                        int64_t N, std::mt19937_64 &rng) {
  auto x = randomVector(size_t(M * N), rng, 3.0f);
  auto y = poisoned(x.size());
  uint32_t grid = uint32_t(cdiv(M, define(v, "BM")));
  std::string err = launch({grid, 1, 1}, {ptr(x), ptr(y), Arg::integer(M), Arg::integer(N)},
                           {bytes(x), bytes(y), 0, 0});
  if (!err.empty())
    return err;
  std::vector<double> want(y.size()), tol(y.size());
  for (int64_t m = 0; m < M; ++m) {
    double mx = -INFINITY, sum = 0;
    for (int64_t n = 0; n < N; ++n)
      mx = std::max(mx, double(x[m * N + n]));
    for (int64_t n = 0; n < N; ++n)
      sum += std::exp(double(x[m * N + n]) - mx);
    for (int64_t n = 0; n < N; ++n) {
      want[m * N + n] = std::exp(double(x[m * N + n]) - mx) / sum;
      tol[m * N + n] = 2e-5 * want[m * N + n] + 1e-30;
    }
  }
  return compare("y", y, want, tol);
}

std::string colSums(const LayoutVariant &v, const norms::Launcher &launch, int64_t M, int64_t N,
                    std::mt19937_64 &rng) {
  auto x = randomVector(size_t(M * N), rng, 1.0f);
  auto out = poisoned(size_t(N));
  uint32_t grid = uint32_t(cdiv(N, define(v, "BN")));
  std::string err = launch({grid, 1, 1}, {ptr(x), ptr(out), Arg::integer(M), Arg::integer(N)},
                           {bytes(x), bytes(out), 0, 0});
  if (!err.empty())
    return err;
  std::vector<double> want(out.size()), tol(out.size());
  for (int64_t n = 0; n < N; ++n) {
    double sum = 0, abs = 0;
    for (int64_t m = 0; m < M; ++m) {
      double term = double(x[m * N + n]) * double(m + 1);
      sum += term;
      abs += std::fabs(term);
    }
    want[n] = sum;
    tol[n] = 1e-5 * abs;
  }
  return compare("out", out, want, tol);
}

std::string transposeStats(const LayoutVariant &v, const norms::Launcher &launch, int64_t M,
                           int64_t N, std::mt19937_64 &rng) {
  int64_t b = define(v, "B"), gm = cdiv(M, b), gn = cdiv(N, b);
  auto x = randomVector(size_t(M * N), rng, 1.0f);
  auto y = poisoned(x.size()), rmax = poisoned(size_t(gn * M)), cmin = poisoned(size_t(gm * N));
  std::string err =
      launch({uint32_t(gm), uint32_t(gn), 1},
             {ptr(x), ptr(y), ptr(rmax), ptr(cmin), Arg::integer(M), Arg::integer(N)},
             {bytes(x), bytes(y), bytes(rmax), bytes(cmin), 0, 0});
  if (!err.empty())
    return err;
  // Elements of a block outside the matrix count as 0.
  auto at = [&](int64_t m, int64_t n) { return m < M && n < N ? double(x[m * N + n]) : 0.0; };
  std::vector<double> wy(y.size()), wr(rmax.size()), wc(cmin.size());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      wy[n * M + m] = at(m, n);
  for (int64_t j = 0; j < gn; ++j)
    for (int64_t m = 0; m < M; ++m) {
      double mx = -INFINITY;
      for (int64_t n = j * b; n < (j + 1) * b; ++n)
        mx = std::max(mx, at(m, n));
      wr[j * M + m] = mx;
    }
  for (int64_t i = 0; i < gm; ++i)
    for (int64_t n = 0; n < N; ++n) {
      double mn = INFINITY;
      for (int64_t m = i * b; m < (i + 1) * b; ++m)
        mn = std::min(mn, at(m, n));
      wc[i * N + n] = mn;
    }
  std::string result = compare("y", y, wy, std::vector<double>(wy.size(), 0.0));
  if (result.empty())
    result = compare("rmax", rmax, wr, std::vector<double>(wr.size(), 0.0));
  if (result.empty())
    result = compare("cmin", cmin, wc, std::vector<double>(wc.size(), 0.0));
  return result;
}

std::string wideRows(const LayoutVariant &v, const norms::Launcher &launch, int64_t M,
                     std::mt19937_64 &rng) {
  // |x| < 2^20: x * 8 + c is exact in f32.
  std::uniform_int_distribution<int32_t> dist(-(1 << 20) + 1, (1 << 20) - 1);
  std::vector<int32_t> x(static_cast<size_t>(M));
  for (int32_t &e : x)
    e = dist(rng);
  auto y = poisoned(size_t(M * 8));
  uint32_t grid = uint32_t(cdiv(M, define(v, "B")));
  std::string err = launch({grid, 1, 1}, {Arg::pointer(x.data()), ptr(y), Arg::integer(M)},
                           {x.size() * sizeof(int32_t), bytes(y), 0});
  if (!err.empty())
    return err;
  std::vector<double> want(y.size());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t c = 0; c < 8; ++c)
      want[m * 8 + c] = double(x[m]) * 8 + double(c);
  return compare("y", y, want, std::vector<double>(want.size(), 0.0));
}

/// rank6: M programs, each a [2, 4, 2, R, 2, 4] tile of x (the kernel's
/// comment); y bit for bit (one subtraction and one product, rounded as the
/// kernel rounds them), s within the f32 sum's error bound.
std::string rank6(const LayoutVariant &v, const norms::Launcher &launch, int64_t M,
                  std::mt19937_64 &rng) {
  const int64_t R = define(v, "R"), per = 128 * R;
  auto x = randomVector(size_t(M * per), rng, 2.0f);
  auto y = poisoned(x.size()), s = poisoned(size_t(M * 128));
  std::string err = launch({uint32_t(M), 1, 1}, {ptr(x), ptr(y), ptr(s)},
                           {bytes(x), bytes(y), bytes(s)});
  if (!err.empty())
    return err;
  std::vector<double> wantY(y.size()), wantS(s.size()), tolS(s.size());
  for (int64_t p = 0; p < M; ++p)
    for (int64_t abc = 0; abc < 16; ++abc)
      for (int64_t ef = 0; ef < 8; ++ef) {
        auto at = [&](int64_t d) { return size_t(p * per + (abc * R + d) * 8 + ef); };
        float mx = x[at(0)];
        for (int64_t d = 1; d < R; ++d)
          mx = std::max(mx, x[at(d)]);
        double sum = 0, mag = 0;
        for (int64_t d = 0; d < R; ++d) {
          float w = x[at(d)] - mx;
          wantY[at(d)] = double(w * float(d + 1));
          sum += double(w);
          mag += std::fabs(double(w));
        }
        wantS[size_t(p * 128 + abc * 8 + ef)] = sum;
        tolS[size_t(p * 128 + abc * 8 + ef)] = double(R) * 0x1p-23 * mag;
      }
  std::string result = compare("y", y, wantY, std::vector<double>(wantY.size(), 0.0));
  return result.empty() ? compare("s", s, wantS, tolS) : result;
}

/// A random finite fp8 byte of magnitude at most 2^4 (no NaN or infinity).
uint8_t randomFp8(std::mt19937_64 &rng, bool e4m3) {
  for (;;) {
    auto b = uint8_t(rng());
    if (std::fabs(test::fromFp8Bits(b, e4m3)) <= 16.0 && std::isfinite(test::fromFp8Bits(b, e4m3)) &&
        !(e4m3 && (b & 0x7f) == 0x7f) && !(!e4m3 && ((b >> 2) & 31) == 31))
      return b;
  }
}

/// A matmul operand of element type T ("f16", "bf16", "f8e4m3" or "f8e5m2").
struct Operands {
  std::vector<uint8_t> bytes; // the data as the kernel reads it
  std::vector<double> values; // what each element is
};

Operands randomOperand(const std::string &t, size_t n, std::mt19937_64 &rng) {
  Operands o;
  bool fp8 = t.rfind("f8", 0) == 0;
  o.bytes.resize(n * (fp8 ? 1 : 2));
  o.values.resize(n);
  auto f = randomVector(n, rng, 1.0f);
  for (size_t i = 0; i < n; ++i) {
    if (fp8) {
      o.bytes[i] = randomFp8(rng, t == "f8e4m3");
      o.values[i] = test::fromFp8Bits(o.bytes[i], t == "f8e4m3");
      continue;
    }
    bool bf16 = t == "bf16";
    uint16_t h = bf16 ? test::toBF16Bits(f[i]) : test::toF16Bits(f[i]);
    std::memcpy(&o.bytes[2 * i], &h, 2);
    o.values[i] = bf16 ? test::fromBF16Bits(h) : test::fromF16Bits(h);
  }
  return o;
}

std::string matmul(const LayoutVariant &v, const norms::Launcher &launch, int64_t M, int64_t N,
                   int64_t K, std::mt19937_64 &rng) {
  const std::string &t = v.defines.at("T");
  Operands a = randomOperand(t, size_t(M * K), rng), b = randomOperand(t, size_t(K * N), rng);
  auto c = poisoned(size_t(M * N));
  uint32_t gm = uint32_t(cdiv(M, define(v, "BM"))), gn = uint32_t(cdiv(N, define(v, "BN")));
  std::string err = launch({gm, gn, 1},
                           {Arg::pointer(a.bytes.data()), Arg::pointer(b.bytes.data()), ptr(c),
                            Arg::integer(M), Arg::integer(N), Arg::integer(K)},
                           {a.bytes.size(), b.bytes.size(), bytes(c), 0, 0, 0});
  if (!err.empty())
    return err;
  std::vector<double> want(c.size()), tol(c.size());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0, abs = 0;
      for (int64_t k = 0; k < K; ++k) {
        double p = a.values[m * K + k] * b.values[k * N + n];
        sum += p;
        abs += std::fabs(p);
      }
      want[m * N + n] = sum;
      // f32 accumulation of exact products: K roundings at most. fp8
      // products summed by Hopper's tensor cores (wgmma) keep fewer bits
      // (H200, bench/RESULTS.md run 17: errors to 2^-11.8 of the sum of
      // magnitudes): 2^-10 of it more, still well below what one product
      // left out, or another's taken, moves the sum by (about abs / K,
      // K <= 200 here).
      tol[m * N + n] = double(K) * 6e-8 * abs + (t.rfind("f8", 0) == 0 ? abs / 1024 : 0.0);
    }
  return compare("c", c, want, tol);
}

/// out[M, 8] against A[M, BK] b[BK, 8] in f64, A[m, k] = a(m, k): the f32
/// accumulation of exact f16 products, within BK 6e-8 times their absolute sum.
template <typename A>
std::string compareProduct(const std::vector<float> &out, int64_t M, int64_t bk,
                           const Operands &b, A a) {
  std::vector<double> want(out.size()), tol(out.size());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < 8; ++n) {
      double sum = 0, abs = 0;
      for (int64_t k = 0; k < bk; ++k) {
        double prod = a(m, k) * b.values[size_t(k * 8 + n)];
        sum += prod;
        abs += std::fabs(prod);
      }
      want[size_t(m * 8 + n)] = sum;
      tol[size_t(m * 8 + n)] = double(bk) * 6e-8 * abs;
    }
  return compare("out", out, want, tol);
}

std::string stagedWords(const LayoutVariant &v, const norms::Launcher &launch, int64_t M,
                        std::mt19937_64 &rng) {
  int64_t bk = define(v, "BK");
  // A's f16 elements, little-endian: word j of a row holds elements 2 j (low
  // half) and 2 j + 1.
  Operands a = randomOperand("f16", size_t(M * bk), rng);
  Operands b = randomOperand("f16", size_t(bk * 8), rng);
  auto out = poisoned(size_t(M * 8));
  std::string err = launch({1, 1, 1},
                           {Arg::pointer(a.bytes.data()), Arg::pointer(b.bytes.data()), ptr(out),
                            Arg::integer(M)},
                           {a.bytes.size(), b.bytes.size(), bytes(out), 0});
  if (!err.empty())
    return err;
  return compareProduct(out, M, bk, b,
                        [&](int64_t m, int64_t k) { return a.values[size_t(m * bk + k)]; });
}

std::string selectRows(const LayoutVariant &v, const norms::Launcher &launch, int64_t M,
                       std::mt19937_64 &rng) {
  int64_t bk = define(v, "BK");
  // Row m's words are w[m, 0 .. 2 BK), each two f16 (the low half first);
  // A[m, k] is the low or the high half of word 2 k as flags[m] is 0 or not.
  Operands w = randomOperand("f16", size_t(M * 2 * bk * 2), rng);
  Operands b = randomOperand("f16", size_t(bk * 8), rng);
  std::vector<int32_t> flags(static_cast<size_t>(M));
  std::uniform_int_distribution<int32_t> flag(0, 3);
  for (int32_t &f : flags)
    f = flag(rng) & 1;
  auto out = poisoned(size_t(M * 8));
  std::string err = launch({1, 1, 1},
                           {Arg::pointer(w.bytes.data()), Arg::pointer(flags.data()),
                            Arg::pointer(b.bytes.data()), ptr(out), Arg::integer(M)},
                           {w.bytes.size(), flags.size() * sizeof(int32_t), b.bytes.size(),
                            bytes(out), 0});
  if (!err.empty())
    return err;
  return compareProduct(out, M, bk, b, [&](int64_t m, int64_t k) {
    return w.values[size_t(2 * (m * 2 * bk + 2 * k) + (flags[size_t(m)] ? 1 : 0))];
  });
}

/// dot_chain: o[g] = v[g] T(x[g] y[g]) for G problems (batched_chain: G
/// programs of BB problems each). The f32 sum of an element of x y and the
/// f64 one may round to neighbouring T values (one ulp_T of p apart); the
/// rest is f32 accumulation of exact products.
std::string dotChain(const LayoutVariant &v, const norms::Launcher &launch, int64_t programs,
                     std::mt19937_64 &rng) {
  int64_t G = programs * (v.defines.count("BB") ? define(v, "BB") : 1);
  bool transposed = v.defines.count("TV") && define(v, "TV");
  const std::string &t = v.defines.at("T");
  int64_t bm = define(v, "BM"), bn = define(v, "BN"), bk = define(v, "BK"), bd = define(v, "BD");
  Operands x = randomOperand(t, size_t(G * bm * bk), rng);
  Operands y = randomOperand(t, size_t(G * bk * bn), rng);
  Operands w = randomOperand(t, size_t(G * bd * bm), rng);
  auto o = poisoned(size_t(G * bd * bn));
  std::string err = launch({uint32_t(programs), 1, 1},
                           {Arg::pointer(x.bytes.data()), Arg::pointer(y.bytes.data()),
                            Arg::pointer(w.bytes.data()), ptr(o)},
                           {x.bytes.size(), y.bytes.size(), w.bytes.size(), bytes(o)});
  if (!err.empty())
    return err;
  bool bf16 = t == "bf16";
  double ulp = bf16 ? 0x1p-7 : 0x1p-10; // of T, relative to a normal value
  std::vector<double> want(o.size()), tol(o.size());
  for (int64_t g = 0; g < G; ++g) {
    std::vector<double> p(size_t(bm * bn)), pTol(p.size());
    for (int64_t m = 0; m < bm; ++m)
      for (int64_t n = 0; n < bn; ++n) {
        double sum = 0, abs = 0;
        for (int64_t k = 0; k < bk; ++k) {
          double prod = x.values[(g * bm + m) * bk + k] * y.values[(g * bk + k) * bn + n];
          sum += prod;
          abs += std::fabs(prod);
        }
        uint16_t bits = bf16 ? test::toBF16Bits(sum) : test::toF16Bits(sum);
        p[m * bn + n] = bf16 ? test::fromBF16Bits(bits) : test::fromF16Bits(bits);
        pTol[m * bn + n] = (std::fabs(sum) + double(bk) * 6e-8 * abs) * ulp + 1e-7;
      }
    for (int64_t d = 0; d < bd; ++d)
      for (int64_t n = 0; n < bn; ++n) {
        double sum = 0, abs = 0, moved = 0;
        for (int64_t m = 0; m < bm; ++m) {
          double wv = w.values[transposed ? (g * bm + m) * bd + d : (g * bd + d) * bm + m];
          sum += wv * p[m * bn + n];
          abs += std::fabs(wv * p[m * bn + n]);
          moved += std::fabs(wv) * pTol[m * bn + n];
        }
        want[(g * bd + d) * bn + n] = sum;
        tol[(g * bd + d) * bn + n] = double(bm) * 6e-8 * abs + moved;
      }
  }
  return compare("o", o, want, tol);
}

/// paged_lookup: program m's out[r, c] = sum over its N pages of the
/// halfword at pos[r, c] of page pages[m N + n] (pages of LIVE halfwords,
/// in a random order); exact in f32 (integers below 2^24).
std::string pagedLookup(const LayoutVariant &v, const norms::Launcher &launch, int64_t M, int64_t N,
                        std::mt19937_64 &rng) {
  int64_t live = define(v, "LIVE"), cells = define(v, "R") * define(v, "C");
  int64_t count = M * N;
  std::vector<int32_t> pages(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    pages[size_t(i)] = int32_t(i);
  std::shuffle(pages.begin(), pages.end(), rng);
  std::vector<int16_t> words(static_cast<size_t>(count * live));
  std::uniform_int_distribution<int32_t> word(-32768, 32767), at(0, int32_t(live - 1));
  for (int16_t &w : words)
    w = int16_t(word(rng));
  std::vector<int32_t> pos(static_cast<size_t>(cells));
  for (int32_t &p : pos)
    p = at(rng);
  auto out = poisoned(size_t(M * cells));
  std::string err = launch({uint32_t(M), 1, 1},
                           {Arg::pointer(words.data()), Arg::pointer(pages.data()),
                            Arg::pointer(pos.data()), ptr(out), Arg::integer(N)},
                           {words.size() * sizeof(int16_t), pages.size() * sizeof(int32_t),
                            pos.size() * sizeof(int32_t), bytes(out), 0});
  if (!err.empty())
    return err;
  std::vector<double> want(out.size()), tol(out.size(), 0.0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t c = 0; c < cells; ++c) {
      double sum = 0;
      for (int64_t n = 0; n < N; ++n)
        sum += words[size_t(int64_t(pages[size_t(m * N + n)]) * live + pos[size_t(c)])];
      want[size_t(m * cells + c)] = sum;
    }
  return compare("out", out, want, tol);
}

/// lookups: y[m, n] = t[c(m, n)] + t[c(m, n ^ 1)], c = bits 20..23 of x's
/// f32 bits (0 for elements past N); exact in f32.
std::string lookups(const LayoutVariant &v, const norms::Launcher &launch, int64_t M, int64_t N,
                    std::mt19937_64 &rng) {
  auto x = randomVector(size_t(M * N), rng, 4.0f);
  auto t = randomVector(16, rng, 1.0f);
  std::vector<int32_t> tableBits(16);
  std::memcpy(tableBits.data(), t.data(), sizeof(float) * 16);
  auto y = poisoned(x.size());
  uint32_t grid = uint32_t(cdiv(M, define(v, "BM")));
  std::string err = launch({grid, 1, 1},
                           {ptr(x), Arg::pointer(tableBits.data()), ptr(y), Arg::integer(M),
                            Arg::integer(N)},
                           {bytes(x), sizeof(int32_t) * 16, bytes(y), 0, 0});
  if (!err.empty())
    return err;
  auto code = [&](int64_t m, int64_t n) {
    if (n >= N)
      return 0;
    int32_t bits;
    std::memcpy(&bits, &x[size_t(m * N + n)], sizeof bits);
    return (bits >> 20) & 15;
  };
  std::vector<double> want(y.size()), tol(y.size(), 0.0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      want[size_t(m * N + n)] = double(t[size_t(code(m, n))] + t[size_t(code(m, n ^ 1))]);
  return compare("y", y, want, tol);
}

/// fp8_codes: n = M * N bytes, x[i] = (167 i + r) mod 256 (r random), so
/// that every 256 consecutive elements hold each code once, with changing
/// neighbours. Every output is compared bit for bit: the exact value of the
/// code in f32, f16 and bf16, and for NaN codes the default quiet NaN of the
/// type (what tile-expand-fp8 gives); s = 2 x exactly, NaN for NaN codes.
std::string fp8Codes(const LayoutVariant &v, const norms::Launcher &launch, int64_t M,
                     int64_t N, std::mt19937_64 &rng) {
  bool e4m3 = v.defines.at("T") == "f8e4m3";
  size_t n = size_t(M * N);
  auto r = unsigned(rng() & 255);
  std::vector<uint8_t> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = uint8_t(167 * i + r);
  auto a = poisoned(n), s = poisoned(n);
  std::vector<uint16_t> h(n, 0xffff), b(n, 0xffff); // NaNs no conversion gives
  uint32_t grid = uint32_t(cdiv(int64_t(n), define(v, "BLOCK")));
  std::string err =
      launch({grid, 1, 1},
             {Arg::pointer(x.data()), Arg::pointer(x.data()), ptr(a), Arg::pointer(h.data()),
              Arg::pointer(b.data()), ptr(s), Arg::integer(int64_t(n))},
             {n, n, bytes(a), 2 * n, 2 * n, bytes(s), 0});
  if (!err.empty())
    return err;
  auto hex = [](uint64_t bits) {
    std::ostringstream os;
    os << "0x" << std::hex << bits;
    return os.str();
  };
  for (size_t i = 0; i < n; ++i) {
    double value = test::fromFp8Bits(x[i], e4m3);
    bool nan = std::isnan(value);
    uint32_t wantA = nan ? 0x7fc00000u : test::bitsOf(float(value));
    uint16_t wantH = nan ? 0x7e00 : test::toF16Bits(value);
    uint16_t wantB = nan ? 0x7fc0 : test::toBF16Bits(value);
    std::string what;
    if (test::bitsOf(a[i]) != wantA)
      what = "f32 " + hex(test::bitsOf(a[i])) + ", expected " + hex(wantA);
    else if (h[i] != wantH)
      what = "f16 " + hex(h[i]) + ", expected " + hex(wantH);
    else if (b[i] != wantB)
      what = "bf16 " + hex(b[i]) + ", expected " + hex(wantB);
    else if (nan ? !std::isnan(s[i]) : test::bitsOf(s[i]) != test::bitsOf(float(2 * value)))
      what = "2x in f32 " + hex(test::bitsOf(s[i])) + ", expected " +
             (nan ? std::string("a NaN") : hex(test::bitsOf(float(2 * value))));
    if (!what.empty())
      return "element " + std::to_string(i) + ", code " + hex(x[i]) + ": " + what;
  }
  return "";
}

} // namespace

std::string LayoutVariant::name() const {
  std::string s = kernel;
  for (const auto &[key, value] : defines)
    s += "." + key + value;
  return s + ".w" + std::to_string(numWarps) +
         (programsPerCta > 1 ? ".c" + std::to_string(programsPerCta) : "") +
         (assume.empty() ? "" : ".a" + assume.substr(assume.find('=') + 1));
}

std::string LayoutVariant::tilecArgs() const {
  std::string s = "--kernel " + kernel;
  for (const auto &[key, value] : defines)
    s += " -D " + key + "=" + value;
  return s + " --num-warps " + std::to_string(numWarps) +
         (programsPerCta > 1 ? " --programs-per-cta " + std::to_string(programsPerCta) : "") +
         (assume.empty() ? "" : " --assume " + assume);
}

std::vector<LayoutVariant> tile::layouts::layoutVariants() {
  std::vector<LayoutVariant> out;
  // Rows within a warp, across warps, one row per program, tiny tiles.
  for (auto [bm, bn, w] : std::vector<std::array<unsigned, 3>>{
           {4, 256, 4}, {16, 64, 4}, {1, 1024, 4}, {64, 32, 8}, {2, 128, 1}, {8, 512, 8},
           {2, 16, 4}})
    out.push_back({"softmax_rows", {{"BM", std::to_string(bm)}, {"BN", std::to_string(bn)}}, w});
  // Column sums: the reduction crosses warps and the result changes layout.
  for (auto [bm, bn, w] : std::vector<std::array<unsigned, 3>>{
           {32, 64, 4}, {8, 256, 4}, {64, 16, 2}, {128, 32, 8}, {4, 8, 4}})
    out.push_back({"col_sums", {{"BM", std::to_string(bm)}, {"BN", std::to_string(bn)}}, w});
  for (auto [b, w] : std::vector<std::array<unsigned, 2>>{{32, 4}, {16, 1}, {64, 8}, {8, 4}})
    out.push_back({"transpose_stats", {{"B", std::to_string(b)}}, w});
  // The same with several programs a CTA (program_id(1) = K ctaid.y + the
  // program's place, a shared-memory slice and barrier each): one-warp
  // programs (bar.warp.sync) and four-warp ones (named barriers).
  for (auto [b, w, k] : std::vector<std::array<unsigned, 3>>{{16, 1, 4}, {32, 4, 2}, {8, 2, 8}})
    out.push_back({"transpose_stats", {{"B", std::to_string(b)}}, w, k});
  // dot: warps tiling rows and columns, repeated instruction tiles, K steps.
  // Element types: 0 f16, 1 bf16, 2 f8e4m3, 3 f8e5m2. On sm_90a the last five
  // take wgmma (M a multiple of 64, whole warpgroups, K rows of 128 bytes):
  // one warpgroup, two along M, two along N (N = 64 each), rows repeated.
  for (auto [bm, bn, bk, w, type] : std::vector<std::array<unsigned, 5>>{
           {32, 32, 16, 4, 0}, {64, 64, 32, 4, 1}, {16, 8, 16, 1, 0}, {128, 64, 32, 8, 0},
           {16, 64, 64, 4, 1}, {64, 16, 16, 2, 0}, {64, 64, 64, 4, 2}, {32, 32, 32, 2, 3},
           {64, 128, 64, 4, 0}, {128, 64, 64, 8, 1}, {64, 64, 128, 4, 2}, {64, 128, 128, 8, 3},
           {128, 32, 64, 4, 0}})
    out.push_back({"matmul",
                   {{"T", type == 0 ? "f16" : type == 1 ? "bf16" : type == 2 ? "f8e4m3" : "f8e5m2"},
                    {"BM", std::to_string(bm)},
                    {"BN", std::to_string(bn)},
                    {"BK", std::to_string(bk)}},
                   w});
  // Gathers from an on-chip table, bitcasts, reshapes around a reduction.
  for (auto [bm, bn, w] : std::vector<std::array<unsigned, 3>>{
           {4, 64, 4}, {1, 256, 4}, {16, 32, 8}, {2, 16, 1}})
    out.push_back({"lookups", {{"BM", std::to_string(bm)}, {"BN", std::to_string(bn)}}, w});
  // Every fp8 code to f32, f16 and bf16: 2, 1 (a lone element: no pair) and
  // 8 elements a thread.
  for (const char *t : {"f8e4m3", "f8e5m2"})
    for (auto [block, w] : std::vector<std::array<unsigned, 2>>{{256, 4}, {32, 1}, {1024, 4}})
      out.push_back({"fp8_codes", {{"T", t}, {"BLOCK", std::to_string(block)}}, w});
  // A product's result as the next one's B operand: one warp, in 8x8
  // transposes (BM 16 and 32, f16 and bf16), and with 4 warps.
  for (auto [bm, bn, bk, bd, w, bf16] : std::vector<std::array<unsigned, 6>>{
           {16, 8, 16, 16, 1, 0}, {32, 8, 32, 64, 1, 1}, {64, 16, 16, 64, 4, 0}})
    out.push_back({"dot_chain",
                   {{"T", bf16 ? "bf16" : "f16"},
                    {"BM", std::to_string(bm)},
                    {"BN", std::to_string(bn)},
                    {"BK", std::to_string(bk)},
                    {"BD", std::to_string(bd)}},
                   w});
  // The same as batched dots: a warp a problem (TurboQuant's kv heads), two
  // and four warps a problem (with four, plain dots of the third's shapes
  // take wgmma on sm_90a; a batch's take mma.sync), two problems a warp; v
  // read through a batched trans (tv): TurboQuant's P V (a kv head's 128
  // value coordinates by its 16 tokens a warp), and two problems a warp.
  for (auto [bb, bm, bn, bk, bd, w, bf16, tv] :
       std::vector<std::array<unsigned, 8>>{{8, 16, 8, 16, 16, 8, 0, 0},
                                            {2, 32, 16, 32, 64, 4, 1, 0},
                                            {2, 64, 64, 64, 64, 8, 0, 0},
                                            {4, 64, 16, 64, 32, 8, 1, 0},
                                            {8, 16, 8, 32, 16, 4, 0, 0},
                                            {8, 16, 8, 256, 128, 8, 0, 1},
                                            {4, 32, 16, 16, 32, 2, 1, 1}})
    out.push_back({"batched_chain",
                   {{"T", bf16 ? "bf16" : "f16"},
                    {"BB", std::to_string(bb)},
                    {"BM", std::to_string(bm)},
                    {"BN", std::to_string(bn)},
                    {"BK", std::to_string(bk)},
                    {"BD", std::to_string(bd)},
                    {"TV", std::to_string(tv)}},
                   w});
  // Pages staged whole and gathered from the stage, each stage holding the live
  // elements only: a small table over 4 warps; TurboQuant's page (8576
  // halfwords of 16384) over 8 warps in three 17152-byte stages (dynamic shared
  // memory, past 48 KiB), and half of it in two; all three copied by cp.async
  // in 16-byte runs (the words 16-byte aligned); a table with every element
  // live on one warp, three stages, its copies through registers (no
  // alignment known).
  for (auto [pw, live, r, c, ns, w, aligned] :
       std::vector<std::array<unsigned, 7>>{{1024, 536, 8, 32, 2, 4, 1},
                                            {16384, 8576, 16, 64, 3, 8, 1},
                                            {8192, 4288, 16, 64, 2, 8, 1},
                                            {256, 256, 4, 8, 3, 1, 0}})
    out.push_back({"paged_lookup",
                   {{"PW", std::to_string(pw)},
                    {"LIVE", std::to_string(live)},
                    {"R", std::to_string(r)},
                    {"C", std::to_string(c)},
                    {"NS", std::to_string(ns)}},
                   w,
                   1,
                   aligned ? "words=16" : ""});
  // 64-bit values changing layout: by shuffles within one warp (B 32), with
  // selects (B 64), within each of 4 warps (B 32), through shared memory (B 128).
  for (auto [b, w] : std::vector<std::array<unsigned, 2>>{{32, 1}, {64, 1}, {32, 4}, {128, 2}})
    out.push_back({"wide_rows", {{"B", std::to_string(b)}}, w});
  // Staged words unpacked into a dot operand (K = 16, 32, 64 f16 a row).
  for (unsigned bk : {16u, 32u, 64u})
    out.push_back({"staged_words", {{"BK", std::to_string(bk)}}, 1});
  // Words carried an iteration ahead and unpacked twice, per-row selects.
  for (unsigned bk : {16u, 32u, 64u})
    out.push_back({"select_rows", {{"BK", std::to_string(bk)}}, 1});
  // Rank-6 tiles: one warp, and the reduced axis spread over 2, 4 and 8 warps.
  for (auto [r, w] : std::vector<std::array<unsigned, 2>>{{8, 1}, {8, 4}, {2, 2}, {16, 8}})
    out.push_back({"rank6", {{"R", std::to_string(r)}}, w});
  return out;
}

std::vector<std::pair<int64_t, int64_t>> tile::layouts::layoutShapes(const LayoutVariant &v) {
  if (v.kernel == "softmax_rows" || v.kernel == "lookups") {
    int64_t bn = define(v, "BN");
    return {{1, 1}, {7, std::min<int64_t>(100, bn)}, {33, bn}, {129, bn - 3}};
  }
  if (v.programsPerCta > 1) { // transpose_stats: cdiv(N, B) blocks along y, a multiple of K
    int64_t span = define(v, "B") * v.programsPerCta;
    return {{1, span}, {50, 2 * span - 5}, {129, span}};
  }
  if (v.kernel == "col_sums")
    return {{1, 1}, {100, 70}, {257, 300}, {1000, 64}};
  if (v.kernel == "fp8_codes") // M * N codes
    return {{1, 1}, {1, 256}, {3, 171}, {16, 256}};
  if (v.kernel == "matmul") // N x N times N x (N + 7): K = N
    return {{1, 1}, {40, 33}, {128, 128}, {200, 72}};
  if (v.kernel == "dot_chain" || v.kernel == "batched_chain") // M programs
    return {{1, 1}, {3, 1}, {64, 1}};
  if (v.kernel == "wide_rows") // M rows
    return {{1, 8}, {37, 8}, {256, 8}, {1000, 8}};
  if (v.kernel == "paged_lookup") // M programs of N pages
    return {{1, 1}, {3, 5}, {64, 37}};
  if (v.kernel == "rank6") // M programs
    return {{1, 1}, {3, 1}, {64, 1}};
  if (v.kernel == "staged_words" || v.kernel == "select_rows") // M rows: 1, 3 and 63
    return {{1, 1}, {37, 1}, {1000, 1}};                          // iterations, the last ragged
  return {{1, 1}, {50, 70}, {128, 96}, {33, 200}};
}

std::string tile::layouts::runLayoutCase(const LayoutVariant &variant,
                                         const std::vector<ParamInfo> &params,
                                         const norms::Launcher &launch, int64_t M, int64_t N,
                                         uint64_t seed) {
  std::mt19937_64 rng(seed);
  size_t expected = variant.kernel == "fp8_codes"                                        ? 7
                    : variant.kernel == "transpose_stats" || variant.kernel == "matmul"  ? 6
                    : variant.kernel == "lookups"                                        ? 5
                    : variant.kernel == "wide_rows"                                      ? 3
                    : variant.kernel == "staged_words"                                   ? 4
                    : variant.kernel == "select_rows"                                    ? 5
                    : variant.kernel == "dot_chain" || variant.kernel == "batched_chain" ? 4
                    : variant.kernel == "rank6"                                          ? 3
                    : variant.kernel == "paged_lookup"                                   ? 5
                                                                                         : 4;
  if (params.size() != expected)
    return variant.kernel + ": the build has " + std::to_string(params.size()) +
           " parameters, expected " + std::to_string(expected);
  if (variant.kernel == "softmax_rows")
    return softmaxRows(variant, launch, M, N, rng);
  if (variant.kernel == "col_sums")
    return colSums(variant, launch, M, N, rng);
  if (variant.kernel == "matmul")
    return matmul(variant, launch, M, N + 7, N, rng);
  if (variant.kernel == "lookups")
    return lookups(variant, launch, M, N, rng);
  if (variant.kernel == "fp8_codes")
    return fp8Codes(variant, launch, M, N, rng);
  if (variant.kernel == "wide_rows")
    return wideRows(variant, launch, M, rng);
  if (variant.kernel == "dot_chain" || variant.kernel == "batched_chain")
    return dotChain(variant, launch, M, rng);
  if (variant.kernel == "staged_words")
    return stagedWords(variant, launch, M, rng);
  if (variant.kernel == "select_rows")
    return selectRows(variant, launch, M, rng);
  if (variant.kernel == "rank6")
    return rank6(variant, launch, M, rng);
  if (variant.kernel == "paged_lookup")
    return pagedLookup(variant, launch, M, N, rng);
  return transposeStats(variant, launch, M, N, rng);
}
