//===- TqGpu.cpp - turboquant_decode on an NVIDIA GPU: check, then time ---===//
//
// Loads the PTX builds of the three TurboQuant kernels that `tilec compile`
// wrote, one per set of compile-time parameters each kernel depends on:
//
//   DIR/turboquant_rotate.<T>.d<D>.ptx                  (MSE keys only)
//   DIR/turboquant_decode_stage1.d<D>.k<KBITS>v<VBITS>[.<T>].h<HEADS>
//       [.mma|.mma.tok[.p<PAGE>][.c8]|.page].ptx
//                                       (<T>: fp8 keys, whose stage 1 reads q)
//   DIR/turboquant_decode_stage2.<T>.d<D>[.s16].ptx
//
// (e.g. turboquant_decode_stage1.d128.k4v4.h4.ptx; `tq-gpu --list` prints
// every build with its tilec compile arguments). Stage 1 comes in four
// formulations, and every check and timing row runs with each that serves it
// (the page formulation: MSE keys, Hkv a power of two, HEADS = group): the CUDA-core
// products (MMA = 0, no suffix), both products on the matrix units with the
// hand-made register pipeline (`.mma`: -D MMA=1 -D BLOCK_T=32, which keeps
// ptxas from spilling) and on the matrix units with tokens as M, one warp a
// program and the codes loaded straight into the operand registers
// (`.mma.tok`: -D MMA=2 --num-warps=1 -D BLOCK_T=16, 3-bit keys held to 152
// registers and fp8 keys to 128; 3 or 4x the programs per SM; `.p16`: also
// -D PAGE=16, specialised on the cache's block size, for 3-bit keys and one
// head a program; `.c8`: --programs-per-cta=8, fp8 keys where Hq / HEADS is
// a multiple of 8), and one program a (sequence, split) with a warp a kv
// head, each page of the cache staged whole in shared memory (`.page`: -D
// MMA=3 --num-warps=Hkv -D HKV=Hkv -D PAGE=16 --scalarize
// --max-registers=128). Stage 2 comes in two forms, one split at a time and
// `.s16` (-D SPLITS=16: 16 at a time), and a launch takes the one
// tq::stage2Splits picks for its split count and rows.
//
// It checks at tier C (TqCheck) small ragged problems of every preset with
// HEADS = group and 1, rows of up to 24 splits (stage 2's `.s16`), D = 64
// and 256, an odd Hkv (slots of one kv head at alternating 4- and 2-byte
// alignment), and the round trip; then, for the
// presets k4v4, k3v4 and k8v4, the spec's benchmark shapes (D = 128, Hq = 32, Hkv = 8, block_size =
// 16, B in {1, 8, 32, 128}, seq_len in {1024, 8192, 32768}, every sequence
// of a batch that long) on a cache of 128 x 2048 pages, checked on sampled
// sequences and timed with CUDA events (median of 10 after 2 warm-ups, L2
// flushed before each): (rotate +) stage 1 + stage 2 together, stage 1
// alone and stage 2 alone. Splits come by tq::waveSplits's cost model, from
// the stage-1 programs an SM holds at once (the driver's occupancy of that
// build; the anchor's rule,
// min(ceil(4 SMs / programs), ceil(seq / 128), 64), asks for 4 four-warp
// programs an SM whatever fits). Bytes read = the slots of every sequence's tokens
// plus the block table entries of their pages. Each timed row is also
// printed as one line `TQ-JSON {...}` for bench/suite.py: "preset" stays the
// preset's name (k4v4, ...), "mma" (0, 1 or 2) and "stage1_build" tell the
// stage-1 formulations apart (the table shows them as k4v4, k4v4.mma and
// k4v4.mma.tok), "stage1_registers" and "stage1_programs_per_sm" are what
// the driver made of that build, and "stage2_build" names stage 2's.
//
//   tq-gpu DIR [--check-only] [--programs-per-sm N]   (splits: the anchor's
//                                                      rule with N four-warp
//                                                      programs an SM)
//              [--formulation K]  checks and times stage-1 formulation K (0, 1
//                                 or 2) only
//              [--shape PRESET:B:SEQ_LEN[,...]]  times those benchmark shapes
//                                 only (e.g. k4v4:128:32768; both HEADS), and
//                                 builds only their presets' caches
//              [--splits N[,...]] times each shape at each of these split
//                                 counts instead of tq::waveSplits's
//              [--stage2 S[,...]] and with each of these stage-2 forms (0 or
//                                 16) instead of tq::stage2Splits's
//              [--bench-only]     skips the small checks (for a profiler)
//              [--no-overlap]     launches the builds that call gdc_wait()
//                                 without programmatic dependent launch (by
//                                 default a kernel may start while the one
//                                 before it finishes: stage 2 behind stage 1,
//                                 stage 1 behind the rotation)
//   tq-gpu --list       prints "<build> <tilec compile arguments>" per line
//
//===----------------------------------------------------------------------===//
#include "GpuVariant.h"
#include "TqCheck.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>

using namespace tile;
using namespace tile::tq;
using test::Dtype;

namespace {

std::string rotateBuild(const TqCase &c) {
  return "turboquant_rotate." + std::string(test::name(c.dtype)) + ".d" + std::to_string(c.d);
}

/// Stage 1's formulations (its MMA parameter): the suffix of their builds
/// and their extra tilec arguments.
constexpr int kFormulations = 4;
const char *formulationSuffix(int mma) {
  return mma == 0 ? "" : mma == 1 ? ".mma" : mma == 2 ? ".mma.tok" : ".page";
}

/// Whether formulation `mma` serves case `c`: the page formulation (MMA = 3)
/// takes MSE keys and a power-of-two Hkv.
bool serves(const TqCase &c, int mma) {
  return mma != 3 || (c.kbits != 8 && (c.hkv & (c.hkv - 1)) == 0);
}

/// `c` as formulation `mma` runs it: the page formulation's programs take
/// every kv head of a sequence, each with its whole group.
TqCase formulationCase(TqCase c, int mma) {
  if (mma == 3)
    c.headsPerProgram = c.hq / c.hkv, c.kvHeadsPerProgram = c.hkv;
  return c;
}
/// MMA = 2 specialises on the cache's block size (PAGE, its two scalar page
/// loads a block) where that measured faster on the H200 (bench/RESULTS.md run
/// 96): 3-bit keys 0.88-0.92x the time, one head a program 0.92-0.94x (4-bit
/// and fp8 keys); 4-bit and fp8 keys with the group's heads took 0.996-1.036x.
bool specialisesPage(const TqCase &c, int mma) {
  return mma == 2 && (c.kbits == 3 || c.headsPerProgram == 1);
}
/// Programs a CTA of stage 1 (--programs-per-cta): fp8 keys' `.mma.tok` runs
/// 8 programs that follow each other along program_id(1) as one CTA, where the
/// grid's y (Hq / HEADS) is a multiple of 8 (`.c8`). With the group's heads
/// those are a token row's kv heads at the benchmark's Hkv = 8: 0.88-0.95x the
/// time at the goal shapes (bench/RESULTS.md runs 115, 116); with one head a
/// program, two kv heads' query heads: 0.913x at 32 x 8192 (run 117). MSE
/// keys' builds packed 4 a CTA took 0.99-1.03x (run 117): not packed.
int64_t ctaPrograms(const TqCase &c, int mma) {
  return mma == 2 && c.kbits == 8 && (c.hq / c.headsPerProgram) % 8 == 0 ? 8 : 1;
}

std::string formulationArgs(const TqCase &c, int mma) {
  int kbits = c.kbits;
  int64_t heads = c.headsPerProgram, packed = ctaPrograms(c, mma);
  // BLOCK_T 16 and the register caps: the fastest on the H200 (bench/RESULTS.md runs 57, 61,
  // 62, 74, 76, 77). A one-warp program's registers come from one scheduler's quarter of the
  // register file: up to 170 a thread hold 3 programs a scheduler, 128 hold 4. fp8 keys at
  // most 128 (124: 0.974-0.988x the time of 168 at four goal shapes, 1.007x at 128 x 32768);
  // 3-bit keys at 152 (also 3 programs a scheduler: 0.983-0.995x the time of 144, run 78; as
  // ptxas chooses, 168, they took 1.12x, run 77; 128 spills: 1.19-1.34x); 4-bit keys as ptxas
  // chooses (168; 128 took 1.04-1.06x, 152 0.993-1.026x); BLOCK_T 32 1.02-1.44x.
  // --scalarize (LLVM's Scalarizer before -O; run 88): 3-bit keys 0.955-0.975x (the loop 684
  // -> 562 PTX ops), 4-bit keys 0.949-0.960x with the group's heads, but 1.075x with one.
  // The page formulation: a warp a kv head, scalarized (its probe's load path
  // 1.25x faster so, bench/RESULTS.md run 135), at most 128 registers (two
  // 8-warp programs an SM, no spills: 0.81-0.85x the time of ptxas's 176-184,
  // run 136).
  if (mma == 3)
    return " -D MMA=3 --num-warps=" + std::to_string(c.hkv) + " -D HKV=" + std::to_string(c.hkv) +
           " -D PAGE=" + std::to_string(c.blockSize) + " --scalarize --max-registers=128";
  if (mma == 2)
    return std::string(" -D MMA=2 --num-warps=1 -D BLOCK_T=16") +
           (kbits == 8   ? " --max-registers=128"
            : kbits == 3 ? " --max-registers=152 --scalarize"
            : heads > 1  ? " --scalarize"
                         : "") +
           (specialisesPage(c, mma) ? " -D PAGE=" + std::to_string(c.blockSize) : "") +
           (packed > 1 ? " --programs-per-cta=" + std::to_string(packed) : "");
  return mma == 0 ? "" : " -D MMA=1 -D BLOCK_T=32";
}
/// Warps a program of each formulation runs: with --programs-per-sm N the
/// splits keep the warps per SM of N four-warp programs (N scales with 4 /
/// warps).
int formulationWarps(const TqCase &c, int mma) { return mma == 3 ? int(c.hkv) : mma == 2 ? 1 : 4; }

std::string stage1Build(const TqCase &c, int mma) {
  int64_t k = ctaPrograms(c, mma);
  return "turboquant_decode_stage1.d" + std::to_string(c.d) + "." + presetName(c.kbits, c.vbits) +
         (rotates(c) ? "" : "." + std::string(test::name(c.dtype))) + ".h" +
         std::to_string(c.headsPerProgram) + formulationSuffix(mma) +
         (specialisesPage(c, mma) ? ".p" + std::to_string(c.blockSize) : "") +
         (k > 1 ? ".c" + std::to_string(k) : "");
}

/// Stage 2 reading `splits` splits at a time (0: one at a time).
std::string stage2Build(const TqCase &c, int64_t splits) {
  return "turboquant_decode_stage2." + std::string(test::name(c.dtype)) + ".d" +
         std::to_string(c.d) + (splits ? ".s" + std::to_string(splits) : "");
}

/// The stage 2 build a case launches (tq::stage2Splits's rule).
std::string stage2Build(const TqCase &c) { return stage2Build(c, stage2Splits(c)); }

/// The builds a case runs, in launch order: (name, tilec compile arguments).
/// Every buffer is its own allocation, so every pointer is 16-byte aligned.
std::vector<std::pair<std::string, std::string>> buildsOf(const TqCase &c, int mma) {
  std::string t = std::string(test::name(c.dtype)), d = " -D D=" + std::to_string(c.d);
  std::vector<std::pair<std::string, std::string>> builds;
  // The rotation with two warps a program: 80 registers, so that the 1024
  // programs of 4096 query rows are one wave (bench/RESULTS.md run 86).
  if (rotates(c))
    builds.push_back({rotateBuild(c), "--kernel turboquant_rotate -D T=" + t + d +
                                          " -D RB=" + std::to_string(kRotateColumns) +
                                          " --num-warps=2 --assume q=16 --assume r=16"
                                          " --assume qf=16"});
  builds.push_back({stage1Build(c, mma),
                    "--kernel turboquant_decode_stage1" + d + " -D KBITS=" +
                        std::to_string(c.kbits) + " -D VBITS=" + std::to_string(c.vbits) +
                        " -D HEADS=" + std::to_string(c.headsPerProgram) +
                        formulationArgs(c, mma) +
                        (rotates(c) ? "" : " -D QT=" + t) +
                        " --assume q=16 --assume kv_cache=16 --assume codebook=16"
                        " --assume mid_o=16"});
  // Both forms of stage 2: the launch picks one by the case's split count.
  for (int64_t splits : {int64_t(0), kStage2Chunk})
    builds.push_back({stage2Build(c, splits),
                      "--kernel turboquant_decode_stage2 -D T=" + t + d +
                          (splits ? " -D SPLITS=" + std::to_string(splits) : "") +
                          " --assume mid_o=16 --assume o=16"});
  return builds;
}

TqCase presetCase(int kbits, int vbits) {
  TqCase c;
  c.kbits = kbits, c.vbits = vbits;
  return c;
}

/// The small problems checked on every element.
std::vector<TqCase> checkCases() {
  std::vector<TqCase> cases;
  for (auto [kb, vb] : {std::pair{4, 4}, {3, 4}, {8, 4}, {3, 3}})
    for (int64_t heads : {4, 1}) {
      TqCase c = presetCase(kb, vb);
      c.headsPerProgram = heads, c.seqLens = {1, 10, 37, 300, 1000}, c.numSplits = 8;
      cases.push_back(c);
    }
  // Rows of up to 24 splits: stage 2 reads them 16 at a time.
  TqCase many = presetCase(8, 4);
  many.seqLens = {1, 10, 37, 300, 1000}, many.numSplits = 24;
  cases.push_back(many);
  TqCase odd = presetCase(4, 4);
  odd.hq = 6, odd.hkv = 3, odd.headsPerProgram = 2, odd.seqLens = {9, 40, 301};
  odd.numSplits = 3;
  cases.push_back(odd);
  TqCase d64 = presetCase(3, 4);
  d64.d = 64, d64.hq = 8, d64.hkv = 1, d64.headsPerProgram = 8, d64.seqLens = {5, 64, 130};
  d64.numSplits = 4, d64.dtype = Dtype::F16, d64.randomOrthogonalR = true;
  cases.push_back(d64);
  TqCase d256 = presetCase(4, 4);
  d256.d = 256, d256.hq = 4, d256.hkv = 4, d256.headsPerProgram = 1, d256.seqLens = {33, 1};
  d256.numSplits = 3;
  cases.push_back(d256);
  // Values of small and large magnitude (TurboQuantHostTest has the same).
  for (double scale : {1e-6, 1e3}) {
    TqCase c = presetCase(4, 4);
    c.seqLens = {37, 300}, c.numSplits = 2, c.dtype = Dtype::F32;
    c.valueScale = scale, c.queryScale = scale < 1 ? 0.05 : 1;
    cases.push_back(c);
  }
  return cases;
}

/// The benchmark presets; HEADS = group, and 1 at one shape.
std::vector<TqCase> benchPresets() {
  return {presetCase(4, 4), presetCase(3, 4), presetCase(8, 4)};
}

/// Every build a run needs, in first-use order: (name, tilec arguments).
std::vector<std::pair<std::string, std::string>> allBuilds() {
  std::vector<TqCase> cases = checkCases();
  for (TqCase c : benchPresets()) {
    cases.push_back(c);
    c.headsPerProgram = 1;
    cases.push_back(c);
  }
  std::vector<std::pair<std::string, std::string>> builds;
  for (int mma = 0; mma < kFormulations; ++mma)
    for (const TqCase &c : cases)
      for (const auto &build : serves(c, mma) ? buildsOf(formulationCase(c, mma), mma)
                                              : std::vector<std::pair<std::string, std::string>>{})
        if (std::find(builds.begin(), builds.end(), build) == builds.end())
          builds.push_back(build);
  return builds;
}

struct Builds {
  std::map<std::string, test::Variant> variants;
  test::GpuRunner *runner;

  test::Variant &at(const std::string &name) { return variants.at(name); }

  TqKernel kernel(const std::string &name) {
    test::Variant &v = at(name);
    test::GpuRunner *r = runner;
    return {v.params,
            [r, &v](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                    const std::vector<size_t> &bytes) { return r->launch(v, grid, args, bytes); }};
  }

  TqKernels kernels(const TqCase &c, int mma) {
    return {rotates(c) ? kernel(rotateBuild(c)) : TqKernel{}, kernel(stage1Build(c, mma)),
            kernel(stage2Build(c))};
  }
};

const char *verdict(const TqResult &r) { return r.pass ? "pass" : "FAIL"; }

int runChecks(Builds &builds, int64_t only) {
  int cases = 0, failures = 0;
  for (int mma = 0; mma < kFormulations; ++mma) {
    if (only >= 0 && mma != only)
      continue;
    uint64_t seed = 3000;
    std::string tag = " MMA=" + std::to_string(mma);
    for (TqCase c : checkCases()) {
      if (!serves(c, mma))
        continue;
      c = formulationCase(c, mma);
      TqResult r = runTqCase(builds.kernels(c, mma), c, seed++);
      ++cases;
      failures += !r.pass;
      std::printf("%-100s err/bound %.3f  %s %s\n", (caseName(c) + tag).c_str(),
                  r.maxErrOverBound, verdict(r), r.error.c_str());
    }
    for (TqCase c : benchPresets()) {
      if (!serves(c, mma))
        continue;
      c = formulationCase(c, mma);
      c.seqLens = {1, 1, 1, 1};
      TqResult r = runRoundTrip(builds.kernels(c, mma), c, seed++);
      ++cases;
      failures += !r.pass;
      std::printf("round trip %-89s min cos %.4f  %s %s\n", (caseName(c) + tag).c_str(),
                  r.minCosine, verdict(r), r.error.c_str());
    }
  }
  std::printf("\ntq checks: %d passed, %d failed\n\n", cases - failures, failures);
  return failures;
}

/// A problem's buffers on the device (the cache mapped in beforehand).
class DeviceProblem {
public:
  DeviceProblem(cuda::Driver &driver, TqProblem &p, cuda::DevicePtr cache) : driver(driver), p(p) {
    device[p.cache->bytes.data()] = cache;
    shared = p.cache->bytes.data();
  }
  ~DeviceProblem() {
    for (auto &[host, ptr] : device)
      if (host != shared)
        driver.free(ptr);
  }

  /// Uploads every buffer of `launch` not yet on the device and packs its
  /// arguments for `v`.
  std::string prepare(test::Variant &v, const KernelLaunch &launch) {
    if (v.params.size() != launch.args.size())
      return v.kernel + " has " + std::to_string(v.params.size()) + " parameters, expected " +
             std::to_string(launch.args.size());
    Step s{&v, {}, std::vector<test::ArgSlot>(launch.args.size()), {}};
    if (std::string err = ctaGrid(launch.grid, v.programsPerCta, s.grid); !err.empty())
      return err;
    for (size_t i = 0; i < launch.args.size(); ++i) {
      s.pointers.push_back(s.slots[i].bytes);
      if (!v.params[i].isPointer) {
        test::packScalar(v.params[i], launch.args[i], s.slots[i]);
        continue;
      }
      const void *host = launch.args[i].ptr;
      if (!device.count(host)) {
        cuda::DevicePtr d = 0;
        if (std::string err = driver.alloc(std::max<size_t>(launch.bytes[i], 1), d); !err.empty())
          return err;
        device[host] = d;
        if (std::string err = driver.copyToDevice(d, host, launch.bytes[i]); !err.empty())
          return err;
      }
      std::memcpy(s.slots[i].bytes, &device[host], 8);
    }
    steps.push_back(std::move(s));
    return "";
  }

  /// Launches steps [first, last) without synchronising.
  std::string launch(size_t first, size_t last) {
    for (size_t k = first; k < last; ++k) {
      Step &s = steps[k];
      if (std::string err = driver.launch(s.v->function, s.grid, s.v->threads, s.v->sharedBytes,
                                          s.pointers, nullptr, s.v->waitsOnPriorGrid);
          !err.empty())
        return err;
    }
    return "";
  }

  std::string download() {
    std::string err = driver.synchronize();
    if (err.empty())
      err = driver.copyToHost(p.o.data(), device.at(p.o.data()), p.o.size());
    if (err.empty())
      err = driver.copyToHost(p.lse.data(), device.at(p.lse.data()), p.lse.size() * 4);
    return err;
  }

private:
  struct Step {
    test::Variant *v;
    unsigned grid[3];
    std::vector<test::ArgSlot> slots;
    /// cuLaunchKernel's argument pointers, into `slots` (whose buffer a
    /// move keeps).
    std::vector<void *> pointers;
  };
  cuda::Driver &driver;
  TqProblem &p;
  const void *shared;
  std::map<const void *, cuda::DevicePtr> device;
  std::vector<Step> steps;
};

/// Median ms of `body` over 10 runs after 2 warm-ups, L2 flushed before each.
std::string timeMedian(cuda::Driver &driver, cuda::DevicePtr flush, size_t flushBytes,
                       const std::function<std::string()> &body, double &ms) {
  std::vector<float> times;
  for (int it = 0; it < 12; ++it) {
    float t = 0;
    std::string err = driver.memset8(flush, uint8_t(it), flushBytes);
    if (err.empty())
      err = driver.time(body, t);
    if (!err.empty())
      return err;
    if (it >= 2)
      times.push_back(t);
  }
  std::sort(times.begin(), times.end());
  ms = times[times.size() / 2];
  return "";
}

struct BenchRow {
  std::string preset;
  int64_t b, seqLen, heads, splits;
  int mma = 0;
  std::string stage1, stage2;
  double ms = 0, stage1Ms = 0, stage2Ms = 0, bytes = 0;
  TqResult check;
  int64_t checkedSeqs = 0;
  int registers = 0, perSM = 0; // stage 1's, as the driver compiled it
};

void printRow(const BenchRow &r) {
  double gbps = r.bytes / (r.ms * 1e-3) / 1e9;
  std::printf("| %s | %3lld | %5lld | %lld | %2lld | %.4f | %.4f | %.4f | %.4g | %.0f | %s %.3f |\n",
              (r.preset + formulationSuffix(r.mma)).c_str(), (long long)r.b, (long long)r.seqLen,
              (long long)r.heads, (long long)r.splits, r.ms, r.stage1Ms, r.stage2Ms, r.bytes, gbps,
              verdict(r.check),
              r.check.maxErrOverBound);
  if (!r.check.pass)
    std::printf("  %s\n", r.check.error.c_str());
  std::printf("TQ-JSON {\"preset\": \"%s\", \"B\": %lld, \"seq_len\": %lld, \"heads\": %lld, "
              "\"splits\": %lld, \"ms\": %.6f, \"stage1_ms\": %.6f, \"stage2_ms\": %.6f, "
              "\"bytes\": %.0f, "
              "\"GBps\": %.2f, \"check\": %s, \"checked_seqs\": %lld, "
              "\"max_err_over_bound\": %.6g, \"mma\": %d, \"stage1_build\": \"%s\", "
              "\"stage1_registers\": %d, \"stage1_programs_per_sm\": %d, "
              "\"stage2_build\": \"%s\"}\n",
              r.preset.c_str(), (long long)r.b, (long long)r.seqLen, (long long)r.heads,
              (long long)r.splits, r.ms, r.stage1Ms, r.stage2Ms, r.bytes, gbps,
              r.check.pass ? "true" : "false",
              (long long)r.checkedSeqs, r.check.maxErrOverBound, r.mma, r.stage1.c_str(),
              r.registers, r.perSM, r.stage2.c_str());
}

/// Checks and (unless checkOnly) times one benchmark shape.
std::string benchShape(cuda::Driver &driver, Builds &builds, const std::shared_ptr<TqCache> &cache,
                       cuda::DevicePtr deviceCache, cuda::DevicePtr flush, size_t flushBytes,
                       const TqCase &c, int mma, uint64_t seed, bool checkOnly, BenchRow &row) {
  TqProblem p = makeProblem(c, cache, seed);
  DeviceProblem dp(driver, p, deviceCache);
  std::vector<std::pair<std::string, KernelLaunch>> steps;
  if (rotates(c))
    steps.push_back({rotateBuild(c), p.rotate()});
  steps.push_back({stage1Build(c, mma), p.stage1()});
  steps.push_back({row.stage2, p.stage2()});
  for (const auto &[name, launch] : steps)
    if (std::string err = dp.prepare(builds.at(name), launch); !err.empty())
      return name + ": " + err;
  size_t stage1 = steps.size() - 2;
  std::string err = dp.launch(0, steps.size());
  if (err.empty())
    err = dp.download();
  if (!err.empty())
    return err;
  std::vector<int64_t> seqs;
  if (p.batch * c.seqLens.front() > 65536)
    seqs = {0, p.batch / 3, 2 * p.batch / 3, p.batch - 1};
  seqs.erase(std::unique(seqs.begin(), seqs.end()), seqs.end());
  row.check = checkProblem(p, seqs);
  row.checkedSeqs = seqs.empty() ? p.batch : int64_t(seqs.size());
  row.bytes = p.bytesRead();
  if (checkOnly)
    return "";
  err = timeMedian(
      driver, flush, flushBytes, [&] { return dp.launch(0, steps.size()); }, row.ms);
  if (err.empty())
    err = timeMedian(
        driver, flush, flushBytes, [&] { return dp.launch(stage1, stage1 + 1); }, row.stage1Ms);
  if (err.empty())
    err = timeMedian(
        driver, flush, flushBytes, [&] { return dp.launch(stage1 + 1, stage1 + 2); },
        row.stage2Ms);
  return err;
}

/// The benchmark's batch sizes and sequence lengths (every sequence of a
/// batch that long).
constexpr int64_t kBenchBatches[] = {1, 8, 32, 128};
constexpr int64_t kBenchSeqLens[] = {1024, 8192, 32768};

std::string shapeName(const std::string &preset, int64_t b, int64_t seqLen) {
  return preset + ":" + std::to_string(b) + ":" + std::to_string(seqLen);
}

/// Whether `shapes` (empty: all) names a benchmark shape of `preset` (and,
/// given, `b` and `seqLen`).
bool wanted(const std::vector<std::string> &shapes, const std::string &preset, int64_t b = -1,
            int64_t seqLen = -1) {
  return shapes.empty() || std::any_of(shapes.begin(), shapes.end(), [&](const std::string &s) {
           return b < 0 ? s.rfind(preset + ":", 0) == 0 : s == shapeName(preset, b, seqLen);
         });
}

/// `list`'s comma-separated items (an empty list is one empty item).
std::vector<std::string> splitList(const std::string &list) {
  std::vector<std::string> items;
  for (size_t at = 0; at <= list.size();) {
    size_t end = std::min(list.find(',', at), list.size());
    items.push_back(list.substr(at, end - at));
    at = end + 1;
  }
  return items;
}

/// `list` (PRESET:B:SEQ_LEN[,...]) split into benchmark shapes, or false
/// (with `error` set) if one is not a benchmark shape.
bool parseShapes(const std::string &list, std::vector<std::string> &shapes, std::string &error) {
  std::vector<std::string> all;
  for (const TqCase &preset : benchPresets())
    for (int64_t b : kBenchBatches)
      for (int64_t seqLen : kBenchSeqLens)
        all.push_back(shapeName(presetName(preset.kbits, preset.vbits), b, seqLen));
  for (const std::string &shape : splitList(list)) {
    if (std::find(all.begin(), all.end(), shape) == all.end()) {
      error = "--shape '" + shape + "' is not a benchmark shape: PRESET:B:SEQ_LEN with PRESET " +
              "k4v4, k3v4 or k8v4, B 1, 8, 32 or 128 and SEQ_LEN 1024, 8192 or 32768";
      return false;
    }
    shapes.push_back(shape);
  }
  return true;
}

/// Split counts and stage-2 forms to time each shape at instead of the
/// launch rules' choice (tq::waveSplits, tq::stage2Splits); empty: the rule.
struct Sweep {
  std::vector<int64_t> splits, stage2;
};

int runBench(cuda::Driver &driver, Builds &builds, bool checkOnly, int64_t perSm,
             int64_t only, const std::vector<std::string> &shapes, const Sweep &sweep) {
  const int64_t maxB = 128, maxSeq = 32768;
  size_t flushBytes = size_t(256) << 20;
  cuda::DevicePtr flush = 0;
  if (std::string err = driver.alloc(flushBytes, flush); !err.empty())
    return std::printf("flush buffer: %s\n", err.c_str()), 1;
  std::printf("| preset | B | seq_len | HEADS | splits | ms ((rotate+)s1+s2) | ms (stage 1) | "
              "ms (stage 2) | bytes read | GB/s | check err/bound |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|\n");
  int failures = 0;
  // Seeds by preset and shape, so that --shape times the same problems as a
  // full run.
  uint64_t presetSeed = 5000;
  for (const TqCase &preset : benchPresets()) {
    std::string name = presetName(preset.kbits, preset.vbits);
    uint64_t seed = presetSeed;
    presetSeed += 1000;
    if (!wanted(shapes, name))
      continue;
    int64_t pages = maxB * (maxSeq / preset.blockSize);
    auto cache = makeCache(preset, pages, 512, seed++);
    cuda::DevicePtr deviceCache = 0;
    std::string err = driver.alloc(cache->bytes.size(), deviceCache);
    if (err.empty())
      err = driver.copyToDevice(deviceCache, cache->bytes.data(), cache->bytes.size());
    if (!err.empty()) {
      std::printf("%s: cache of %zu bytes: %s\n", name.c_str(), cache->bytes.size(), err.c_str());
      ++failures;
      continue;
    }
    for (int64_t b : kBenchBatches)
      for (int64_t seqLen : kBenchSeqLens)
        for (int64_t heads : {preset.hq / preset.hkv, int64_t(1)}) {
          if (heads == 1 && !(b == 32 && seqLen == 8192))
            continue;
          // The same problem (seed) for every formulation of stage 1.
          uint64_t shapeSeed = seed++;
          if (!wanted(shapes, name, b, seqLen))
            continue;
          TqCase shape = preset;
          shape.headsPerProgram = heads;
          shape.seqLens.assign(size_t(b), seqLen);
          for (int mma = 0; mma < kFormulations; ++mma) {
            if ((only >= 0 && mma != only) || !serves(shape, mma) ||
                (mma == 3 && heads != shape.hq / shape.hkv))
              continue;
            TqCase c = formulationCase(shape, mma);
            BenchRow row{name, b, seqLen, heads, 0, mma, stage1Build(c, mma)};
            test::Variant &s1 = builds.at(row.stage1);
            err =
                driver.residency(s1.function, s1.threads, s1.sharedBytes, row.perSM, row.registers);
            row.perSM *= int(s1.programsPerCta); // CTAs an SM -> programs
            auto fail = [&] {
              std::printf("| %s%s | %lld | %lld | %lld | error: %s |\n", name.c_str(),
                          formulationSuffix(mma), (long long)b, (long long)seqLen,
                          (long long)heads, err.c_str());
              ++failures;
            };
            if (!err.empty()) {
              fail();
              continue;
            }
            // Splits: by tq::waveSplits's cost model, or the anchor's rule
            // with --programs-per-sm, or each of --splits.
            std::vector<int64_t> splitCounts = sweep.splits;
            if (splitCounts.empty())
              splitCounts = {
                  perSm ? defaultSplits(driver.multiprocessors(), b,
                                        c.hq / (heads * c.kvHeadsPerProgram), seqLen,
                                        std::max(perSm * 4 / formulationWarps(c, mma), int64_t(1)))
                        : waveSplits(driver.multiprocessors(), row.perSM, c)};
            for (int64_t splits : splitCounts) {
              c.numSplits = splits;
              std::vector<int64_t> forms = sweep.stage2;
              if (forms.empty())
                forms = {stage2Splits(c)};
              for (int64_t form : forms) {
                row.splits = splits;
                row.stage2 = stage2Build(c, form);
                err = benchShape(driver, builds, cache, deviceCache, flush, flushBytes, c, mma,
                                 shapeSeed, checkOnly, row);
                if (!err.empty()) {
                  fail();
                  continue;
                }
                failures += !row.check.pass;
                printRow(row);
              }
            }
          }
        }
    driver.free(deviceCache);
  }
  driver.free(flush);
  return failures;
}

/// `text` as a whole integer in [lo, hi], or false.
bool parseInt(const char *text, int64_t lo, int64_t hi, int64_t &value) {
  const char *end = text + std::strlen(text);
  auto [at, ec] = std::from_chars(text, end, value);
  return ec == std::errc() && at == end && value >= lo && value <= hi;
}

/// `text` (N[,N...]) as integers in [lo, hi], or false.
bool parseInts(const std::string &text, int64_t lo, int64_t hi, std::vector<int64_t> &values) {
  for (const std::string &item : splitList(text)) {
    int64_t v = 0;
    if (!parseInt(item.c_str(), lo, hi, v))
      return false;
    values.push_back(v);
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  const char *usage =
      "usage: tq-gpu DIR [--check-only] [--programs-per-sm N] [--formulation K]\n"
      "                  [--shape PRESET:B:SEQ_LEN[,...]] [--splits N[,...]] [--stage2 S[,...]]\n"
      "                  [--bench-only] [--no-overlap] | --list\n";
  bool checkOnly = false, benchOnly = false, noOverlap = false;
  std::vector<std::string> shapes;
  std::string shapeError;
  int64_t perSm = 0, only = -1;
  Sweep sweep;
  bool ok = argc >= 2;
  for (int i = 2; ok && i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--check-only")
      checkOnly = true;
    else if (arg == "--programs-per-sm" && i + 1 < argc)
      ok = parseInt(argv[++i], 1, 1024, perSm);
    else if (arg == "--formulation" && i + 1 < argc)
      ok = parseInt(argv[++i], 0, kFormulations - 1, only);
    else if (arg == "--shape" && i + 1 < argc)
      ok = parseShapes(argv[++i], shapes, shapeError);
    else if (arg == "--splits" && i + 1 < argc)
      ok = parseInts(argv[++i], 1, 256, sweep.splits);
    else if (arg == "--stage2" && i + 1 < argc)
      ok = parseInts(argv[++i], 0, kStage2Chunk, sweep.stage2) &&
           std::all_of(sweep.stage2.begin(), sweep.stage2.end(),
                       [](int64_t s) { return s == 0 || s == kStage2Chunk; });
    else if (arg == "--bench-only")
      benchOnly = true;
    else if (arg == "--no-overlap")
      noOverlap = true;
    else
      ok = false;
  }
  if (!ok) {
    if (!shapeError.empty())
      std::fprintf(stderr, "tq-gpu: %s\n", shapeError.c_str());
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  std::string dir = argv[1];
  if (dir == "--list") {
    for (const auto &[name, args] : allBuilds())
      std::printf("%s %s\n", name.c_str(), args.c_str());
    return 0;
  }
  std::string error;
  auto driver = cuda::Driver::open(0, error);
  if (!driver) {
    std::fprintf(stderr, "tq-gpu: %s\n", error.c_str());
    return 2;
  }
  std::printf("device: %s (sm_%d, %d SMs)\n", driver->deviceName().c_str(),
              driver->computeCapability(), driver->multiprocessors());
  test::GpuRunner runner(*driver);
  Builds builds{{}, &runner};
  for (const auto &[name, args] : allBuilds()) {
    test::Variant v;
    std::string err = test::readVariant(dir + "/" + name + ".ptx", v);
    if (err.empty())
      err = driver->loadKernel(v.ptx, v.kernel, v.function);
    if (!err.empty()) {
      std::fprintf(stderr, "tq-gpu: %s: %s\n", name.c_str(), err.c_str());
      return 2;
    }
    v.waitsOnPriorGrid = v.waitsOnPriorGrid && !noOverlap;
    builds.variants[name] = std::move(v);
  }
  int failures = benchOnly ? 0 : runChecks(builds, only);
  failures += runBench(*driver, builds, checkOnly, perSm, only, shapes, sweep);
  std::printf("\ntq-gpu: %d failures\n", failures);
  return failures ? 1 : 0;
}
