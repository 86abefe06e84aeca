//===- TurboQuantHostTest.cpp - turboquant_decode's host side and kernels -===//
//
// The slot layouts, the Lloyd-Max codebooks (Max's 1960 tables), the
// Hadamard rotation, the encoder (bit packing, fp8 rounding, f16 fields,
// key MSE) and the float64 reference against a direct computation from the
// dequantized keys; then the three kernels compiled for the host and checked
// at tier C on every preset, D 64/128/256, ragged and length-1 sequences,
// empty splits, GQA 1/4/8 with HEADS = group and 1, f16/bf16/f32 outputs,
// Hadamard and random orthogonal rotations, and the round trip; every case
// with each of stage 1's formulations: MMA = 0 (CUDA-core products), 1 and
// 2 (dot: f16 operands split in hi + lo parts, f32 sums; the host computes
// dot in f32 loops, so the f16 rounding is what is checked); stage 1's
// write set (run on a corner of its grid, it writes its own partials only);
// and stage 2 in both forms (one split at a time and in chunks) on rows of 1
// to 40 splits.
//
//===----------------------------------------------------------------------===//
#include "TqCheck.h"
#include "ReadFile.h"
#include "TurboQuantRef.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <random>

using namespace tile;
using namespace tile::tq;
using test::Dtype;

namespace {

TEST(TurboQuantRefTest, SlotLayouts) {
  struct Want {
    int kbits, vbits, kb, normOff, vOff, vb, vScaleOff, vZeroOff, slot;
  };
  for (Want w :
       {Want{4, 4, 64, 64, 66, 64, 130, 132, 134}, Want{3, 4, 48, 48, 50, 64, 114, 116, 118},
        Want{8, 4, 128, 0, 128, 64, 192, 194, 196}, Want{3, 3, 48, 48, 50, 48, 98, 100, 102}}) {
    SlotLayout l(128, w.kbits, w.vbits);
    SCOPED_TRACE(presetName(w.kbits, w.vbits));
    EXPECT_EQ(l.mse, w.kbits != 8);
    EXPECT_EQ(l.kb, w.kb);
    EXPECT_EQ(l.normOff, w.normOff);
    EXPECT_EQ(l.vOff, w.vOff);
    EXPECT_EQ(l.vb, w.vb);
    EXPECT_EQ(l.vScaleOff, w.vScaleOff);
    EXPECT_EQ(l.vZeroOff, w.vZeroOff);
    EXPECT_EQ(l.slot, w.slot);
  }
  EXPECT_EQ(SlotLayout(64, 3, 3).slot, 54);
  EXPECT_EQ(SlotLayout(256, 4, 4).slot, 262);
  EXPECT_EQ(SlotLayout(8, 3, 4).slot, 14); // zero at byte 11: padded to even
}

TEST(TurboQuantRefTest, LloydMaxCodebooksMatchMax1960) {
  std::map<int, std::vector<double>> positive = {
      {2, {0.4528, 1.5104}},
      {3, {0.2451, 0.7560, 1.3440, 2.1520}},
      {4, {0.1284, 0.3881, 0.6568, 0.9424, 1.2562, 1.6181, 2.0690, 2.7326}}};
  for (auto &[bits, want] : positive) {
    std::vector<double> c = lloydMaxCodebook(bits, 1);
    ASSERT_EQ(c.size(), size_t(1) << bits);
    size_t n = c.size();
    for (size_t i = 0; i < n; ++i) {
      if (i + 1 < n)
        EXPECT_LT(c[i], c[i + 1]) << bits << " bits, level " << i;
      EXPECT_NEAR(c[i], -c[n - 1 - i], 1e-12) << bits << " bits, level " << i;
    }
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(c[n / 2 + i], want[i], 1e-4) << bits << " bits, level " << n / 2 + i;
    for (int d : {64, 128, 256}) {
      std::vector<double> scaled = lloydMaxCodebook(bits, d);
      for (size_t i = 0; i < n; ++i)
        EXPECT_NEAR(scaled[i], c[i] / std::sqrt(double(d)), 1e-15);
    }
  }
  EXPECT_EQ(kernelCodebook(SlotLayout(128, 8, 4)).size(), 16u);
  EXPECT_EQ(kernelCodebook(SlotLayout(128, 3, 4)).size(), 8u);
}

TEST(TurboQuantRefTest, HadamardIsOrthogonalAndSymmetric) {
  for (int d : {8, 64, 256}) {
    std::vector<float> h = hadamard(d);
    float entry = float(1 / std::sqrt(double(d)));
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) {
        EXPECT_EQ(std::fabs(h[i * d + j]), entry);
        EXPECT_EQ(h[i * d + j], h[j * d + i]);
        double dot = 0;
        for (int k = 0; k < d; ++k)
          dot += double(h[i * d + k]) * h[j * d + k];
        EXPECT_NEAR(dot, i == j ? 1 : 0, 1e-6);
      }
    EXPECT_EQ(h[d + 1], -entry); // row 1 alternates: +, -, +, -
  }
}

/// One slot of `layout` from a key and a value vector.
std::vector<uint8_t> encodeOne(const SlotLayout &layout, const std::vector<float> &k,
                               const std::vector<float> &v) {
  return encode(layout, hadamard(layout.d), kernelCodebook(layout), k.data(), v.data(), 1);
}

TEST(TurboQuantRefTest, PacksCodesLsbFirst) {
  // 4-bit values: v_i = i / 5 - 1 spans 16 levels exactly (scale 0.2), even
  // coordinates in the low nibble; the 3-bit keys' codes straddle bytes.
  SlotLayout l(16, 4, 4);
  std::vector<float> k(16, 0.25f), v(16);
  for (int i = 0; i < 16; ++i)
    v[i] = float(i) / 5 - 1;
  std::vector<uint8_t> slot = encodeOne(l, k, v);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(slot[l.vOff + i], (2 * i) | (2 * i + 1) << 4) << "value byte " << i;
  EXPECT_EQ(slot[l.vScaleOff] | slot[l.vScaleOff + 1] << 8, test::toF16Bits(0.2));
  EXPECT_EQ(slot[l.vZeroOff] | slot[l.vZeroOff + 1] << 8, test::toF16Bits(-1.0));
  // k = 0.25 * ones: norm 1, R k / n = e_0, so y = (1, 0, ..., 0).
  EXPECT_EQ(slot[l.normOff] | slot[l.normOff + 1] << 8, test::toF16Bits(1.0));
  EXPECT_EQ(slot.size(), size_t(l.slot));
  uint8_t bytes[3] = {0, 0, 0};
  // Codes 0..7 at 3 bits: word = sum i << 3i = 0xFAC688.
  bytes[0] = 0x88, bytes[1] = 0xc6, bytes[2] = 0xfa;
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(unpackCode(bytes, 3, i), i);
  SlotLayout l3(16, 3, 3);
  std::vector<uint8_t> s3 = encodeOne(l3, k, v);
  std::vector<float> cb = kernelCodebook(l3);
  DecodedSlot dec = decodeSlot(l3, cb, s3.data());
  EXPECT_EQ(dec.key[0], cb[7]); // y_0 = 1 is beyond the top midpoint
  for (int i = 1; i < 16; ++i)
    EXPECT_TRUE(dec.key[i] == cb[3] || dec.key[i] == cb[4]) << i; // y_i = 0
}

TEST(TurboQuantRefTest, Fp8KeysRoundToNearestEven) {
  SlotLayout l(16, 8, 4);
  std::vector<float> k = {1.0625f, 1.1875f, -3.0f, 1000.0f, -1000.0f,   0x1p-9f, 0x1p-11f, 0.0f,
                          0.3f,    -0.3f,   448.f, 464.0f,  0x1.8p-10f, 240.f,   17.0f,    0x1p-6f};
  std::vector<double> want = {1.0,    1.25,    -3.0, 448, -448,   0x1p-9, 0,  0,
                              0.3125, -0.3125, 448,  448, 0x1p-9, 240,    16, 0x1p-6};
  std::vector<float> v(16, 1.0f);
  std::vector<uint8_t> slot = encodeOne(l, k, v);
  DecodedSlot dec = decodeSlot(l, kernelCodebook(l), slot.data());
  EXPECT_EQ(dec.norm, 1.0);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(dec.key[i], want[i]) << "k = " << k[i];
  // Every finite e4m3 value encodes to itself.
  for (int b = 0; b < 256; ++b) {
    if ((b & 0x7f) == 0x7f)
      continue;
    std::vector<float> one(16, float(test::fromFp8Bits(uint8_t(b), true)));
    EXPECT_EQ(encodeOne(l, one, v)[0], b) << "byte " << b;
  }
  // v constant: scale clamps to 1e-8 and every value decodes to the zero.
  for (double x : dec.value)
    EXPECT_EQ(x, 1.0);
}

/// Relative MSE of keys, and of values, over n fresh N(0, 1) vectors.
std::pair<double, double> encodeError(int d, int kbits, int vbits, int n) {
  SlotLayout l(d, kbits, vbits);
  std::mt19937_64 rng(42);
  std::normal_distribution<float> normal;
  std::vector<float> k(size_t(n * d)), v(k.size());
  for (float &x : k)
    x = float(test::roundTo(Dtype::BF16, normal(rng)));
  for (float &x : v)
    x = float(test::roundTo(Dtype::BF16, normal(rng)));
  std::vector<float> r = hadamard(d), cb = kernelCodebook(l);
  std::vector<uint8_t> slots = encode(l, r, cb, k.data(), v.data(), n);
  double kErr = 0, kSum = 0, vErr = 0, vSum = 0;
  for (int t = 0; t < n; ++t) {
    const uint8_t *slot = &slots[size_t(t * l.slot)];
    std::vector<double> khat = dequantizeKey(l, r, cb, slot);
    DecodedSlot dec = decodeSlot(l, cb, slot);
    for (int i = 0; i < d; ++i) {
      double kv = k[size_t(t * d + i)], vv = v[size_t(t * d + i)];
      kErr += (kv - khat[i]) * (kv - khat[i]);
      kSum += kv * kv;
      vErr += (vv - dec.value[i]) * (vv - dec.value[i]);
      vSum += vv * vv;
    }
  }
  return {kErr / kSum, vErr / vSum};
}

TEST(TurboQuantRefTest, EncodeDecodeRoundTrip) {
  auto [k4, v4] = encodeError(128, 4, 4, 1000);
  EXPECT_GT(k4, 0.0085);
  EXPECT_LT(k4, 0.0105);
  auto [k3, v3] = encodeError(128, 3, 3, 1000);
  EXPECT_GT(k3, 0.031);
  EXPECT_LT(k3, 0.037);
  auto [k8, v8] = encodeError(128, 8, 4, 200);
  EXPECT_LT(k8, 0.003);
  // Uniform values: error ~ range^2 / (12 (2^b - 1)^2) for a range of ~5 sigma.
  EXPECT_LT(v4, 0.015);
  EXPECT_LT(v3, 0.06);
  EXPECT_LT(v8, 0.015);
  EXPECT_LT(encodeError(64, 4, 4, 300).first, 0.011);
  EXPECT_LT(encodeError(256, 3, 4, 100).first, 0.037);
}

TEST(TurboQuantRefTest, ReferenceMatchesDequantizedAttention) {
  // Two sequences over shuffled pages of a 2-kv-head cache with GQA 3: the
  // code-domain reference against softmax(scale q . k^) v^ computed from
  // the dequantized keys (R^T applied to the codebook vectors).
  for (int kbits : {4, 8}) {
    TqCase c;
    c.d = 32, c.kbits = kbits, c.hq = 6, c.hkv = 2, c.blockSize = 4, c.seqLens = {9, 1};
    c.headsPerProgram = 3, c.randomOrthogonalR = true;
    TqProblem p = makeProblem(c, 11);
    const TqCache &cache = *p.cache;
    PagedCache view{cache.bytes.data(),  c.blockSize, c.hkv,
                    p.blockTable.data(), p.btStride,  p.seqLens.data()};
    for (int64_t b = 0; b < 2; ++b) {
      std::vector<double> q(size_t(c.hq * c.d));
      for (size_t i = 0; i < q.size(); ++i)
        q[i] = test::loadAs(c.dtype, p.q.data(), size_t(b) * q.size() + i);
      SeqAttention ref = referenceAttention(cache.layout, cache.rotation, cache.codebook, view, b,
                                            q.data(), c.hq, p.scale);
      int64_t len = c.seqLens[size_t(b)];
      for (int64_t h = 0; h < c.hq; ++h) {
        int64_t kvHead = h / 3;
        std::vector<double> s(static_cast<size_t>(len));
        std::vector<std::vector<double>> vs;
        double vmax = 0;
        for (int64_t j = 0; j < len; ++j) {
          int64_t block = p.blockTable[size_t(b * p.btStride + j / c.blockSize)];
          const uint8_t *slot = &cache.bytes[size_t(
              ((block * c.blockSize + j % c.blockSize) * c.hkv + kvHead) * cache.layout.slot)];
          std::vector<double> k = dequantizeKey(cache.layout, cache.rotation, cache.codebook, slot);
          for (int64_t i = 0; i < c.d; ++i)
            s[size_t(j)] += p.scale * q[size_t(h * c.d + i)] * k[size_t(i)];
          vs.push_back(decodeSlot(cache.layout, cache.codebook, slot).value);
          for (double x : vs.back())
            vmax = std::max(vmax, std::fabs(x));
        }
        double m = *std::max_element(s.begin(), s.end()), l = 0;
        for (double x : s)
          l += std::exp(x - m);
        EXPECT_NEAR(ref.lse[size_t(h)], m + std::log(l), 1e-12);
        EXPECT_EQ(ref.vmax[size_t(h)], vmax);
        for (int64_t i = 0; i < c.d; ++i) {
          double o = 0;
          for (int64_t j = 0; j < len; ++j)
            o += std::exp(s[size_t(j)] - m) / l * vs[size_t(j)][size_t(i)];
          EXPECT_NEAR(ref.o[size_t(h * c.d + i)], o, 1e-12) << "b " << b << " h " << h;
        }
      }
    }
  }
}

TEST(TurboQuantRefTest, SplitsAndNames) {
  EXPECT_EQ(defaultSplits(132, 1, 8, 1024), 8);
  EXPECT_EQ(defaultSplits(132, 1, 8, 32768), 64);
  EXPECT_EQ(defaultSplits(132, 8, 8, 8192), 9);
  EXPECT_EQ(defaultSplits(132, 128, 8, 32768), 1);
  EXPECT_EQ(defaultSplits(132, 1, 8, 1), 1);
  // B sequences of seq_len tokens, Hq = 32, HEADS = 4: 8 programs a sequence.
  auto batch = [](int64_t b, int64_t seqLen) {
    TqCase c;
    c.seqLens.assign(size_t(b), seqLen);
    return c;
  };
  // 8 one-warp programs an SM on 132 SMs (1056 at once): one full wave where
  // there are enough, else the fewest waves.
  EXPECT_EQ(waveSplits(132, 8, batch(32, 8192)), 4);   // 1024 programs, not 2304 (2.2 waves)
  EXPECT_EQ(waveSplits(132, 8, batch(8, 32768)), 16);  // 1024, not 2112 (2 waves of 993 + 64)
  EXPECT_EQ(waveSplits(132, 8, batch(128, 32768)), 1); // 1024
  EXPECT_EQ(waveSplits(132, 12, batch(32, 8192)), 6);  // 12 an SM: 1536
  EXPECT_EQ(waveSplits(132, 12, batch(8, 32768)), 24);
  EXPECT_EQ(waveSplits(132, 16, batch(8, 32768)), 33);
  // Short sequences: splits of 32 tokens where one sequence leaves the SMs
  // idle (stage 2's cost a split stops it at 32, not 64), 16 at 8 sequences
  // (12 programs an SM of 43 tokens cost more than 8 of 64), and at 4096
  // stage-2 rows the fewest splits that fill the SMs.
  EXPECT_EQ(waveSplits(132, 8, batch(1, 1024)), 32);
  EXPECT_EQ(waveSplits(132, 12, batch(1, 1024)), 32);
  EXPECT_EQ(waveSplits(132, 12, batch(8, 1024)), 16);
  EXPECT_EQ(waveSplits(132, 12, batch(128, 32768)), 3);
  EXPECT_EQ(waveSplits(132, 8, batch(1, 1)), 1);
  EXPECT_EQ(waveSplits(0, 0, batch(4, 4096)), 1);
  EXPECT_EQ(waveSplits(132, 8, batch(0, 0)), 1);
  // Stage 2 reads 16 splits at a time beyond max(8, rows / 48) splits.
  auto stage2 = [&](int64_t b, int64_t splits) {
    TqCase c = batch(b, 4096);
    c.numSplits = splits;
    return stage2Splits(c);
  };
  EXPECT_EQ(stage2(1, 1), 0);
  EXPECT_EQ(stage2(1, 8), 0);
  EXPECT_EQ(stage2(1, 9), 16);
  EXPECT_EQ(stage2(8, 9), 16);   // 256 rows
  EXPECT_EQ(stage2(32, 21), 0);  // 1024 rows
  EXPECT_EQ(stage2(32, 22), 16);
  EXPECT_EQ(stage2(128, 64), 0); // 4096 rows
  TqCase c;
  c.seqLens = {3, 17};
  EXPECT_EQ(caseName(c), "k4v4 D=128 Hq=32 Hkv=8 HEADS=4 block_size=16 splits=1 bf16 hadamard "
                         "seq_lens=[3,17]");
}

//===----------------------------------------------------------------------===//
// The kernels, compiled for the host
//===----------------------------------------------------------------------===//

/// The three kernels, each in its own file TILEC_TQ_DIR/<kernel>.tile.
const char *const kKernels[] = {"turboquant_rotate", "turboquant_decode_stage1",
                                "turboquant_decode_stage2"};

std::string kernelPath(const std::string &kernel) {
  return std::string(TILEC_TQ_DIR) + "/" + kernel + ".tile";
}

/// Each kernel's name to its file's source ("" where it cannot be read).
std::map<std::string, std::string> kernelSources() {
  std::map<std::string, std::string> sources;
  for (const char *kernel : kKernels)
    sources[kernel] = test::readFile(kernelPath(kernel)).value_or("");
  return sources;
}

/// Host builds of the three kernels, compiled once per set of defines.
class HostBuilds {
public:
  explicit HostBuilds(std::map<std::string, std::string> sources) : sources(std::move(sources)) {}

  /// The three kernels for case `c` with stage 1's BLOCK_T = blockT, MMA =
  /// mma, MIN_N = minN, PAGE = page (when not 0) and HKV = c.hkv (MMA = 3),
  /// and stage 2's SPLITS =
  /// stage2 (-1: the launcher's tq::stage2Splits); "" or the compile error.
  std::string get(const TqCase &c, int blockT, int mma, TqKernels &out, int minN = 8,
                  int page = 0, int64_t stage2 = -1) {
    std::string t = test::name(c.dtype), d = std::to_string(c.d);
    std::string kb = std::to_string(c.kbits), vb = std::to_string(c.vbits);
    std::string err;
    if (rotates(c))
      out.rotate = kernel("turboquant_rotate",
                          {{"T", t}, {"D", d}, {"RB", std::to_string(kRotateColumns)}}, err);
    std::map<std::string, std::string> stage1 = {{"D", d},
                                                 {"KBITS", kb},
                                                 {"VBITS", vb},
                                                 {"HEADS", std::to_string(c.headsPerProgram)},
                                                 {"BLOCK_T", std::to_string(blockT)},
                                                 {"MMA", std::to_string(mma)},
                                                 {"MIN_N", std::to_string(minN)},
                                                 {"QT", rotates(c) ? "f32" : t}};
    if (page)
      stage1["PAGE"] = std::to_string(page);
    if (mma == 3)
      stage1["HKV"] = std::to_string(c.hkv);
    out.stage1 = kernel("turboquant_decode_stage1", stage1, err);
    int64_t splits2 = stage2 >= 0 ? stage2 : stage2Splits(c);
    out.stage2 = kernel("turboquant_decode_stage2",
                        {{"T", t}, {"D", d}, {"SPLITS", std::to_string(splits2)}}, err);
    return err;
  }

private:
  TqKernel kernel(const std::string &name, const std::map<std::string, std::string> &defines,
                  std::string &err) {
    std::string key = name;
    for (auto &[k, v] : defines)
      key += " " + k + "=" + v;
    auto it = builds.find(key);
    if (it == builds.end()) {
      CompileOptions options;
      options.kernel = name;
      options.defines = defines;
      auto compiled = compileForHost(sources.at(name), name + ".tile", options);
      if (!compiled) {
        if (err.empty())
          err = key + ": " + compiled.message();
        return {};
      }
      it = builds.emplace(key, *compiled).first;
    }
    std::shared_ptr<HostKernel> k = it->second;
    return {k->params(), [k](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                             const std::vector<size_t> &) { return k->launch(grid, args); }};
  }

  std::map<std::string, std::string> sources;
  std::map<std::string, std::shared_ptr<HostKernel>> builds;
};

/// The kernel tests: `builds` compiles each kernel from its file's source
/// (`sources`) once per set of defines within a test.
class TurboQuantHostTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (const auto &[kernel, source] : sources)
      ASSERT_FALSE(source.empty()) << "cannot read " << kernelPath(kernel);
  }

  std::map<std::string, std::string> sources = kernelSources();
  HostBuilds builds{sources};
};

/// Builds c's kernels into `kernels` (stage 1 with BLOCK_T, MMA, MIN_N and
/// PAGE, stage 2 with SPLITS = stage2, -1 for the launcher's) and checks c
/// against the reference, reported as `name`.
TqResult checkCase(HostBuilds &builds, const TqCase &c, int blockT, int mma, int minN, int page,
                   uint64_t seed, const std::string &name, TqKernels &kernels,
                   int64_t stage2 = -1) {
  std::string err = builds.get(c, blockT, mma, kernels, minN, page, stage2);
  if (!err.empty()) {
    ADD_FAILURE() << name << ": " << err;
    return {};
  }
  TqResult r = runTqCase(kernels, c, seed);
  EXPECT_TRUE(r.pass) << name << ": " << r.error << " (" << r.failures << " failures)";
  std::printf("%-118s err/bound %.4f\n", name.c_str(), r.maxErrOverBound);
  return r;
}

struct KernelCase {
  TqCase c;
  int blockT = 32;
};

std::vector<KernelCase> kernelCases() {
  std::vector<KernelCase> cases;
  auto add = [&](int kbits, int vbits, int64_t d, int64_t hq, int64_t hkv, int64_t heads,
                 std::vector<int64_t> lens, int64_t splits, Dtype t = Dtype::BF16,
                 bool randomR = false, int blockT = 32, int64_t blockSize = 16) {
    TqCase c;
    c.kbits = kbits, c.vbits = vbits, c.d = d, c.hq = hq, c.hkv = hkv;
    c.headsPerProgram = heads, c.seqLens = std::move(lens), c.numSplits = splits, c.dtype = t;
    c.randomOrthogonalR = randomR, c.blockSize = blockSize;
    cases.push_back({c, blockT});
  };
  // Every preset, GQA 4 with HEADS = group and 1: ragged, odd and length-1
  // sequences, splits that end mid-page and span several tiles.
  for (auto [kb, vb] : {std::pair{4, 4}, {3, 4}, {8, 4}, {3, 3}})
    for (int64_t heads : {4, 1})
      add(kb, vb, 128, 8, 2, heads, {1, 37, 200}, 3);
  // One split over many tiles: the online softmax's rescaling.
  add(4, 4, 128, 8, 2, 4, {300, 129}, 1, Dtype::BF16, false, 16);
  // More splits than tokens (empty splits), GQA 1 and 8.
  add(4, 4, 128, 4, 4, 1, {1, 3, 5}, 8);
  // Many splits (40, most of them non-empty) for stage 2 to merge.
  add(8, 4, 128, 4, 2, 2, {700, 37, 16}, 40, Dtype::F32);
  add(3, 4, 128, 16, 2, 8, {2, 19}, 6, Dtype::F16);
  // Hkv odd: the slots of a kv head alternate between 4- and 2-byte
  // alignment (4-bit codes joined from two aligned words).
  add(4, 4, 128, 6, 3, 2, {9, 40}, 2);
  add(8, 4, 128, 16, 2, 1, {2, 19}, 6, Dtype::F32);
  // D = 64 and 256, random orthogonal R, f16 / f32 outputs, tiles that
  // cross pages (BLOCK_T > block_size) and tiles smaller than a page.
  add(3, 4, 64, 8, 1, 8, {5, 64, 130}, 4, Dtype::F16, true);
  add(4, 4, 64, 4, 2, 2, {33, 1}, 2, Dtype::F32, true, 8, 8);
  add(4, 4, 256, 4, 4, 1, {33, 1}, 3, Dtype::BF16, false, 16);
  add(8, 4, 256, 8, 2, 4, {17, 40}, 2, Dtype::F16, true, 64, 32);
  add(3, 3, 256, 8, 1, 8, {9, 21}, 1, Dtype::BF16, false, 128, 8);
  // Values of small and large magnitude: value scales below f16's normal
  // range (the matrix-unit formulations' weights p vscale) and far above it.
  // The small ones with small queries: MMA >= 1 forms the scores from f16
  // parts (~2^-22 of their terms), which moves lse by a few f32 ulps, within
  // tier C's bound only through its 1e-3 max |v^| term.
  for (double scale : {1e-4, 1e-6, 1e3}) {
    add(4, 4, 128, 8, 2, 4, {37, 300}, 2, Dtype::F32, false, 16);
    cases.back().c.valueScale = scale;
    cases.back().c.queryScale = scale < 1 ? 0.05 : 1;
  }
  return cases;
}

TEST_F(TurboQuantHostTest, KernelsMatchTheReference) {
  // Stage 1's formulations; MMA = 2 also as AMD builds it (MIN_N = 16, MFMA's
  // N: the value codes as 1024 + c, not as f16 subnormals, which MI200's
  // MFMA flushes).
  const std::pair<int, int> forms[] = {{0, 8}, {1, 8}, {2, 8}, {2, 16}};
  double worst[4] = {0, 0, 0, 0};
  for (int f = 0; f < 4; ++f) {
    auto [mma, minN] = forms[f];
    uint64_t seed = 1000;
    for (const KernelCase &k : kernelCases()) {
      TqKernels kernels;
      std::string name = caseName(k.c) + " BLOCK_T=" + std::to_string(k.blockT) +
                         " MMA=" + std::to_string(mma) + " MIN_N=" + std::to_string(minN);
      TqResult r = checkCase(builds, k.c, k.blockT, mma, minN, 0, seed++, name, kernels);
      worst[f] = std::max(worst[f], r.maxErrOverBound);
    }
  }
  std::printf("largest err/bound: MMA=0 %.4f, MMA=1 %.4f, MMA=2 %.4f, MMA=2 MIN_N=16 %.4f\n",
              worst[0], worst[1], worst[2], worst[3]);
}

/// Stage 2 in each form, whatever tq::stage2Splits picks: one split at a time
/// and 4 or 16 at a time, on rows of one split, of fewer splits than a chunk,
/// of exactly a chunk and of several chunks, the last one partial (40 splits
/// a row, and rows of 37 and 16 splits where a sequence is shorter), and on
/// rows with more splits than tokens; D = 64, 128 and 256.
TEST_F(TurboQuantHostTest, Stage2Forms) {
  std::vector<TqCase> cases;
  for (auto [lens, splits] : {std::pair<std::vector<int64_t>, int64_t>{{700, 37, 16}, 40},
                              {{1, 3, 5}, 8},
                              {{300, 129}, 1}}) {
    TqCase c;
    c.kbits = 8, c.vbits = 4, c.hq = 4, c.hkv = 2, c.headsPerProgram = 2;
    c.seqLens = lens, c.numSplits = splits, c.dtype = Dtype::F32;
    cases.push_back(c);
  }
  // Large queries: lse differs by hundreds between splits, so a weight taken
  // against anything but the row's largest lse overflows exp.
  cases.push_back(cases.front());
  cases.back().queryScale = 100;
  // D = 64 and 256 ([16, D] accumulators of 4 and 16 KiB), bf16 and f16 out.
  for (auto [d, t] : {std::pair{int64_t(64), Dtype::BF16}, {int64_t(256), Dtype::F16}}) {
    cases.push_back(cases.front());
    cases.back().d = d, cases.back().dtype = t;
  }
  uint64_t seed = 3000;
  for (int64_t splits2 : {0, 4, 16})
    for (const TqCase &c : cases) {
      TqKernels kernels;
      checkCase(builds, c, 16, 2, 8, 0, seed++,
                caseName(c) + " stage 2 SPLITS=" + std::to_string(splits2), kernels, splits2);
    }
}

/// What midO and midLse hold before a write-set check: a NaN whose payload
/// no kernel computes.
constexpr uint32_t kUnwritten = 0x7fa5a5a5;

/// Runs (the rotation and) stage 1 of `p` on the programs of `grid`, a
/// corner of its own grid (B, Hq / HEADS, num_splits), after filling midO and
/// midLse with kUnwritten; "" or the error.
std::string runStage1On(const TqKernels &k, TqProblem &p, std::array<uint32_t, 3> grid) {
  float unwritten;
  std::memcpy(&unwritten, &kUnwritten, 4);
  std::fill(p.midO.begin(), p.midO.end(), unwritten);
  std::fill(p.midLse.begin(), p.midLse.end(), unwritten);
  if (rotates(p.c)) {
    KernelLaunch r = p.rotate();
    if (std::string err = k.rotate.launch(r.grid, r.args, r.bytes); !err.empty())
      return err;
  }
  KernelLaunch s1 = p.stage1();
  return k.stage1.launch(grid, s1.args, s1.bytes);
}

/// Checks that stage 1, run on `grid`, wrote exactly the partials of its
/// programs' query heads and non-empty splits, each whole and finite (NaN
/// where `nanWritten`); the first wrong partial, or "".
std::string checkWriteSet(const TqProblem &p, std::array<uint32_t, 3> grid, bool nanWritten) {
  const TqCase &c = p.c;
  for (int64_t b = 0; b < p.batch; ++b) {
    int64_t seq = c.seqLens[size_t(b)];
    int64_t per = std::max<int64_t>((seq + c.numSplits - 1) / c.numSplits, 1);
    for (int64_t h = 0; h < c.hq; ++h)
      for (int64_t s = 0; s < c.numSplits; ++s) {
        bool ran = b < grid[0] && h / c.headsPerProgram < grid[1] && s < grid[2];
        bool expect = ran && s * per < seq;
        int64_t part = (b * c.hq + h) * c.numSplits + s;
        std::string where = "partial [b " + std::to_string(b) + ", h " + std::to_string(h) +
                            ", split " + std::to_string(s) + "]";
        for (int64_t i = -1; i < c.d; ++i) {
          float x = i < 0 ? p.midLse[size_t(part)] : p.midO[size_t(part * c.d + i)];
          uint32_t bits;
          std::memcpy(&bits, &x, 4);
          std::string what = i < 0 ? "lse" : "o[" + std::to_string(i) + "]";
          if ((bits != kUnwritten) != expect)
            return where + " " + what + (expect ? " not written" : " written, not owned");
          if (expect && std::isnan(x) != nanWritten)
            return where + " " + what + " = " + std::to_string(x);
        }
      }
  }
  return "";
}

/// Stage 1 writes the partials of its own query heads and non-empty splits
/// and nothing else. Launched on a corner of its grid (the first sequence,
/// group of heads and two splits), it must leave every other partial as it
/// was: a store one head too wide (the matrix-unit formulations pad the
/// heads) writes into the next group's partials, which a whole-grid launch on
/// the host overwrites later, hiding it. Every formulation, HEADS 2 of a group
/// of 4 and 3 of 3 (padded to MMA = 1's 16 rows and MMA = 2's MIN_N), MSE
/// and fp8 keys; with PAGE = 16 launched with another block_size, the
/// partials it owns are NaN.
TEST_F(TurboQuantHostTest, Stage1WritesOnlyItsPartials) {
  struct Form {
    int mma, minN, page;
    int64_t heads, hq;
  };
  const Form forms[] = {{0, 8, 0, 2, 8},  {1, 8, 0, 2, 8}, {2, 8, 0, 2, 8}, {2, 16, 0, 2, 8},
                        {1, 8, 0, 3, 6},  {2, 8, 0, 3, 6}, {2, 16, 0, 3, 6}, {2, 8, 16, 2, 8},
                        {2, 8, 16, 3, 6}};
  const std::array<uint32_t, 3> corner = {1, 1, 2};
  uint64_t seed = 4000;
  for (const Form &f : forms)
    for (auto [kb, vb] : {std::pair{4, 4}, {8, 4}}) {
      TqCase c;
      c.kbits = kb, c.vbits = vb, c.hq = f.hq, c.hkv = 2, c.headsPerProgram = f.heads;
      c.seqLens = {37, 150, 1}, c.numSplits = 3;
      std::string name = caseName(c) + " MMA=" + std::to_string(f.mma) +
                         " MIN_N=" + std::to_string(f.minN) + " PAGE=" + std::to_string(f.page);
      TqKernels kernels;
      std::string err =
          builds.get(c, f.mma == 2 ? 16 : 32, f.mma, kernels, f.minN, f.page);
      ASSERT_EQ(err, "") << name;
      for (bool mismatch : {false, true}) {
        if (mismatch && !f.page)
          continue;
        c.blockSize = mismatch ? 2 * f.page : 16;
        TqProblem p = makeProblem(c, seed++);
        err = runStage1On(kernels, p, corner);
        ASSERT_EQ(err, "") << name;
        EXPECT_EQ(checkWriteSet(p, corner, mismatch), "")
            << name << (mismatch ? " launched with block_size 32" : "");
      }
    }
}

/// MMA = 2 specialised on block_size = PAGE: blocks of BLOCK_T <= PAGE
/// tokens that start anywhere in a page (splits of 13 and 50 tokens) and so
/// meet one or two pages, and BLOCK_T > PAGE (a constant block size); GQA 4
/// with HEADS 4 and 1, every preset. Launched with another block_size, the
/// kernel reads no slot and o and lse are NaN.
TEST_F(TurboQuantHostTest, SpecialisedOnTheBlockSize) {
  uint64_t seed = 3000;
  for (auto [blockT, page] : {std::pair{16, 16}, {16, 32}, {32, 16}})
    for (auto [kb, vb] : {std::pair{4, 4}, {3, 4}, {8, 4}})
      for (int64_t heads : {4, 1}) {
        TqCase c;
        c.kbits = kb, c.vbits = vb, c.hq = 8, c.hkv = 2, c.headsPerProgram = heads;
        c.blockSize = page, c.seqLens = {37, 150, 1}, c.numSplits = 3;
        TqKernels kernels;
        std::string name = caseName(c) + " BLOCK_T=" + std::to_string(blockT) +
                           " PAGE=" + std::to_string(page);
        checkCase(builds, c, blockT, 2, 8, page, seed++, name, kernels);
        if (!kernels.stage1.launch)
          continue; // not built: checkCase reported it
        c.blockSize = 2 * page;
        TqResult r = runTqCase(kernels, c, seed++);
        EXPECT_FALSE(r.pass) << name << " launched with block_size " << c.blockSize;
        EXPECT_NE(r.error.find("nan"), std::string::npos) << name << ": " << r.error;
      }
}

/// The page formulation (MMA = 3: one program a sequence and split, a warp a
/// kv head, each page staged whole): every MSE case of
/// KernelsMatchTheReference whose Hkv is a power of two (block sizes 8, 16
/// and 32; splits that start and end mid-page), with HEADS = the group, as
/// NVIDIA (MIN_N = 8) and AMD (16) build it. Launched with another
/// block_size, it reads no slot and o and lse are NaN.
TEST_F(TurboQuantHostTest, PageFormulationMatchesTheReference) {
  uint64_t seed = 5000;
  double worst = 0;
  for (int minN : {8, 16})
    for (KernelCase k : kernelCases()) {
      TqCase &c = k.c;
      if (c.kbits == 8 || !std::has_single_bit(uint64_t(c.hkv)))
        continue;
      c.headsPerProgram = c.hq / c.hkv, c.kvHeadsPerProgram = c.hkv;
      TqKernels kernels;
      std::string name = caseName(c) + " MMA=3 MIN_N=" + std::to_string(minN);
      TqResult r = checkCase(builds, c, 16, 3, minN, int(c.blockSize), seed++, name, kernels);
      worst = std::max(worst, r.maxErrOverBound);
      if (!kernels.stage1.launch || c.valueScale != 1)
        continue;
      c.blockSize *= 2;
      r = runTqCase(kernels, c, seed++);
      EXPECT_FALSE(r.pass) << name << " launched with block_size " << c.blockSize;
      EXPECT_NE(r.error.find("nan"), std::string::npos) << name << ": " << r.error;
    }
  std::printf("largest err/bound: MMA=3 %.4f\n", worst);
}

TEST_F(TurboQuantHostTest, RoundTrip) {
  for (int mma : {0, 1, 2, 3}) {
    uint64_t seed = 2000;
    for (auto [kb, vb] : {std::pair{4, 4}, {3, 4}, {8, 4}, {3, 3}}) {
      if (mma == 3 && kb == 8)
        continue; // the page formulation takes MSE keys
      TqCase c;
      c.kbits = kb, c.vbits = vb, c.hq = 8, c.hkv = 2, c.headsPerProgram = 4;
      c.kvHeadsPerProgram = mma == 3 ? c.hkv : 1;
      c.seqLens = {1, 1, 1};
      TqKernels kernels;
      std::string name = caseName(c) + " MMA=" + std::to_string(mma);
      std::string err = builds.get(c, 32, mma, kernels, 8, mma == 3 ? int(c.blockSize) : 0);
      ASSERT_TRUE(err.empty()) << name << ": " << err;
      TqResult r = runRoundTrip(kernels, c, seed++);
      EXPECT_TRUE(r.pass) << name << ": " << r.error;
      EXPECT_GT(r.minCosine, 0.85) << name;
    }
  }
}

/// A GQA group of 3 (Hq = 6, Hkv = 2) served by one program, HEADS = 3: the
/// matrix-unit formulations pad the heads (MMA = 1 to 16 query rows, MMA = 2
/// to MIN_N columns, 2 a head); MMA = 0 needs HEADS a power of two.
TEST_F(TurboQuantHostTest, GroupOfThree) {
  uint64_t seed = 4000;
  for (auto [kb, vb] : {std::pair{4, 4}, {3, 4}, {8, 4}})
    for (auto [mma, blockT, minN] : {std::tuple{1, 32, 8}, {2, 16, 8}, {2, 16, 16}}) {
      TqCase c;
      c.kbits = kb, c.vbits = vb, c.hq = 6, c.hkv = 2, c.headsPerProgram = 3;
      c.seqLens = {37, 150, 1}, c.numSplits = 3;
      TqKernels kernels;
      std::string name = caseName(c) + " MMA=" + std::to_string(mma) +
                         " MIN_N=" + std::to_string(minN);
      checkCase(builds, c, blockT, mma, minN, 0, seed++, name, kernels);
    }
}

} // namespace

