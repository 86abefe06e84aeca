//===- NormCheck.cpp - Run a compiled norm kernel and check tier A -------===//

#include "NormCheck.h"
#include "NormReference.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>

using tile::test::Dtype;

namespace tile::norms {

namespace {

constexpr double kEps = 1e-6;
/// The kernel receives eps as an f32; the reference uses the same value.
const double kEpsF32 = static_cast<float>(kEps);
/// All-ones bytes are a NaN in f32, f16 and bf16.
constexpr unsigned char kPoison = 0xFF;

std::string format(const char *fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

/// Deterministic across standard libraries, unlike std::*_distribution.
class Rng {
public:
  explicit Rng(uint64_t seed) : gen(seed) {}
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(gen() >> 11) * 0x1p-53; }
  double normal() {
    double u1 = 1 - uniform();
    double u2 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  }
  int64_t below(int64_t n) { return static_cast<int64_t>(gen() % n); }

private:
  std::mt19937_64 gen;
};

/// A rows x cols matrix of T with row stride `stride` elements; everything
/// not set stays poison.
struct Matrix {
  Matrix(Dtype t, int64_t rows, int64_t cols, int64_t stride)
      : t(t), rows(rows), cols(cols), stride(stride),
        bytes(rows * stride * test::sizeOf(t), kPoison) {}

  void set(int64_t i, int64_t j, double v) {
    test::storeAs(t, bytes.data(), i * stride + j, v);
  }
  double get(int64_t i, int64_t j) const {
    return test::loadAs(t, bytes.data(), i * stride + j);
  }
  /// The logical values, contiguous.
  std::vector<double> values() const {
    std::vector<double> v(rows * cols);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        v[i * cols + j] = get(i, j);
    return v;
  }
  Arg arg() { return Arg::pointer(bytes.data()); }

  Dtype t;
  int64_t rows, cols, stride;
  std::vector<unsigned char> bytes;
};

/// x ~ N(0, 1) times a per-row scale in [1/4, 4).
Matrix randomActivations(Rng &rng, Dtype t, int64_t rows, int64_t cols,
                         int64_t stride) {
  Matrix x(t, rows, cols, stride);
  for (int64_t i = 0; i < rows; ++i) {
    double scale = std::exp2(4 * rng.uniform() - 2);
    for (int64_t j = 0; j < cols; ++j)
      x.set(i, j, scale * rng.normal());
  }
  return x;
}

/// w uniform in [-2, 2], never exactly 0 or +-1 after rounding to T.
Matrix randomWeights(Rng &rng, Dtype t, int64_t n) {
  Matrix w(t, 1, n, n);
  for (int64_t j = 0; j < n; ++j) {
    double v = 0;
    while (v == 0 || std::fabs(v) == 1)
      v = test::roundTo(t, 4 * rng.uniform() - 2);
    w.set(0, j, v);
  }
  return w;
}

/// Accumulates the comparison of outputs and buffers into a NormResult.
class Checker {
public:
  explicit Checker(NormResult &result) : result(result) {}

  void outputs(const char *what, const Matrix &out, const RefOutput &ref) {
    for (int64_t i = 0; i < out.rows; ++i)
      for (int64_t j = 0; j < out.cols; ++j)
        element(what, i, j, out.get(i, j), ref.value[i * out.cols + j],
                ref.bound[i * out.cols + j], out.t);
    gaps(what, out);
  }

  void unchanged(const char *what, const std::vector<unsigned char> &before,
                 const Matrix &after) {
    size_t size = test::sizeOf(after.t);
    for (size_t e = 0; e < before.size() / size; ++e)
      if (std::memcmp(&before[e * size], &after.bytes[e * size], size) != 0)
        fail(format("%s: read-only element %zu was modified", what, e));
  }

  void unchanged(const char *what, const std::vector<int32_t> &before,
                 const std::vector<int32_t> &after) {
    for (size_t e = 0; e < before.size(); ++e)
      if (before[e] != after[e])
        fail(format("%s: read-only element %zu was modified", what, e));
  }

private:
  /// Elements between a row's end and the next row must still be poison.
  void gaps(const char *what, const Matrix &m) {
    size_t size = test::sizeOf(m.t);
    for (int64_t i = 0; i < m.rows; ++i)
      for (int64_t j = m.cols; j < m.stride; ++j) {
        const unsigned char *e = &m.bytes[(i * m.stride + j) * size];
        if (std::all_of(e, e + size,
                        [](unsigned char b) { return b == kPoison; }))
          continue;
        fail(format("%s: row %lld, gap column %lld was written", what,
                    (long long)i, (long long)j));
      }
  }

  void element(const char *what, int64_t i, int64_t j, double out, double ref,
               double bound, Dtype t) {
    double err = out == ref ? 0 : std::fabs(out - ref);
    if (std::isnan(err))
      err = std::numeric_limits<double>::infinity();
    if (err != 0) {
      result.maxErrUlp = std::max(result.maxErrUlp, err / test::ulp(t, ref));
      result.maxErrOverBound = std::max(result.maxErrOverBound, err / bound);
    }
    if (err <= bound)
      return;
    fail(format("%s[%lld][%lld] = %.9g, reference %.9g, |err| %.3g > bound "
                "%.3g",
                what, (long long)i, (long long)j, out, ref, err, bound));
  }

  void fail(std::string message) {
    if (result.failures++ == 0)
      result.error = std::move(message);
  }

  NormResult &result;
};

/// A kernel as the checks see it: its signature and a way to launch it.
struct Runner {
  const std::vector<ParamInfo> &params;
  const Launcher &launch;
};

std::array<uint32_t, 3> rowGrid(int64_t m) {
  return {static_cast<uint32_t>(m), 1, 1};
}

std::string runRowNorm(const Runner &kernel, const NormCase &c, Rng &rng,
                       bool gelu, NormResult &result) {
  Dtype t = c.dtype;
  int64_t ld = c.strided ? 2 * c.N : c.N;
  Matrix x = randomActivations(rng, t, c.M, c.N, ld);
  Matrix w = randomWeights(rng, t, c.N);
  Matrix y(t, c.M, c.N, ld);
  std::vector<unsigned char> xBefore = x.bytes, wBefore = w.bytes;
  RefOutput ref =
      gelu ? rmsNormGeluRef(t, x.values(), w.values(), c.M, c.N, kEpsF32)
           : rmsNormRef(t, x.values(), w.values(), c.M, c.N, kEpsF32);
  std::string err = kernel.launch(
      rowGrid(c.M), {x.arg(), w.arg(), y.arg(), Arg::integer(c.N),
                     Arg::integer(ld), Arg::integer(ld), Arg::real(kEps)},
      {x.bytes.size(), w.bytes.size(), y.bytes.size(), 0, 0, 0, 0});
  if (!err.empty())
    return err;
  Checker check(result);
  check.outputs("y", y, ref);
  check.unchanged("x", xBefore, x);
  check.unchanged("w", wBefore, w);
  return "";
}

std::string runFusedAdd(const Runner &kernel, const NormCase &c, Rng &rng,
                        NormResult &result) {
  Dtype t = c.dtype;
  int64_t ld = c.strided ? 2 * c.N : c.N;
  Matrix x = randomActivations(rng, t, c.M, c.N, ld);
  Matrix res = randomActivations(rng, t, c.M, c.N, ld);
  Matrix w = randomWeights(rng, t, c.N);
  FusedAddRef ref = fusedAddRmsNormRef(t, x.values(), res.values(), w.values(),
                                       c.M, c.N, kEpsF32);
  std::vector<unsigned char> wBefore = w.bytes;
  std::string err = kernel.launch(
      rowGrid(c.M), {x.arg(), res.arg(), w.arg(), Arg::integer(c.N),
                     Arg::integer(ld), Arg::integer(ld), Arg::real(kEps)},
      {x.bytes.size(), res.bytes.size(), w.bytes.size(), 0, 0, 0, 0});
  if (!err.empty())
    return err;
  Checker check(result);
  check.outputs("res", res, ref.res);
  check.outputs("x", x, ref.x);
  check.unchanged("w", wBefore, w);
  return "";
}

std::string runEmbedSum(const Runner &kernel, const NormCase &c, Rng &rng,
                        NormResult &result) {
  Dtype t = c.dtype;
  int64_t ld = c.strided ? 2 * c.N : c.N;
  int64_t idsLd = c.strided ? 2 * c.K : c.K;
  // The gaps hold valid ids too, so a kernel that reads them computes wrong
  // rows instead of reading outside the table.
  std::vector<int32_t> ids(c.M * idsLd);
  for (int32_t &id : ids)
    id = static_cast<int32_t>(rng.below(c.V));
  Matrix table = randomActivations(rng, t, c.V, c.N, ld);
  Matrix w = randomWeights(rng, t, c.N);
  Matrix y(t, c.M, c.N, ld);
  std::vector<int32_t> idsBefore = ids;
  std::vector<unsigned char> tableBefore = table.bytes, wBefore = w.bytes;
  std::vector<int32_t> idsDense(c.M * c.K);
  for (int64_t i = 0; i < c.M; ++i)
    for (int64_t k = 0; k < c.K; ++k)
      idsDense[i * c.K + k] = ids[i * idsLd + k];
  RefOutput ref = embedSumRmsNormRef(t, idsDense, table.values(), w.values(),
                                     c.M, c.K, c.N, kEpsF32);
  if (std::string bad = checkEmbedIds(ids.data(), c.M, c.K, idsLd, c.V);
      !bad.empty())
    return bad;
  std::string err = kernel.launch(
      rowGrid(c.M), {Arg::pointer(ids.data()), table.arg(), w.arg(), y.arg(),
                     Arg::integer(c.K), Arg::integer(c.N), Arg::integer(idsLd),
                     Arg::integer(ld), Arg::integer(ld), Arg::real(kEps)},
      {ids.size() * sizeof(int32_t), table.bytes.size(), w.bytes.size(), y.bytes.size(), 0, 0,
       0, 0, 0, 0});
  if (!err.empty())
    return err;
  Checker check(result);
  check.outputs("y", y, ref);
  check.unchanged("ids", idsBefore, ids);
  check.unchanged("table", tableBefore, table);
  check.unchanged("w", wBefore, w);
  return "";
}

ScalarKind scalarKind(Dtype t) {
  switch (t) {
  case Dtype::F32:
    return ScalarKind::F32;
  case Dtype::F16:
    return ScalarKind::F16;
  case Dtype::BF16:
    return ScalarKind::BF16;
  }
  return ScalarKind::F32;
}

/// The runtime parameters each kernel's .tile source declares.
std::vector<ParamInfo> expectedParams(const std::string &kernel, Dtype t) {
  ScalarKind e = scalarKind(t);
  auto ptr = [](const char *name, ScalarKind k) {
    return ParamInfo{name, k, true};
  };
  auto scalar = [](const char *name, ScalarKind k) {
    return ParamInfo{name, k, false};
  };
  if (kernel == "fused_add_rms_norm")
    return {ptr("x", e),
            ptr("res", e),
            ptr("w", e),
            scalar("N", ScalarKind::I32),
            scalar("x_stride", ScalarKind::I64),
            scalar("res_stride", ScalarKind::I64),
            scalar("eps", ScalarKind::F32)};
  if (kernel == "embed_sum_rms_norm")
    return {ptr("ids", ScalarKind::I32),
            ptr("table", e),
            ptr("w", e),
            ptr("y", e),
            scalar("K", ScalarKind::I32),
            scalar("N", ScalarKind::I32),
            scalar("ids_stride", ScalarKind::I64),
            scalar("table_stride", ScalarKind::I64),
            scalar("y_stride", ScalarKind::I64),
            scalar("eps", ScalarKind::F32)};
  return {ptr("x", e),
          ptr("w", e),
          ptr("y", e),
          scalar("N", ScalarKind::I32),
          scalar("x_stride", ScalarKind::I64),
          scalar("y_stride", ScalarKind::I64),
          scalar("eps", ScalarKind::F32)};
}

/// Launch checks the argument count and classes; this also catches a kernel
/// compiled for another element type than the buffers hold.
std::string checkParams(const Runner &kernel, const NormCase &c) {
  std::vector<ParamInfo> want = expectedParams(c.kernel, c.dtype);
  const std::vector<ParamInfo> &have = kernel.params;
  if (have.size() != want.size())
    return format("%s: kernel has %zu parameters, expected %zu",
                  c.kernel.c_str(), have.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (have[i].isPointer == want[i].isPointer && have[i].kind == want[i].kind)
      continue;
    return format("%s: parameter %zu (%s) is %s, the %s case expects %s",
                  c.kernel.c_str(), i, have[i].name.c_str(),
                  paramTypeName(have[i]).c_str(), test::name(c.dtype),
                  paramTypeName(want[i]).c_str());
  }
  return "";
}

std::string validateCase(const NormCase &c) {
  std::vector<std::string> names = normKernelNames();
  if (std::find(names.begin(), names.end(), c.kernel) == names.end())
    return "unknown norm kernel '" + c.kernel + "'";
  constexpr int64_t i32Max = std::numeric_limits<int32_t>::max();
  if (c.M < 1 || c.M > std::numeric_limits<uint32_t>::max())
    return format("M = %lld is outside [1, 2^32)", (long long)c.M);
  if (c.N < 1 || c.N > i32Max)
    return format("N = %lld is outside [1, 2^31)", (long long)c.N);
  if (c.kernel == "embed_sum_rms_norm" &&
      (c.K < 1 || c.K > i32Max || c.V < 1 || c.V > i32Max))
    return format("K = %lld, V = %lld: both must lie in [1, 2^31)",
                  (long long)c.K, (long long)c.V);
  return "";
}

} // namespace

std::vector<std::string> normKernelNames() {
  return {"rms_norm", "fused_add_rms_norm", "rms_norm_gelu",
          "embed_sum_rms_norm"};
}

NormResult runNormCase(const std::vector<ParamInfo> &params, const Launcher &launch,
                       const NormCase &c, uint64_t seed) {
  Runner kernel{params, launch};
  NormResult result;
  result.c = c;
  if (std::string err = validateCase(c); !err.empty()) {
    result.error = err;
    return result;
  }
  if (std::string err = checkParams(kernel, c); !err.empty()) {
    result.error = err;
    return result;
  }
  Rng rng(seed);
  std::string err;
  if (c.kernel == "fused_add_rms_norm")
    err = runFusedAdd(kernel, c, rng, result);
  else if (c.kernel == "embed_sum_rms_norm")
    err = runEmbedSum(kernel, c, rng, result);
  else
    err = runRowNorm(kernel, c, rng, c.kernel == "rms_norm_gelu", result);
  if (!err.empty()) {
    result.error = err;
    return result;
  }
  result.pass = result.failures == 0;
  return result;
}

} // namespace tile::norms
