//===- NormReference.cpp - float64 references of the norm kernels --------===//

#include "NormReference.h"

#include <algorithm>
#include <cmath>

using tile::test::Dtype;
using tile::test::roundTo;
using tile::test::ulp;

namespace tile::norms {

namespace {

constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

/// What follows h = T(x*r) in a row, and the extra error of an f32 input sum.
struct RowSpec {
  bool gelu = false;
  /// sum_k |term_k| per column when x is the kernel's K-term f32 sum.
  const double *absTermSum = nullptr;
  int64_t terms = 0;
};

/// T = f32 only: the kernel's f32 sum of squares S = sum_j x_j^2 carries an
/// error of at most dS = N * 2^-24 * S (N positive terms); through
/// r = (S/N + eps)^-1/2 that is dr = r * dS / (2 (S + N * eps)). bf16 and
/// f16 outputs keep the spec's bound, which does not take it.
double f32SumSqError(double sumSq, int64_t n, double eps, double r) {
  double dS = n * 0x1p-24 * sumSq;
  return r * dS / (2 * (sumSq + n * eps));
}

/// T = f32 only: the f32 evaluation of gelu (the product z = h * w, erfc and
/// the products around it) is allowed 4 ulp_f32 of its input z, propagated
/// by |gelu'(z)|, plus 4 ulp_f32 of its result.
double f32GeluError(double z, double zSlope) {
  return zSlope * 4 * ulp(Dtype::F32, z) + 4 * ulp(Dtype::F32, gelu(z));
}

/// Tier A: 2 ulp_T(ref) + |d out/d h| * ulp_T(h), plus the propagated error
/// of the kernel's f32 embedding sum (embed_sum_rms_norm). For T = f32 the
/// kernel's own f32 arithmetic is as coarse as ulp_T, so the bound also
/// takes |d out/d h| * |x| * dr (f32SumSqError) and, for gelu, f32GeluError;
/// kernels/norms/README.md ("f32 outputs") explains both.
void normRow(Dtype t, const double *x, const double *w, int64_t n, double eps,
             const RowSpec &spec, double *value, double *bound) {
  double sumSq = 0;
  for (int64_t j = 0; j < n; ++j)
    sumSq += x[j] * x[j];
  double r = 1 / std::sqrt(sumSq / n + eps);
  bool f32 = t == Dtype::F32;
  double dr = f32 ? f32SumSqError(sumSq, n, eps, r) : 0;
  for (int64_t j = 0; j < n; ++j) {
    double h = roundTo(t, x[j] * r);
    double z = h * w[j];
    double zSlope = spec.gelu ? std::fabs(geluSlope(z)) : 1;
    double slope = std::fabs(w[j]) * zSlope;
    double ref = roundTo(t, spec.gelu ? gelu(z) : z);
    double b = 2 * ulp(t, ref) + slope * ulp(t, h);
    if (spec.absTermSum)
      b += std::fabs(w[j]) * r * spec.terms * 0x1p-24 * spec.absTermSum[j];
    if (f32)
      b += slope * std::fabs(x[j]) * dr;
    if (f32 && spec.gelu)
      b += f32GeluError(z, zSlope);
    value[j] = ref;
    bound[j] = b;
  }
}

RefOutput normRows(Dtype t, const std::vector<double> &x,
                   const std::vector<double> &w, int64_t m, int64_t n,
                   double eps, bool gelu) {
  RefOutput out{std::vector<double>(m * n), std::vector<double>(m * n)};
  RowSpec spec;
  spec.gelu = gelu;
  for (int64_t i = 0; i < m; ++i)
    normRow(t, &x[i * n], w.data(), n, eps, spec, &out.value[i * n],
            &out.bound[i * n]);
  return out;
}

} // namespace

double gelu(double z) { return 0.5 * z * std::erfc(-z * kSqrtHalf); }

double geluSlope(double z) {
  return 0.5 * std::erfc(-z * kSqrtHalf) +
         z * kInvSqrt2Pi * std::exp(-0.5 * z * z);
}

RefOutput rmsNormRef(Dtype t, const std::vector<double> &x,
                     const std::vector<double> &w, int64_t m, int64_t n,
                     double eps) {
  return normRows(t, x, w, m, n, eps, /*gelu=*/false);
}

RefOutput rmsNormGeluRef(Dtype t, const std::vector<double> &x,
                         const std::vector<double> &w, int64_t m, int64_t n,
                         double eps) {
  return normRows(t, x, w, m, n, eps, /*gelu=*/true);
}

FusedAddRef fusedAddRmsNormRef(Dtype t, const std::vector<double> &x,
                               const std::vector<double> &res,
                               const std::vector<double> &w, int64_t m,
                               int64_t n, double eps) {
  FusedAddRef out;
  out.res.value.resize(m * n);
  out.res.bound.resize(m * n);
  for (int64_t i = 0; i < m * n; ++i) {
    double s = roundTo(t, x[i] + res[i]);
    out.res.value[i] = s;
    out.res.bound[i] = 2 * ulp(t, s);
  }
  out.x = normRows(t, out.res.value, w, m, n, eps, /*gelu=*/false);
  return out;
}

RefOutput embedSumRmsNormRef(Dtype t, const std::vector<int32_t> &ids,
                             const std::vector<double> &table,
                             const std::vector<double> &w, int64_t m, int64_t k,
                             int64_t n, double eps) {
  RefOutput out{std::vector<double>(m * n), std::vector<double>(m * n)};
  std::vector<double> x(n), absSum(n);
  RowSpec spec;
  spec.absTermSum = absSum.data();
  spec.terms = k;
  for (int64_t i = 0; i < m; ++i) {
    std::fill(x.begin(), x.end(), 0.0);
    std::fill(absSum.begin(), absSum.end(), 0.0);
    for (int64_t c = 0; c < k; ++c) {
      const double *row = &table[static_cast<int64_t>(ids[i * k + c]) * n];
      for (int64_t j = 0; j < n; ++j) {
        x[j] += row[j];
        absSum[j] += std::fabs(row[j]);
      }
    }
    normRow(t, x.data(), w.data(), n, eps, spec, &out.value[i * n],
            &out.bound[i * n]);
  }
  return out;
}

} // namespace tile::norms
