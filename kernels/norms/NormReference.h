//===- NormReference.h - float64 references of the norm kernels -*- C++ -*-===//
//
// The spec's norm family (kernels.md section 1) computed in float64, rounding
// to T exactly where the formulas do, with each element's tier-A bound. For
// T = f32 only, the bound also takes the propagated error of the kernels' f32
// sum of squares and f32 gelu (README.md, "f32 outputs").
// Matrices are contiguous row-major vectors of T-representable doubles.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_NORMS_NORMREFERENCE_H
#define TILE_NORMS_NORMREFERENCE_H

#include "FloatBits.h"

#include <cstdint>
#include <vector>

namespace tile::norms {

/// Reference values (already rounded to T) and tier-A bounds, both M x N.
struct RefOutput {
  std::vector<double> value;
  std::vector<double> bound;
};

struct FusedAddRef {
  RefOutput x;
  RefOutput res;
};

/// gelu_erf(z) = z/2 * erfc(-z/sqrt 2), free of cancellation for z << 0.
double gelu(double z);
/// gelu_erf'(z) = Phi(z) + z * phi(z).
double geluSlope(double z);

/// y = T(T(x*r) * w), r = 1/sqrt(mean_j x^2 + eps).
RefOutput rmsNormRef(test::Dtype t, const std::vector<double> &x,
                     const std::vector<double> &w, int64_t m, int64_t n,
                     double eps);

/// y = T(gelu(T(x*r) * w)).
RefOutput rmsNormGeluRef(test::Dtype t, const std::vector<double> &x,
                         const std::vector<double> &w, int64_t m, int64_t n,
                         double eps);

/// res := T(x + res); x := rms_norm(res).
FusedAddRef fusedAddRmsNormRef(test::Dtype t, const std::vector<double> &x,
                               const std::vector<double> &res,
                               const std::vector<double> &w, int64_t m,
                               int64_t n, double eps);

/// x[m,:] = sum_k table[ids[m,k],:]; y = rms_norm(x). `ids` is M x K and must
/// index rows of `table` (V x N). The bound includes the propagated error of
/// the kernel's f32 sum, |w| * r * K * 2^-24 * sum_k |term_k|.
RefOutput embedSumRmsNormRef(test::Dtype t, const std::vector<int32_t> &ids,
                             const std::vector<double> &table,
                             const std::vector<double> &w, int64_t m, int64_t k,
                             int64_t n, double eps);

} // namespace tile::norms

#endif // TILE_NORMS_NORMREFERENCE_H
