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
  /// Query heads per stage-1 program (HEADS); divides Hq / Hkv.
  int64_t headsPerProgram = 4;
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

/// The split count by waves: the device holds `resident` stage-1 programs at
/// once, and stage 1 takes about waves x a program's work, cdiv(B *
/// programsPerSeq * s, resident) x (cdiv(seqLen, s) + 64) tokens (64: its
/// fixed work), for s splits; the smallest s in [1, min(ceil(seqLen / 128),
/// 64)] of least cost. (The
/// anchor's rule asks for 4 programs an SM whatever the kernel's occupancy:
/// 2.2 waves of one-warp programs at B x seq_len = 32 x 8192 where 8 fit an
/// SM, the last one 18% full.)
int64_t waveSplits(int64_t resident, int64_t b, int64_t programsPerSeq, int64_t seqLen);

/// How many splits stage 2's chunked build (-D SPLITS) reads at a time.
constexpr int64_t kStage2Chunk = 16;

/// Stage 2's SPLITS for rows of up to `numSplits` splits: 0 (one split at a
/// time) up to 8 splits, kStage2Chunk beyond (bench/RESULTS.md run 101).
int64_t stage2Splits(int64_t numSplits);

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
