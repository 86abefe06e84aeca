//===- LayoutCases.h - the layout kernels' variants, cases and checks -*- C++ -*-===//
//
// tests/gpu/kernels/layouts.tile holds kernels that exercise the GPU layouts
// (2-D tiles, reductions along either axis, loop-carried 2-D tiles, layout
// conversions, gathers from on-chip tables, bitcasts and reshapes, loads
// staged through shared memory and read back in a dot operand's layout).
// Each is built in several variants (tile sizes x warps) so
// that the tiles fall on the lanes, warps and registers in different ways;
// each variant runs over shapes with ragged edges and is checked against a
// float64 reference. layout-host-test runs them on the host target here,
// layout-gpu on the H200 (the same cases, seeds and checks).
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TESTS_LAYOUTCASES_H
#define TILE_TESTS_LAYOUTCASES_H

#include "NormCheck.h"

#include <map>
#include <string>
#include <vector>

namespace tile::layouts {

struct LayoutVariant {
  std::string kernel;
  std::map<std::string, std::string> defines;
  unsigned numWarps;
  /// --programs-per-cta (NVIDIA; the host runs programs one by one): its
  /// shapes keep the grid's y a multiple of it.
  unsigned programsPerCta = 1;
  /// A pointer parameter's alignment the build may assume (`--assume`,
  /// "words=16"; the harnesses' buffers are 16-byte aligned), or "".
  std::string assume;
  /// "softmax_rows.BM4.BN256.w4" (".c2" after it when packed, ".a16" when
  /// it assumes an alignment): the file name of its build.
  std::string name() const;
  /// The `tilec compile` arguments that build it (without -o and --target).
  std::string tilecArgs() const;
};

std::vector<LayoutVariant> layoutVariants();

/// The (M, N) shapes `variant` is checked on.
std::vector<std::pair<int64_t, int64_t>> layoutShapes(const LayoutVariant &variant);

/// Runs `variant` (its kernel's runtime parameters are `params`) through
/// `launch` on an M x N problem drawn from `seed`; "" when every output
/// matches the reference, else the first mismatch.
std::string runLayoutCase(const LayoutVariant &variant, const std::vector<ParamInfo> &params,
                          const norms::Launcher &launch, int64_t M, int64_t N, uint64_t seed);

} // namespace tile::layouts

#endif // TILE_TESTS_LAYOUTCASES_H
