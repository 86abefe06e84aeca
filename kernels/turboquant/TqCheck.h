//===- TqCheck.h - run turboquant_decode's three kernels, check tier C -*- C++ -*-===//
//
// Builds a paged TurboQuant cache from fresh seeded random keys and values
// (pages shuffled over the cache, block table entries past a sequence's
// pages pointing outside it), runs turboquant_rotate, stage 1 and stage 2
// through launchers with NaN-poisoned outputs and partials, and checks every
// o and lse element at tier C against the float64 reference computed from
// the same codes: |out - ref| <= 2 ulp_T(ref) + 1e-3 * max_j |v^_j| (lse
// with T = f32). Also the spec's round trip: one token whose key is the
// query of its group's first head; every head's o must point along v.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TURBOQUANT_TQCHECK_H
#define TILE_TURBOQUANT_TQCHECK_H

#include "NormCheck.h"
#include "TurboQuantRef.h"

#include <memory>
#include <string>
#include <vector>

namespace tile::tq {

struct TqCase {
  int64_t d = 128;
  /// 3 or 4 (MSE keys) or 8 (fp8 keys); value bits 3 or 4.
  int kbits = 4, vbits = 4;
  int64_t hq = 32, hkv = 8, blockSize = 16;
  std::vector<int64_t> seqLens = {1};
  int64_t numSplits = 1;
  /// The activation type of q and o.
  test::Dtype dtype = test::Dtype::BF16;
  /// Query heads per stage-1 program and kv head (HEADS); divides Hq / Hkv.
  int64_t headsPerProgram = 4;
  /// Kv heads per stage-1 program: 1, or Hkv for the page formulation (MMA
  /// = 3, HEADS = Hq / Hkv: one program a sequence and split).
  int64_t kvHeadsPerProgram = 1;
  /// A random orthogonal R instead of the normalised Hadamard matrix.
  bool randomOrthogonalR = false;
  /// The values' coordinates are N(0, valueScale^2); the queries' are scaled
  /// by queryScale.
  double valueScale = 1, queryScale = 1;
};

/// "k4v4", "k3v4", "k8v4", "k3v3", ...
std::string presetName(int kbits, int vbits);

/// turboquant_rotate's RB (the columns of q' a program computes at a time),
/// which the builds set and rotate()'s grid counts on: D / RB column blocks.
constexpr int64_t kRotateColumns = 32;

/// Whether the case's queries go through turboquant_rotate (MSE keys): fp8
/// keys' stage 1 reads q itself.
inline bool rotates(const TqCase &c) { return c.kbits != 8; }

/// One line naming every field of a case.
std::string caseName(const TqCase &c);

/// The anchor's split count: min(ceil(4 SMs / programs), ceil(seq / 128), 64),
/// at least 1, where programs = B * Hq / HEADS; `perSm` replaces the 4.
int64_t defaultSplits(int64_t sms, int64_t b, int64_t programsPerSeq, int64_t seqLen,
                      int64_t perSm = 4);

/// The split count for a case's batch (its seqLens: B sequences of up to
/// max(seqLens) tokens) on `sms` SMs that each hold `perSm` stage-1 programs:
/// the smallest s in [1, min(ceil(seqLen / 32), 64)] of least cost, in
/// tokens of a lone program,
///   waves x (cdiv(seqLen, s) + 64) x (10 + n) / 10  +  s x (1 + rows / 400)
/// for waves = cdiv(programs, sms x perSm), programs = B x Hq / HEADS x s,
/// n = the programs an SM runs at once (at most perSm) and rows = B x Hq: a
/// program does 64 tokens' worth of fixed work, an SM running n programs runs
/// each at 10 / (10 + n) of a lone one's speed, and stage 2 costs 1 + rows /
/// 400 tokens a split (0.07 us a split at 32 rows, 0.75 us at 4096). Fitted on
/// the H200 (bench/RESULTS.md run 105: stage 1 at B x seq_len = 1 x 1024, 8 x
/// 1024 and 8 x 32768 with 8 to 64 splits, stage 2 at 32 to 4096 rows); against
/// the wave count alone it took 0.72-0.98x the time at seq_len 1024 and the
/// same elsewhere (run 106). The anchor's rule asks for 4 programs an SM
/// whatever the kernel's occupancy: 2.2 waves of one-warp programs at B x
/// seq_len = 32 x 8192 where 8 fit an SM, the last one 18% full.
int64_t waveSplits(int64_t sms, int64_t perSm, const TqCase &c);

/// How many splits stage 2's chunked build (-D SPLITS) reads at a time.
constexpr int64_t kStage2Chunk = 16;

/// Stage 2's SPLITS for the case's rows (B x Hq) of up to c.numSplits splits:
/// kStage2Chunk beyond max(8, rows / 48) splits, else 0 (one split at a
/// time). On the H200 (bench/RESULTS.md runs 101 and 105) the chunked form
/// took 0.6-0.95x the loop's time at 32 and 256 rows of 9-64 splits, but at
/// 1024 rows only from about 24 splits on, and at 4096 rows it was slower up
/// to 32 splits (1.02-1.31x): with many rows the loop's latency is hidden and
/// the chunks' masked lanes cost throughput.
int64_t stage2Splits(const TqCase &c);

/// A paged cache with its rotation and codebook (f32, as the kernel gets them).
struct TqCache {
  SlotLayout layout;
  int64_t blockSize, hkv, numBlocks;
  std::vector<float> rotation, codebook;
  std::vector<uint8_t> bytes;
};

/// A cache of `numBlocks` pages for c's layout and heads, encoded from fresh
/// random keys and values rounded to c.dtype. Only the first
/// `distinctBlocks` pages are encoded; each later page is a copy of a random
/// encoded one (big benchmark caches).
std::shared_ptr<TqCache> makeCache(const TqCase &c, int64_t numBlocks, int64_t distinctBlocks,
                                   uint64_t seed);

/// One kernel launch on host buffers (a norms::Launcher's arguments).
struct KernelLaunch {
  std::array<uint32_t, 3> grid;
  std::vector<Arg> args;
  std::vector<size_t> bytes;
};

/// The buffers of one problem; o, lse, qf (MSE keys only, else empty), midO
/// and midLse start as NaN.
struct TqProblem {
  TqCase c;
  std::shared_ptr<TqCache> cache;
  int64_t batch = 0, btStride = 0;
  float scale = 0;
  /// q[B, Hq, D] and o[B, Hq, D] in c.dtype.
  std::vector<uint8_t> q, o;
  std::vector<float> qf, midO, midLse, lse;
  std::vector<int32_t> blockTable, seqLens;

  KernelLaunch rotate() const;
  KernelLaunch stage1() const;
  KernelLaunch stage2() const;
  /// The cache bytes of the slots the kernel must read plus the block table
  /// entries it must read.
  double bytesRead() const;
};

/// A problem for `c` on pages of `cache` (which must have enough pages),
/// assigned by a random permutation.
TqProblem makeProblem(const TqCase &c, std::shared_ptr<TqCache> cache, uint64_t seed);

/// A problem for `c` on its own cache of exactly the pages it needs plus 3.
TqProblem makeProblem(const TqCase &c, uint64_t seed);

struct TqResult {
  bool pass = false;
  /// max |out - ref| / bound over the checked elements.
  double maxErrOverBound = 0;
  int64_t failures = 0;
  /// Round trip: the smallest cosine(o, v) over all heads.
  double minCosine = 0;
  /// Why the case could not run, or the first failing element.
  std::string error;
};

/// Checks o and lse of the sequences `seqs` (all when empty) after a launch.
TqResult checkProblem(const TqProblem &p, const std::vector<int64_t> &seqs = {});

/// A compiled kernel: its signature and a way to launch it.
struct TqKernel {
  std::vector<ParamInfo> params;
  norms::Launcher launch;
};

/// rotate is not used (and may be empty) where the case does not rotate.
struct TqKernels {
  TqKernel rotate, stage1, stage2;
};

/// Runs rotate (where the case rotates), stage 1 and stage 2 on `p`; returns
/// "" or the first error.
std::string runKernels(const TqKernels &k, TqProblem &p);

/// Makes, runs and checks a case.
TqResult runTqCase(const TqKernels &k, const TqCase &c, uint64_t seed);

/// The round trip on c.seqLens.size() sequences of one token each (c's
/// other lengths are ignored): cosine(o, v) > 0.85 for every head.
TqResult runRoundTrip(const TqKernels &k, const TqCase &c, uint64_t seed);

} // namespace tile::tq

#endif // TILE_TURBOQUANT_TQCHECK_H
