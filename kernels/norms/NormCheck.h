//===- NormCheck.h - Run a compiled norm kernel and check tier A -*- C++
//-*-===//
//
// Launches one host-compiled norm kernel on fresh seeded random data and
// compares every output element with the float64 reference (NormReference.h)
// under the spec's tier-A bound. Outputs are NaN-poisoned before the launch;
// with `strided`, every 2-D operand has row stride 2 * cols and the gaps must
// come back untouched, as must every read-only buffer.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_NORMS_NORMCHECK_H
#define TILE_NORMS_NORMCHECK_H

#include "FloatBits.h"
#include "tile/Tile.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tile::norms {

struct NormCase {
  std::string kernel;
  test::Dtype dtype;
  int64_t M, N;
  bool strided;
  /// embed_sum_rms_norm only: ids per row and table rows.
  int64_t K = 8;
  int64_t V = 97;
};

struct NormResult {
  NormCase c;
  /// max |out - ref| / ulp_T(ref) over all checked outputs.
  double maxErrUlp = 0;
  /// max |out - ref| / bound; <= 1 when every element passes.
  double maxErrOverBound = 0;
  /// Elements out of bound or NaN, plus gap or input elements overwritten.
  int64_t failures = 0;
  bool pass = false;
  /// Why the case could not run, or a description of the first failure.
  std::string error;
};

/// {"rms_norm", "fused_add_rms_norm", "rms_norm_gelu", "embed_sum_rms_norm"}.
std::vector<std::string> normKernelNames();

/// The host-side check embed_sum_rms_norm's callers run before launch: every
/// ids[row * idsStride + col] (row < m, col < k) must lie in [0, vocab).
/// Returns "" or a message naming the first bad row, column and value.
/// Inline so that tests can use it without a HostKernel implementation.
inline std::string checkEmbedIds(const int32_t *ids, int64_t m, int64_t k,
                                 int64_t idsStride, int64_t vocab) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) {
      int32_t id = ids[i * idsStride + j];
      if (id >= 0 && id < vocab)
        continue;
      return "embed_sum_rms_norm: ids[" + std::to_string(i) + "][" +
             std::to_string(j) + "] = " + std::to_string(id) +
             " is outside the table's rows [0, " + std::to_string(vocab) + ")";
    }
  return "";
}

/// Launches a kernel on host buffers: pointer arguments point into host
/// memory and `bufferBytes[i]` is the size of pointer argument i (0 for
/// scalars). A GPU launcher copies the buffers in and back out.
using Launcher = std::function<std::string(std::array<uint32_t, 3> grid,
                                           const std::vector<Arg> &args,
                                           const std::vector<size_t> &bufferBytes)>;

/// Runs `c` with a kernel of signature `params` (compiled for c.kernel and
/// c.dtype) launched through `launch`, on data drawn from `seed`, and checks it.
NormResult runNormCase(const std::vector<ParamInfo> &params, const Launcher &launch,
                       const NormCase &c, uint64_t seed);

/// The same for a kernel compiled for the host CPU.
inline NormResult runNormCase(const tile::HostKernel &kernel, const NormCase &c,
                              uint64_t seed) {
  Launcher launch = [&](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                        const std::vector<size_t> &) { return kernel.launch(grid, args); };
  return runNormCase(kernel.params(), launch, c, seed);
}

} // namespace tile::norms

#endif // TILE_NORMS_NORMCHECK_H
