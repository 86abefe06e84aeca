//===- MqaCheck.cpp - run a compiled fp8_mqa_logits and check tier B ------===//
#include "MqaCheck.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

using namespace tile;
using namespace tile::mqa;

namespace {

/// A random finite e4m3 byte.
uint8_t randomE4M3(std::mt19937_64 &rng) {
  for (;;) {
    auto b = uint8_t(rng());
    if ((b & 0x7f) != 0x7f)
      return b;
  }
}

/// sum_h w[h] * max(0, q[h, :] . kv) and the sum of the absolute terms
/// (without the key scale).
void referenceLogit(const double *q, const double *kv, const float *w, int64_t H, int64_t D,
                    double &ref, double &abs) {
  ref = abs = 0;
  for (int64_t h = 0; h < H; ++h) {
    double dotv = 0, dotAbs = 0;
    for (int64_t d = 0; d < D; ++d) {
      dotv += q[h * D + d] * kv[d];
      dotAbs += std::fabs(q[h * D + d] * kv[d]);
    }
    ref += double(w[h]) * std::max(0.0, dotv);
    abs += std::fabs(double(w[h])) * dotAbs;
  }
}

std::vector<double> decode(const std::vector<uint8_t> &bytes) {
  std::vector<double> out(bytes.size());
  for (size_t k = 0; k < bytes.size(); ++k)
    out[k] = test::fromFp8Bits(bytes[k], true);
  return out;
}

/// Checks one logit: -inf when masked, else tier B. Counts into `r`.
void checkLogit(MqaResult &r, int64_t i, int64_t j, float out, bool masked, double ref,
                double abs) {
  auto where = [&] { return "logits[" + std::to_string(i) + "][" + std::to_string(j) + "] = "; };
  if (masked) {
    if (std::isinf(out) && out < 0)
      return;
    if (r.error.empty())
      r.error = where() + std::to_string(out) + " is masked: expected -inf";
    ++r.failures;
    return;
  }
  double bound = std::ldexp(abs, -10) + 1e-30, err = std::fabs(double(out) - ref);
  if (err <= bound) {
    r.maxErrOverBound = std::max(r.maxErrOverBound, err / bound);
    return;
  }
  if (r.error.empty()) {
    std::ostringstream os;
    os << where() << out << ", expected " << ref << " (bound " << bound << ")";
    r.error = os.str();
  }
  ++r.failures;
}

/// Padding columns [from, to) of a row must still hold the NaN poison.
void checkPadding(MqaResult &r, int64_t i, const float *row, int64_t from, int64_t to) {
  for (int64_t j = from; j < to; ++j)
    if (!std::isnan(row[j])) {
      if (r.error.empty())
        r.error = "padding logits[" + std::to_string(i) + "][" + std::to_string(j) + "] was written";
      ++r.failures;
    }
}

} // namespace

const char *tile::mqa::patternName(Pattern p) {
  return p == Pattern::Causal ? "causal" : p == Pattern::Windows ? "windows" : "random";
}

MqaProblem tile::mqa::makeProblem(const MqaCase &c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  MqaProblem p;
  p.c = c;
  p.q.resize(size_t(c.S * c.H * c.D));
  p.kv.resize(size_t(c.T * c.D));
  for (uint8_t &b : p.q)
    b = randomE4M3(rng);
  for (uint8_t &b : p.kv)
    b = randomE4M3(rng);
  std::uniform_real_distribution<float> scale(0.01f, 1.0f);
  std::normal_distribution<float> weight(0.0f, 1.0f);
  p.kvScale.resize(size_t(c.T));
  for (float &v : p.kvScale)
    v = scale(rng);
  p.w.resize(size_t(c.S * c.H));
  for (float &v : p.w)
    v = weight(rng);
  p.ks.resize(size_t(c.S));
  p.ke.resize(size_t(c.S));
  for (int64_t i = 0; i < c.S; ++i) {
    int64_t end = c.T - c.S + i + 1, start = 0;
    if (c.pattern == Pattern::Windows)
      start = end - c.window;
    if (c.pattern == Pattern::Random) {
      start = int64_t(rng() % uint64_t(c.T + 1)) - 2;
      end = start + int64_t(rng() % uint64_t(c.T + 3));
    }
    p.ks[size_t(i)] = int32_t(std::clamp<int64_t>(start, -3, c.T + 3));
    p.ke[size_t(i)] = int32_t(std::clamp<int64_t>(end, -3, c.T + 3));
  }
  p.stride = c.T + 5; // a padded view: the 5 extra columns must stay untouched
  // Guard rows past S (as many as a program of BLOCK_Q <= 4 rows has past S)
  // must stay untouched too.
  p.logits.assign(size_t((c.S + kGuardRows) * p.stride), std::nanf(""));
  return p;
}

std::vector<Arg> MqaProblem::args() const {
  return {Arg::pointer(q.data()),  Arg::pointer(kv.data()), Arg::pointer(kvScale.data()),
          Arg::pointer(w.data()),  Arg::pointer(ks.data()), Arg::pointer(ke.data()),
          Arg::pointer(logits.data()), Arg::integer(c.T), Arg::integer(stride),
          Arg::integer(c.S)};
}

std::vector<size_t> MqaProblem::bytes() const {
  return {q.size(), kv.size(), kvScale.size() * 4, w.size() * 4, ks.size() * 4,
          ke.size() * 4, logits.size() * 4, 0, 0, 0};
}

std::array<uint32_t, 3> MqaProblem::grid(int64_t chunk, int64_t blockQ) const {
  return {uint32_t((c.S + blockQ - 1) / blockQ), uint32_t((c.T + chunk - 1) / chunk), 1};
}

MqaResult tile::mqa::checkProblem(const MqaProblem &p) {
  const MqaCase &c = p.c;
  MqaResult r;
  std::vector<double> qv = decode(p.q), kvv = decode(p.kv);
  auto inside = [&](int64_t i, int64_t j) {
    return std::max<int64_t>(p.ks[size_t(i)], 0) <= j && j < std::min<int64_t>(p.ke[size_t(i)], c.T);
  };
  for (int64_t i = 0; i < c.S; ++i)
    for (int64_t j = 0; j < c.T; ++j)
      r.pairs += inside(i, j);
  for (int64_t i = 0; i < c.S; ++i) {
    if (i % c.rowStep != 0 && i != c.S - 1)
      continue;
    const float *row = &p.logits[size_t(i * p.stride)];
    checkPadding(r, i, row, c.T, p.stride);
    for (int64_t j = 0; j < c.T; ++j) {
      double ref = 0, abs = 0;
      if (inside(i, j)) {
        referenceLogit(&qv[size_t(i * c.H * c.D)], &kvv[size_t(j * c.D)], &p.w[size_t(i * c.H)],
                       c.H, c.D, ref, abs);
        ref *= p.kvScale[size_t(j)];
        abs *= p.kvScale[size_t(j)];
      }
      checkLogit(r, i, j, row[j], !inside(i, j), ref, abs);
    }
  }
  for (int64_t i = c.S; i < c.S + kGuardRows; ++i)
    checkPadding(r, i, &p.logits[size_t(i * p.stride)], 0, p.stride);
  r.pass = r.failures == 0;
  return r;
}

MqaResult tile::mqa::runMqaCase(const std::vector<ParamInfo> &params,
                                const norms::Launcher &launch, const MqaCase &c, int64_t chunk,
                                uint64_t seed, int64_t blockQ) {
  if (params.size() != 10) {
    MqaResult r;
    r.error = "fp8_mqa_logits: the build has " + std::to_string(params.size()) +
              " parameters, expected 10";
    return r;
  }
  MqaProblem p = makeProblem(c, seed);
  if (std::string err = launch(p.grid(chunk, blockQ), p.args(), p.bytes()); !err.empty()) {
    MqaResult r;
    r.error = err;
    return r;
  }
  return checkProblem(p);
}

std::array<uint32_t, 3> tile::mqa::pagedGrid(int64_t B, int64_t nextN, int64_t maxContext,
                                             int64_t chunk, int64_t blockQ) {
  return {uint32_t(B * ((nextN + blockQ - 1) / blockQ)),
          uint32_t((maxContext + chunk - 1) / chunk), 1};
}

MqaResult tile::mqa::runPagedCase(const std::vector<ParamInfo> &params,
                                  const norms::Launcher &launch, const PagedCase &c, int64_t chunk,
                                  uint64_t seed, int64_t blockQ) {
  MqaResult r;
  if (params.size() != 12) {
    r.error = "fp8_paged_mqa_logits: the build has " + std::to_string(params.size()) +
              " parameters, expected 12";
    return r;
  }
  std::mt19937_64 rng(seed);
  int64_t B = int64_t(c.contexts.size()), rows = B * c.nextN, bs = c.blockSize;
  int64_t maxContext = *std::max_element(c.contexts.begin(), c.contexts.end());
  int64_t maxBlocks = std::max<int64_t>(1, (maxContext + bs - 1) / bs), numBlocks = 3;
  for (int64_t ctx : c.contexts)
    numBlocks += (ctx + bs - 1) / bs;
  std::vector<int32_t> perm(static_cast<size_t>(numBlocks));
  for (size_t k = 0; k < perm.size(); ++k)
    perm[k] = int32_t(k);
  std::shuffle(perm.begin(), perm.end(), rng);
  // Entries past a sequence's pages point far outside the cache: never read.
  std::vector<int32_t> table(static_cast<size_t>(B * maxBlocks), 0x3fffffff);
  std::vector<int32_t> lens(static_cast<size_t>(B));
  for (int64_t b = 0, next = 0; b < B; ++b) {
    lens[size_t(b)] = int32_t(c.contexts[size_t(b)]);
    for (int64_t p = 0; p < (c.contexts[size_t(b)] + bs - 1) / bs; ++p)
      table[size_t(b * maxBlocks + p)] = perm[size_t(next++)];
  }
  std::vector<uint8_t> q(size_t(rows * c.H * c.D)), kv(size_t(numBlocks * bs * c.D));
  for (uint8_t &v : q)
    v = randomE4M3(rng);
  for (uint8_t &v : kv)
    v = randomE4M3(rng);
  std::uniform_real_distribution<float> scale(0.01f, 1.0f);
  std::normal_distribution<float> weight(0.0f, 1.0f);
  std::vector<float> kvScale(size_t(numBlocks * bs)), w(size_t(rows * c.H));
  for (float &v : kvScale)
    v = scale(rng);
  for (float &v : w)
    v = weight(rng);
  int64_t stride = maxContext + 3;
  std::vector<float> logits(size_t((rows + kGuardRows) * stride), std::nanf(""));
  std::vector<Arg> args = {Arg::pointer(q.data()),       Arg::pointer(kv.data()),
                           Arg::pointer(kvScale.data()), Arg::pointer(w.data()),
                           Arg::pointer(table.data()),   Arg::pointer(lens.data()),
                           Arg::pointer(logits.data()),  Arg::integer(c.nextN),
                           Arg::integer(bs),             Arg::integer(maxBlocks),
                           Arg::integer(maxContext),     Arg::integer(stride)};
  std::vector<size_t> bytes = {q.size(), kv.size(), kvScale.size() * 4, w.size() * 4,
                               table.size() * 4, lens.size() * 4, logits.size() * 4,
                               0, 0, 0, 0, 0};
  if (std::string err = launch(pagedGrid(B, c.nextN, maxContext, chunk, blockQ), args, bytes);
      !err.empty()) {
    r.error = err;
    return r;
  }
  std::vector<double> qv = decode(q), kvv = decode(kv);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t b = row / c.nextN, t = row % c.nextN;
    int64_t hi = c.contexts[size_t(b)] - c.nextN + t + 1;
    const float *out = &logits[size_t(row * stride)];
    checkPadding(r, row, out, maxContext, stride);
    for (int64_t j = 0; j < maxContext; ++j) {
      double ref = 0, abs = 0;
      bool masked = j >= hi;
      if (!masked) {
        int64_t slot = int64_t(table[size_t(b * maxBlocks + j / bs)]) * bs + j % bs;
        referenceLogit(&qv[size_t(row * c.H * c.D)], &kvv[size_t(slot * c.D)],
                       &w[size_t(row * c.H)], c.H, c.D, ref, abs);
        ref *= kvScale[size_t(slot)];
        abs *= kvScale[size_t(slot)];
        ++r.pairs;
      }
      checkLogit(r, row, j, out[j], masked, ref, abs);
    }
  }
  for (int64_t i = rows; i < rows + kGuardRows; ++i)
    checkPadding(r, i, &logits[size_t(i * stride)], 0, stride);
  r.pass = r.failures == 0;
  return r;
}
