//===- TqCheck.cpp - run turboquant_decode's three kernels, check tier C --===//
#include "TqCheck.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <sstream>

using namespace tile;
using namespace tile::tq;
using test::Dtype;

namespace {

/// Block table entries past a sequence's pages: far outside any cache.
constexpr int32_t kOutside = 0x3fffffff;

/// Deterministic across standard libraries, unlike std::*_distribution.
class Rng {
public:
  explicit Rng(uint64_t seed) : gen(seed) {}
  /// Uniform in [0, 1).
  double uniform() { return double(gen() >> 11) * 0x1p-53; }
  double normal() {
    double u1 = 1 - uniform(), u2 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  }
  int64_t below(int64_t n) { return int64_t(gen() % uint64_t(n)); }
  /// 0 .. n-1 in random order (Fisher-Yates).
  std::vector<int32_t> permutation(int64_t n) {
    std::vector<int32_t> p(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      p[size_t(i)] = int32_t(i);
    for (int64_t i = n - 1; i > 0; --i)
      std::swap(p[size_t(i)], p[size_t(below(i + 1))]);
    return p;
  }

private:
  std::mt19937_64 gen;
};

/// A random orthogonal matrix: Gram-Schmidt (twice, in f64) on the rows of
/// a Gaussian matrix, rounded to f32.
std::vector<float> randomOrthogonal(int64_t d, Rng &rng) {
  std::vector<double> a(size_t(d * d));
  for (double &x : a)
    x = rng.normal();
  for (int64_t i = 0; i < d; ++i) {
    double *row = &a[size_t(i * d)];
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t j = 0; j < i; ++j) {
        const double *prev = &a[size_t(j * d)];
        double dot = 0;
        for (int64_t k = 0; k < d; ++k)
          dot += row[k] * prev[k];
        for (int64_t k = 0; k < d; ++k)
          row[k] -= dot * prev[k];
      }
    double norm = 0;
    for (int64_t k = 0; k < d; ++k)
      norm += row[k] * row[k];
    for (int64_t k = 0; k < d; ++k)
      row[k] /= std::sqrt(norm);
  }
  return std::vector<float>(a.begin(), a.end());
}

/// N(0, 1) values rounded to `t`, as floats.
void randomVectors(Rng &rng, Dtype t, std::vector<float> &out, double scale = 1) {
  for (float &x : out)
    x = float(test::roundTo(t, scale * rng.normal()));
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string validateCase(const TqCase &c) {
  std::ostringstream os;
  if (c.d < 8 || c.d > 256 || !std::has_single_bit(uint64_t(c.d)))
    os << "D = " << c.d << " is not a power of two in [8, 256]";
  else if (c.kbits != 3 && c.kbits != 4 && c.kbits != 8)
    os << "key bits " << c.kbits << " is not 3, 4 or 8";
  else if (c.vbits != 3 && c.vbits != 4)
    os << "value bits " << c.vbits << " is not 3 or 4";
  else if (c.hkv < 1 || c.hq < 1 || c.hq % c.hkv != 0)
    os << "Hq = " << c.hq << " is not a multiple of Hkv = " << c.hkv;
  else if (c.headsPerProgram < 1 || (c.hq / c.hkv) % c.headsPerProgram != 0)
    os << "HEADS = " << c.headsPerProgram << " does not divide the group " << c.hq / c.hkv;
  else if (c.kvHeadsPerProgram != 1 &&
           (c.kvHeadsPerProgram != c.hkv || c.headsPerProgram != c.hq / c.hkv))
    os << c.kvHeadsPerProgram << " kv heads a program: only 1, or all " << c.hkv
       << " with HEADS = the group";
  else if (c.numSplits < 1 || c.blockSize < 1)
    os << "splits = " << c.numSplits << ", block_size = " << c.blockSize << ": both must be >= 1";
  else if (c.seqLens.empty() ||
           std::any_of(c.seqLens.begin(), c.seqLens.end(), [](int64_t l) { return l < 1; }))
    os << "every sequence needs at least one token";
  return os.str();
}

std::string checkParams(const char *kernel, const TqKernel &k, size_t want) {
  if (k.params.size() == want)
    return "";
  return std::string(kernel) + ": the build has " + std::to_string(k.params.size()) +
         " parameters, expected " + std::to_string(want);
}

/// Accumulates element comparisons into a TqResult.
class Checker {
public:
  explicit Checker(TqResult &r) : r(r) {}

  void element(const std::string &what, double out, double ref, double bound) {
    double err = out == ref ? 0 : std::fabs(out - ref);
    if (std::isnan(err))
      err = std::numeric_limits<double>::infinity();
    if (err <= bound) {
      r.maxErrOverBound = std::max(r.maxErrOverBound, err / bound);
      return;
    }
    std::ostringstream os;
    os.precision(9);
    os << what << " = " << out << ", reference " << ref << ", |err| " << err << " > bound "
       << bound;
    fail(os.str());
  }

  void fail(const std::string &message) {
    if (r.failures++ == 0)
      r.error = message;
  }

private:
  TqResult &r;
};

std::string elementName(const char *name, std::initializer_list<int64_t> idx) {
  std::string s = name;
  for (int64_t i : idx)
    s += "[" + std::to_string(i) + "]";
  return s;
}

} // namespace

std::string tq::presetName(int kbits, int vbits) {
  return "k" + std::to_string(kbits) + "v" + std::to_string(vbits);
}

std::string tq::caseName(const TqCase &c) {
  std::ostringstream os;
  os << presetName(c.kbits, c.vbits) << " D=" << c.d << " Hq=" << c.hq << " Hkv=" << c.hkv
     << " HEADS=" << c.headsPerProgram
     << (c.kvHeadsPerProgram > 1 ? " kv-heads/program=" + std::to_string(c.kvHeadsPerProgram) : "")
     << " block_size=" << c.blockSize << " splits=" << c.numSplits
     << " " << test::name(c.dtype) << (c.randomOrthogonalR ? " random-R" : " hadamard");
  if (c.valueScale != 1)
    os << " values*" << c.valueScale;
  if (c.queryScale != 1)
    os << " queries*" << c.queryScale;
  os << " seq_lens=";
  bool same = std::all_of(c.seqLens.begin(), c.seqLens.end(),
                          [&](int64_t l) { return l == c.seqLens.front(); });
  if (same && c.seqLens.size() > 1) {
    os << c.seqLens.size() << "x" << c.seqLens.front();
    return os.str();
  }
  for (size_t i = 0; i < c.seqLens.size(); ++i)
    os << (i ? "," : "[") << c.seqLens[i];
  os << "]";
  return os.str();
}

int64_t tq::defaultSplits(int64_t sms, int64_t b, int64_t programsPerSeq, int64_t seqLen,
                          int64_t perSm) {
  return std::max<int64_t>(
      1, std::min({cdiv(perSm * sms, b * programsPerSeq), cdiv(seqLen, 128), int64_t(64)}));
}

namespace {
/// waveSplits's cost model: a stage-1 program's fixed work in tokens (about
/// two 32-token blocks: its first loads' latency, the reductions and stores
/// at its end), the programs an SM runs at once for which each slows to half
/// a lone one's speed, the fewest tokens a split takes, and stage 2's cost a
/// split in tokens: one, plus one per kStage2Rows rows.
constexpr int64_t kProgramTokens = 64;
constexpr double kSmPrograms = 10;
constexpr int64_t kMinSplitTokens = 32;
constexpr double kStage2Rows = 400;
} // namespace

int64_t tq::waveSplits(int64_t sms, int64_t perSm, const TqCase &c) {
  int64_t b = int64_t(c.seqLens.size());
  int64_t seqLen = c.seqLens.empty() ? 0 : *std::max_element(c.seqLens.begin(), c.seqLens.end());
  int64_t perSeq = c.hq / (c.headsPerProgram * c.kvHeadsPerProgram), resident = std::max<int64_t>(sms * perSm, 1);
  double stage2 = 1 + double(b * c.hq) / kStage2Rows;
  int64_t best = 1;
  double bestCost = 0;
  for (int64_t s = 1; s <= std::min(cdiv(seqLen, kMinSplitTokens), int64_t(64)); ++s) {
    int64_t programs = b * perSeq * s;
    double atOnce = double(std::min(perSm, cdiv(programs, std::max<int64_t>(sms, 1))));
    double cost = double(cdiv(programs, resident) * (cdiv(seqLen, s) + kProgramTokens)) *
                      (kSmPrograms + atOnce) / kSmPrograms +
                  double(s) * stage2;
    if (s == 1 || cost < bestCost)
      best = s, bestCost = cost;
  }
  return best;
}

int64_t tq::stage2Splits(const TqCase &c) {
  int64_t rows = c.hq * int64_t(c.seqLens.size());
  return c.numSplits > std::max<int64_t>(8, rows / 48) ? kStage2Chunk : 0;
}

std::shared_ptr<TqCache> tq::makeCache(const TqCase &c, int64_t numBlocks, int64_t distinctBlocks,
                                       uint64_t seed) {
  Rng rng(seed);
  SlotLayout layout(int(c.d), c.kbits, c.vbits);
  auto cache = std::make_shared<TqCache>(
      TqCache{layout, c.blockSize, c.hkv, numBlocks, {}, kernelCodebook(layout), {}});
  cache->rotation = c.randomOrthogonalR ? randomOrthogonal(c.d, rng) : hadamard(int(c.d));
  int64_t pageSlots = c.blockSize * c.hkv, pageBytes = pageSlots * layout.slot;
  cache->bytes.resize(size_t(numBlocks * pageBytes));
  int64_t distinct = std::clamp<int64_t>(distinctBlocks, 1, numBlocks);
  std::vector<float> k(size_t(pageSlots * c.d)), v(k.size());
  for (int64_t page = 0; page < distinct; ++page) {
    randomVectors(rng, c.dtype, k);
    randomVectors(rng, c.dtype, v, c.valueScale);
    std::vector<uint8_t> slots =
        encode(layout, cache->rotation, cache->codebook, k.data(), v.data(), pageSlots);
    std::memcpy(&cache->bytes[size_t(page * pageBytes)], slots.data(), slots.size());
  }
  for (int64_t page = distinct; page < numBlocks; ++page)
    std::memcpy(&cache->bytes[size_t(page * pageBytes)],
                &cache->bytes[size_t(rng.below(distinct) * pageBytes)], size_t(pageBytes));
  return cache;
}

TqProblem tq::makeProblem(const TqCase &c, std::shared_ptr<TqCache> cache, uint64_t seed) {
  Rng rng(seed);
  TqProblem p;
  p.c = c;
  p.cache = std::move(cache);
  p.batch = int64_t(c.seqLens.size());
  int64_t maxLen = *std::max_element(c.seqLens.begin(), c.seqLens.end());
  // A view of a wider table: two entries past the longest sequence's pages.
  p.btStride = cdiv(maxLen, c.blockSize) + 2;
  p.blockTable.assign(size_t(p.batch * p.btStride), kOutside);
  std::vector<int32_t> perm = rng.permutation(p.cache->numBlocks);
  size_t next = 0;
  for (int64_t b = 0; b < p.batch; ++b) {
    p.seqLens.push_back(int32_t(c.seqLens[size_t(b)]));
    for (int64_t page = 0; page < cdiv(c.seqLens[size_t(b)], c.blockSize); ++page)
      p.blockTable[size_t(b * p.btStride + page)] = perm.at(next++);
  }
  // Queries of varied size per head: softmaxes from flat to peaked.
  size_t rows = size_t(p.batch * c.hq), dd = size_t(c.d);
  p.q.resize(rows * dd * test::sizeOf(c.dtype));
  for (size_t row = 0; row < rows; ++row) {
    double headScale = c.queryScale * std::exp2(3 * rng.uniform() - 1);
    for (size_t i = 0; i < dd; ++i)
      test::storeAs(c.dtype, p.q.data(), row * dd + i, headScale * rng.normal());
  }
  p.scale = float(1 / std::sqrt(double(c.d)));
  float nan = std::numeric_limits<float>::quiet_NaN();
  if (rotates(c))
    p.qf.assign(rows * dd, nan);
  p.midO.assign(rows * size_t(c.numSplits) * dd, nan);
  p.midLse.assign(rows * size_t(c.numSplits), nan);
  p.lse.assign(rows, nan);
  // All-ones bytes are a NaN in f32, f16 and bf16.
  p.o.assign(rows * dd * test::sizeOf(c.dtype), 0xff);
  return p;
}

TqProblem tq::makeProblem(const TqCase &c, uint64_t seed) {
  int64_t pages = 3;
  for (int64_t len : c.seqLens)
    pages += cdiv(len, c.blockSize);
  return makeProblem(c, makeCache(c, pages, pages, seed ^ 0x7151u), seed);
}

KernelLaunch TqProblem::rotate() const {
  // 16 query rows a program, D / RB column blocks (D = 64 makes 2 of them).
  int64_t rows = batch * c.hq;
  return {{uint32_t(cdiv(rows, 16)), uint32_t(c.d / kRotateColumns), 1},
          {Arg::pointer(q.data()), Arg::pointer(cache->rotation.data()), Arg::pointer(qf.data()),
           Arg::integer(rows)},
          {q.size(), cache->rotation.size() * 4, qf.size() * 4, 0}};
}

KernelLaunch TqProblem::stage1() const {
  return {{uint32_t(batch), uint32_t(c.hq / (c.headsPerProgram * c.kvHeadsPerProgram)),
           uint32_t(c.numSplits)},
          {Arg::pointer(rotates(c) ? static_cast<const void *>(qf.data()) : q.data()),
           Arg::pointer(cache->bytes.data()),
           Arg::pointer(cache->codebook.data()), Arg::pointer(blockTable.data()),
           Arg::pointer(seqLens.data()), Arg::pointer(midO.data()), Arg::pointer(midLse.data()),
           Arg::real(scale), Arg::integer(c.blockSize), Arg::integer(c.hkv),
           Arg::integer(c.hq / c.hkv), Arg::integer(btStride), Arg::integer(c.numSplits)},
          {rotates(c) ? qf.size() * 4 : q.size(), cache->bytes.size(), cache->codebook.size() * 4,
           blockTable.size() * 4,
           seqLens.size() * 4, midO.size() * 4, midLse.size() * 4, 0, 0, 0, 0, 0, 0}};
}

KernelLaunch TqProblem::stage2() const {
  return {{uint32_t(batch), uint32_t(c.hq), 1},
          {Arg::pointer(midO.data()), Arg::pointer(midLse.data()), Arg::pointer(seqLens.data()),
           Arg::pointer(o.data()), Arg::pointer(lse.data()), Arg::integer(c.hq),
           Arg::integer(c.numSplits)},
          {midO.size() * 4, midLse.size() * 4, seqLens.size() * 4, o.size(), lse.size() * 4, 0, 0}};
}

double TqProblem::bytesRead() const {
  double bytes = 0;
  for (int32_t len : seqLens)
    bytes += double(len) * c.hkv * cache->layout.slot + 4.0 * double(cdiv(len, c.blockSize));
  return bytes;
}

TqResult tq::checkProblem(const TqProblem &p, const std::vector<int64_t> &seqs) {
  const TqCase &c = p.c;
  TqResult r;
  Checker check(r);
  std::vector<int64_t> all;
  for (int64_t b = 0; b < p.batch; ++b)
    all.push_back(b);
  PagedCache view{p.cache->bytes.data(), c.blockSize, c.hkv,
                  p.blockTable.data(),   p.btStride,  p.seqLens.data()};
  std::vector<double> q(size_t(c.hq * c.d));
  for (int64_t b : seqs.empty() ? all : seqs) {
    for (size_t i = 0; i < q.size(); ++i)
      q[i] = test::loadAs(c.dtype, p.q.data(), size_t(b) * q.size() + i);
    SeqAttention ref = referenceAttention(p.cache->layout, p.cache->rotation, p.cache->codebook,
                                          view, b, q.data(), c.hq, p.scale);
    for (int64_t h = 0; h < c.hq; ++h) {
      double slack = 1e-3 * ref.vmax[size_t(h)];
      for (int64_t i = 0; i < c.d; ++i) {
        double want = test::roundTo(c.dtype, ref.o[size_t(h * c.d + i)]);
        double got = test::loadAs(c.dtype, p.o.data(), size_t((b * c.hq + h) * c.d + i));
        check.element(elementName("o", {b, h, i}), got, want, 2 * test::ulp(c.dtype, want) + slack);
      }
      double want = test::roundTo(Dtype::F32, ref.lse[size_t(h)]);
      check.element(elementName("lse", {b, h}), p.lse[size_t(b * c.hq + h)], want,
                    2 * test::ulp(Dtype::F32, want) + slack);
    }
  }
  r.pass = r.failures == 0;
  return r;
}

std::string tq::runKernels(const TqKernels &k, TqProblem &p) {
  struct Step {
    const char *name;
    const TqKernel &kernel;
    size_t params;
    KernelLaunch launch;
  };
  std::vector<Step> steps;
  if (rotates(p.c))
    steps.push_back({"turboquant_rotate", k.rotate, 4, p.rotate()});
  steps.push_back({"turboquant_decode_stage1", k.stage1, 13, p.stage1()});
  steps.push_back({"turboquant_decode_stage2", k.stage2, 7, p.stage2()});
  for (const Step &s : steps)
    if (std::string err = checkParams(s.name, s.kernel, s.params); !err.empty())
      return err;
  for (const Step &s : steps)
    if (std::string err = s.kernel.launch(s.launch.grid, s.launch.args, s.launch.bytes);
        !err.empty())
      return std::string(s.name) + ": " + err;
  return "";
}

TqResult tq::runTqCase(const TqKernels &k, const TqCase &c, uint64_t seed) {
  TqResult r;
  if (r.error = validateCase(c); !r.error.empty())
    return r;
  TqProblem p = makeProblem(c, seed);
  if (r.error = runKernels(k, p); !r.error.empty())
    return r;
  return checkProblem(p);
}

TqResult tq::runRoundTrip(const TqKernels &k, const TqCase &c, uint64_t seed) {
  TqCase one = c;
  one.seqLens.assign(c.seqLens.size(), 1);
  TqResult r;
  if (r.error = validateCase(one); !r.error.empty())
    return r;
  TqProblem p = makeProblem(one, seed);
  // Token 0 of kv head g: k = q of query head g * group, v fresh.
  Rng rng(seed ^ 0x5eedu);
  const TqCache &cache = *p.cache;
  int64_t group = c.hq / c.hkv, d = c.d;
  std::vector<float> key(static_cast<size_t>(d)), v(size_t(p.batch * c.hkv * d));
  randomVectors(rng, c.dtype, v);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t g = 0; g < c.hkv; ++g) {
      for (int64_t i = 0; i < d; ++i)
        key[size_t(i)] =
            float(test::loadAs(c.dtype, p.q.data(), size_t(((b * c.hq) + g * group) * d + i)));
      std::vector<uint8_t> slot = encode(cache.layout, cache.rotation, cache.codebook, key.data(),
                                         &v[size_t((b * c.hkv + g) * d)], 1);
      int64_t block = p.blockTable[size_t(b * p.btStride)];
      std::memcpy(&p.cache->bytes[size_t((block * c.blockSize * c.hkv + g) * cache.layout.slot)],
                  slot.data(), slot.size());
    }
  if (r.error = runKernels(k, p); !r.error.empty())
    return r;
  r = checkProblem(p);
  r.minCosine = std::numeric_limits<double>::infinity();
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < c.hq; ++h) {
      const float *want = &v[size_t((b * c.hkv + h / group) * d)];
      double dot = 0, oo = 0, vv = 0;
      for (int64_t i = 0; i < d; ++i) {
        double o = test::loadAs(c.dtype, p.o.data(), size_t((b * c.hq + h) * d + i));
        dot += o * want[i];
        oo += o * o;
        vv += double(want[i]) * want[i];
      }
      double cosine = dot / std::sqrt(oo * vv);
      if (std::isnan(cosine))
        cosine = -std::numeric_limits<double>::infinity();
      r.minCosine = std::min(r.minCosine, cosine);
      if (cosine <= 0.85) {
        std::ostringstream os;
        os << "round trip: cosine(o[" << b << "][" << h << "], v) = " << cosine << " <= 0.85";
        Checker(r).fail(os.str());
      }
    }
  r.pass = r.failures == 0;
  return r;
}
