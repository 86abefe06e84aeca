//===- MqaCheck.cpp - run a compiled fp8_mqa_logits and check tier B ------===//
#include "MqaCheck.h"

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
  p.logits.assign(size_t(c.S * p.stride), std::nanf(""));
  return p;
}

std::vector<Arg> MqaProblem::args() const {
  return {Arg::pointer(q.data()),  Arg::pointer(kv.data()), Arg::pointer(kvScale.data()),
          Arg::pointer(w.data()),  Arg::pointer(ks.data()), Arg::pointer(ke.data()),
          Arg::pointer(logits.data()), Arg::integer(c.T), Arg::integer(stride)};
}

std::vector<size_t> MqaProblem::bytes() const {
  return {q.size(), kv.size(), kvScale.size() * 4, w.size() * 4, ks.size() * 4,
          ke.size() * 4, logits.size() * 4, 0, 0};
}

std::array<uint32_t, 3> MqaProblem::grid(int64_t chunk) const {
  return {uint32_t(c.S), uint32_t((c.T + chunk - 1) / chunk), 1};
}

MqaResult tile::mqa::checkProblem(const MqaProblem &p) {
  const MqaCase &c = p.c;
  MqaResult r;
  std::vector<double> qv(p.q.size()), kvv(p.kv.size());
  for (size_t k = 0; k < qv.size(); ++k)
    qv[k] = test::fromFp8Bits(p.q[k], true);
  for (size_t k = 0; k < kvv.size(); ++k)
    kvv[k] = test::fromFp8Bits(p.kv[k], true);
  auto inside = [&](int64_t i, int64_t j) {
    return std::max<int64_t>(p.ks[size_t(i)], 0) <= j && j < std::min<int64_t>(p.ke[size_t(i)], c.T);
  };
  for (int64_t i = 0; i < c.S; ++i)
    for (int64_t j = 0; j < c.T; ++j)
      r.pairs += inside(i, j);
  auto fail = [&](const std::string &what) {
    if (r.error.empty())
      r.error = what;
    ++r.failures;
  };
  for (int64_t i = 0; i < c.S; ++i) {
    if (i % c.rowStep != 0 && i != c.S - 1)
      continue;
    const float *row = &p.logits[size_t(i * p.stride)];
    for (int64_t j = c.T; j < p.stride; ++j)
      if (!std::isnan(row[j]))
        fail("padding logits[" + std::to_string(i) + "][" + std::to_string(j) + "] was written");
    for (int64_t j = 0; j < c.T; ++j) {
      float out = row[j];
      if (!inside(i, j)) {
        if (!(std::isinf(out) && out < 0))
          fail("logits[" + std::to_string(i) + "][" + std::to_string(j) + "] = " +
               std::to_string(out) + " outside the window [" + std::to_string(p.ks[size_t(i)]) +
               ", " + std::to_string(p.ke[size_t(i)]) + "): expected -inf");
        continue;
      }
      double ref = 0, abs = 0;
      for (int64_t h = 0; h < c.H; ++h) {
        double dotv = 0, dotAbs = 0;
        const double *qh = &qv[size_t((i * c.H + h) * c.D)], *kj = &kvv[size_t(j * c.D)];
        for (int64_t d = 0; d < c.D; ++d) {
          dotv += qh[d] * kj[d];
          dotAbs += std::fabs(qh[d] * kj[d]);
        }
        double wh = p.w[size_t(i * c.H + h)];
        ref += wh * std::max(0.0, dotv);
        abs += std::fabs(wh) * dotAbs;
      }
      ref *= p.kvScale[size_t(j)];
      double bound = std::ldexp(abs * p.kvScale[size_t(j)], -10) + 1e-30;
      double err = std::fabs(double(out) - ref);
      if (err <= bound) {
        r.maxErrOverBound = std::max(r.maxErrOverBound, err / bound);
        continue;
      }
      std::ostringstream os;
      os << "logits[" << i << "][" << j << "] = " << out << ", expected " << ref << " (bound "
         << bound << ")";
      fail(os.str());
    }
  }
  r.pass = r.failures == 0;
  return r;
}

MqaResult tile::mqa::runMqaCase(const std::vector<ParamInfo> &params,
                                const norms::Launcher &launch, const MqaCase &c, int64_t chunk,
                                uint64_t seed) {
  if (params.size() != 9) {
    MqaResult r;
    r.error = "fp8_mqa_logits: the build has " + std::to_string(params.size()) +
              " parameters, expected 9";
    return r;
  }
  MqaProblem p = makeProblem(c, seed);
  if (std::string err = launch(p.grid(chunk), p.args(), p.bytes()); !err.empty()) {
    MqaResult r;
    r.error = err;
    return r;
  }
  return checkProblem(p);
}
