//===- MqaCheck.h - run a compiled fp8_mqa_logits and check tier B -*- C++ -*-===//
//
// Fresh seeded random inputs (fp8 e4m3 q and kv, positive kv scales, signed
// head weights), windows of the spec's patterns, a NaN-poisoned output with
// a padded row stride; then tier B against a float64 reference on the rows
// checked: |out - ref| <= 2^-10 * S_abs + 1e-30, -inf exactly where masked
// and nowhere else, the padding (and rows past S) untouched.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_MQA_MQACHECK_H
#define TILE_MQA_MQACHECK_H

#include "NormCheck.h"

#include <string>
#include <vector>

namespace tile::mqa {

enum class Pattern { Causal, Windows, Random };

struct MqaCase {
  int64_t S, T;
  Pattern pattern;
  /// Window length for Pattern::Windows.
  int64_t window = 2048;
  /// Check every rowStep-th row (and the last); 1 checks all.
  int64_t rowStep = 1;
  int64_t H = 64, D = 128;
};

struct MqaResult {
  bool pass = false;
  /// max |out - ref| / bound over the checked unmasked elements.
  double maxErrOverBound = 0;
  int64_t failures = 0;
  /// Unmasked (i, j) pairs of the whole problem: FLOPs = 2 H D pairs.
  int64_t pairs = 0;
  std::string error;
};

const char *patternName(Pattern p);

/// Rows past S in MqaProblem::logits, NaN-poisoned, which a launch must not
/// write (a program of BLOCK_Q <= 4 rows has at most 3 rows past S).
constexpr int64_t kGuardRows = 3;

/// The inputs of one case (host buffers) and its launch arguments.
struct MqaProblem {
  MqaCase c;
  std::vector<uint8_t> q, kv;
  std::vector<float> kvScale, w, logits;
  std::vector<int32_t> ks, ke;
  int64_t stride = 0;
  /// q, kv, kv_scale, w, ks, ke, logits, T, logits_stride, S.
  std::vector<Arg> args() const;
  std::vector<size_t> bytes() const;
  /// (cdiv(S, blockQ), cdiv(T, chunk)): one program per BLOCK_Q query rows
  /// and chunk of keys.
  std::array<uint32_t, 3> grid(int64_t chunk, int64_t blockQ = 1) const;
};

MqaProblem makeProblem(const MqaCase &c, uint64_t seed);

/// Checks `p.logits` (after a launch) against the reference.
MqaResult checkProblem(const MqaProblem &p);

/// Makes, launches (through `launch`, a build with CHUNK = `chunk` and
/// BLOCK_Q = `blockQ`, which set the grid) and checks a case.
MqaResult runMqaCase(const std::vector<ParamInfo> &params, const norms::Launcher &launch,
                     const MqaCase &c, int64_t chunk, uint64_t seed, int64_t blockQ = 1);

/// fp8_paged_mqa_logits: sequences of the given context lengths (a length may
/// be shorter than next_n), their pages shuffled over a paged cache, block
/// table entries past a sequence's pages pointing outside the cache.
struct PagedCase {
  std::vector<int64_t> contexts;
  int64_t nextN = 1, blockSize = 64;
  int64_t H = 64, D = 128;
};

/// Makes, launches (a build with CHUNK = `chunk` and BLOCK_Q = `blockQ`,
/// which set the grid) and checks a paged case on every row: tier B, -inf
/// exactly at the positions a query does not see.
MqaResult runPagedCase(const std::vector<ParamInfo> &params, const norms::Launcher &launch,
                       const PagedCase &c, int64_t chunk, uint64_t seed, int64_t blockQ = 1);

/// fp8_paged_mqa_logits' grid for `B` sequences of `nextN` query rows.
std::array<uint32_t, 3> pagedGrid(int64_t B, int64_t nextN, int64_t maxContext, int64_t chunk,
                                  int64_t blockQ);

} // namespace tile::mqa

#endif // TILE_MQA_MQACHECK_H
