//===- MqaGpu.cpp - fp8_mqa_logits on an NVIDIA GPU: check, then time -----===//
//
// Loads the PTX builds DIR/fp8_mqa_logits.bt<BLOCK_T>.c<CHUNK>.ptx (one
// query row per program, 4 warps) and DIR/fp8_mqa_logits.bq<BLOCK_Q>.bt<BLOCK_T>.c<CHUNK>.ptx
// (BLOCK_Q rows per program, 8 warps) that `tilec compile` wrote
// (scripts/gpu-artifacts.sh builds what `mqa-gpu --list` prints), checks each
// at tier B (MqaCheck: small problems on every row, the benchmark shapes on
// sampled rows; grid (cdiv(S, BLOCK_Q), cdiv(T, CHUNK)), the BLOCK_Q, BLOCK_T
// and CHUNK of the name checked against the ones the .meta records), then
// times the spec's
// benchmark shapes with CUDA events (median of 10 timed runs of 5 launches
// after a warm-up; a build that failed a check is not timed) and prints
// TFLOP/s counted as the spec says (2 H D per unmasked pair).
//
// Then fp8_paged_mqa_logits (DIR/fp8_paged_mqa_logits[.bq<BLOCK_Q>].bt<BLOCK_T>.c<CHUNK>[.p<PAGE>].ptx:
// bt64.c1024, and the other builds of the list, each timed when present) is
// checked on every row of ragged problems (bt64.c1024 also on a
// production-like one; a build specialised on PAGE on caches of that block
// size), then timed at the anchors' paged shapes (block_size
// 64, next_n 1 and 2, B 32 and 128, contexts of 8192 and 32768 for every
// sequence): CUDA events around single launches, each after a 256 MiB memset
// that flushes the L2 cache (as triton.testing.do_bench times the anchor),
// median of 20 after a warm-up; TFLOP/s counted as the spec says, GB/s over
// the anchors' bytes (kv rows and scales of the context tokens, block table,
// q, w, context_lens, the logits). One row per build and shape:
//
//   | fp8_paged_mqa_logits.bt64.c1024 | B=32 next_n=1 ctx=8192 | 95.1 us | 90.3 TFLOP/s | 381 GB/s |
//
//   mqa-gpu DIR
//   mqa-gpu --list   prints "<build> <tilec compile arguments>" per line
//
//===----------------------------------------------------------------------===//
#include "GpuVariant.h"
#include "MqaCheck.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

using namespace tile;
using namespace tile::mqa;

namespace {

/// Median milliseconds per launch of `v` on `p` (device copies of its buffers).
std::string timeCase(cuda::Driver &driver, test::Variant &v, const MqaProblem &p, int64_t chunk,
                     int64_t blockQ, double &ms) {
  std::vector<Arg> args = p.args();
  std::vector<size_t> bytes = p.bytes();
  std::vector<cuda::DevicePtr> device(args.size(), 0);
  std::vector<test::ArgSlot> slots(args.size());
  std::vector<void *> pointers(args.size());
  std::string err;
  for (size_t i = 0; i < args.size() && err.empty(); ++i) {
    pointers[i] = slots[i].bytes;
    if (!v.params[i].isPointer) {
      test::packScalar(v.params[i], args[i], slots[i]);
      continue;
    }
    err = driver.alloc(std::max<size_t>(bytes[i], 1), device[i]);
    if (err.empty())
      err = driver.copyToDevice(device[i], args[i].ptr, bytes[i]);
    std::memcpy(slots[i].bytes, &device[i], 8);
  }
  auto grid = p.grid(chunk, blockQ);
  unsigned g[3] = {grid[0], grid[1], grid[2]};
  auto launch5 = [&]() -> std::string {
    for (int r = 0; r < 5; ++r)
      if (std::string e = driver.launch(v.function, g, v.threads, v.sharedBytes, pointers);
          !e.empty())
        return e;
    return "";
  };
  std::vector<float> times;
  if (err.empty())
    err = launch5();
  for (int r = 0; r < 10 && err.empty(); ++r) {
    float t = 0;
    err = driver.time(launch5, t);
    times.push_back(t / 5);
  }
  for (cuda::DevicePtr d : device)
    if (d)
      driver.free(d);
  if (!err.empty())
    return err;
  std::sort(times.begin(), times.end());
  ms = times[times.size() / 2];
  return "";
}

/// A random finite e4m3 byte from a splitmix64 stream (fast: the timing
/// caches are up to 512 MiB).
struct FastE4M3 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  void fill(std::vector<uint8_t> &out) {
    for (size_t k = 0; k < out.size(); k += 8) {
      uint64_t word = next();
      for (size_t b = 0; b < 8 && k + b < out.size(); ++b) {
        auto v = uint8_t(word >> (8 * b));
        out[k + b] = (v & 0x7f) == 0x7f ? uint8_t(v - 1) : v; // no NaN
      }
    }
  }
  float uniform() { return float(next() >> 40) / float(1 << 24); }
};

/// One paged timing shape on the device: uniform context lengths, pages of
/// 64 tokens assigned by a random permutation (as the anchor builds them).
struct PagedTiming {
  int64_t B, nextN, context, H = 64, D = 128, blockSize = 64;
  cuda::Driver &driver;
  std::vector<cuda::DevicePtr> buffers; // q, kv, kv scale, w, table, lens, logits
  int64_t maxBlocks = 0;

  PagedTiming(cuda::Driver &driver, int64_t B, int64_t nextN, int64_t context)
      : B(B), nextN(nextN), context(context), driver(driver) {}
  ~PagedTiming() {
    for (cuda::DevicePtr d : buffers)
      if (d)
        driver.free(d);
  }
  /// FLOPs (2 H D per unmasked pair) and bytes as the anchors count them.
  double flops() const {
    int64_t pairs = 0;
    for (int64_t t = 0; t < nextN; ++t)
      pairs += std::max<int64_t>(0, std::min(context - nextN + t + 1, context));
    return 2.0 * double(H * D) * double(B * pairs);
  }
  double bytes() const {
    return double(B * context * (D + 4) + B * maxBlocks * 4 + B * nextN * H * (D + 4) + B * 4 +
                  B * nextN * context * 4);
  }

  std::string upload(uint64_t seed) {
    FastE4M3 rng{seed};
    maxBlocks = (context + blockSize - 1) / blockSize;
    int64_t numBlocks = B * maxBlocks + 7;
    std::vector<uint8_t> q(size_t(B * nextN * H * D)), kv(size_t(numBlocks * blockSize * D));
    rng.fill(q);
    rng.fill(kv);
    std::vector<float> scale(size_t(numBlocks * blockSize)), w(size_t(B * nextN * H));
    for (float &v : scale)
      v = 0.5f + 0.5f * rng.uniform();
    for (float &v : w)
      v = 2.0f * rng.uniform() - 1.0f;
    std::vector<int32_t> perm(static_cast<size_t>(numBlocks));
    for (size_t k = 0; k < perm.size(); ++k)
      perm[k] = int32_t(k);
    for (size_t k = perm.size() - 1; k > 0; --k)
      std::swap(perm[k], perm[size_t(rng.next() % (k + 1))]);
    std::vector<int32_t> table(perm.begin(), perm.begin() + B * maxBlocks);
    std::vector<int32_t> lens(static_cast<size_t>(B), int32_t(context));
    std::vector<std::pair<const void *, size_t>> host = {
        {q.data(), q.size()},
        {kv.data(), kv.size()},
        {scale.data(), scale.size() * 4},
        {w.data(), w.size() * 4},
        {table.data(), table.size() * 4},
        {lens.data(), lens.size() * 4},
        {nullptr, size_t(B * nextN * context * 4)}};
    buffers.assign(host.size(), 0);
    for (size_t i = 0; i < host.size(); ++i) {
      std::string err = driver.alloc(host[i].second, buffers[i]);
      if (err.empty())
        err = host[i].first ? driver.copyToDevice(buffers[i], host[i].first, host[i].second)
                            : driver.memset8(buffers[i], 0xff, host[i].second);
      if (!err.empty())
        return err;
    }
    return "";
  }

  /// Median milliseconds of one launch of `v` (a build with CHUNK = `chunk`
  /// and BLOCK_Q = `blockQ`), each after `flush` is overwritten.
  std::string time(test::Variant &v, int64_t chunk, int64_t blockQ, cuda::DevicePtr flush,
                   size_t flushBytes, double &ms) {
    if (v.params.size() != 12)
      return "the build has " + std::to_string(v.params.size()) + " parameters, expected 12";
    // q, kv_cache, kv_scale_cache, w, block_table, context_lens, logits, then
    // next_n, block_size, max_blocks, max_context, logits_stride.
    std::vector<int64_t> scalars = {nextN, blockSize, maxBlocks, context, context};
    std::vector<test::ArgSlot> slots(12);
    std::vector<void *> pointers(12);
    for (size_t i = 0; i < 12; ++i) {
      if (i < buffers.size())
        std::memcpy(slots[i].bytes, &buffers[i], 8);
      else
        test::packScalar(v.params[i], Arg::integer(scalars[i - buffers.size()]), slots[i]);
      pointers[i] = slots[i].bytes;
    }
    std::array<uint32_t, 3> grid = pagedGrid(B, nextN, context, chunk, blockQ);
    unsigned g[3] = {grid[0], grid[1], grid[2]};
    auto launch = [&] { return driver.launch(v.function, g, v.threads, v.sharedBytes, pointers); };
    std::string err = launch();
    if (err.empty())
      err = launch();
    std::vector<float> times;
    for (int r = 0; r < 20 && err.empty(); ++r) {
      err = driver.memset8(flush, uint8_t(r), flushBytes);
      float t = 0;
      if (err.empty())
        err = driver.time(launch, t);
      times.push_back(t);
    }
    if (err.empty())
      err = driver.synchronize();
    if (!err.empty())
      return err;
    std::sort(times.begin(), times.end());
    ms = times[times.size() / 2];
    return "";
  }
};

/// The value a build's .meta gives tunable `name` (its `tunable NAME V`
/// line; `absent` for a build without one); 0 when the .meta cannot be read.
int64_t builtTunable(const std::string &ptxPath, const std::string &name, int64_t absent) {
  std::ifstream meta(ptxPath + ".meta");
  if (!meta)
    return 0;
  std::string line, prefix = "tunable " + name + " ";
  while (std::getline(meta, line))
    if (line.rfind(prefix, 0) == 0)
      return std::stoll(line.substr(prefix.size()));
  return absent;
}

/// A build of fp8_mqa_logits or fp8_paged_mqa_logits: its name (the
/// kernel, [bq<BLOCK_Q>.]bt<BLOCK_T>.c<CHUNK>[.p<PAGE>]) and compile-time
/// parameters. BLOCK_Q rows a program take 4 BLOCK_Q warps (a warpgroup a
/// row); page > 0 specialises the paged kernel on block_size = page.
struct MqaBuild {
  std::string kernel;
  int64_t blockQ, blockT, chunk, page = 0;

  std::string name() const {
    return kernel + (blockQ > 1 ? ".bq" + std::to_string(blockQ) : "") + ".bt" +
           std::to_string(blockT) + ".c" + std::to_string(chunk) +
           (page ? ".p" + std::to_string(page) : "");
  }
  std::string tilecArgs() const {
    std::string aligned = kernel == "fp8_mqa_logits" ? "kv" : "kv_cache";
    return "-D BLOCK_T=" + std::to_string(blockT) + " -D CHUNK=" + std::to_string(chunk) +
           (blockQ > 1 ? " -D BLOCK_Q=" + std::to_string(blockQ) : "") +
           (page ? " -D PAGE=" + std::to_string(page) : "") + " --num-warps=" +
           std::to_string(4 * blockQ) + " --assume q=16 --assume " + aligned + "=16";
  }
  /// "" if the build in `path` has these parameters (its .meta; a build
  /// without a BLOCK_Q line has one row a program), else what differs.
  std::string mismatch(const std::string &path) const {
    struct Expected {
      const char *tunable;
      int64_t want, absent;
    };
    for (Expected e : {Expected{"BLOCK_Q", blockQ, 1}, {"BLOCK_T", blockT, 0}, {"CHUNK", chunk, 0}})
      if (int64_t got = builtTunable(path, e.tunable, e.absent); got != e.want)
        return "built with " + std::string(e.tunable) + "=" + std::to_string(got) +
               ", expected " + std::to_string(e.want);
    return "";
  }
};

/// fp8_mqa_logits, specialised on 16-byte aligned q and kv (as the JIT
/// does): one query row a program on 4 warps, and two on 8 warps (each key
/// tile feeds both rows, a warpgroup each).
const std::vector<MqaBuild> kMqaBuilds = {
    {"fp8_mqa_logits", 1, 64, 1024},  {"fp8_mqa_logits", 1, 128, 1024},
    {"fp8_mqa_logits", 1, 64, 4096},  {"fp8_mqa_logits", 1, 128, 4096},
    {"fp8_mqa_logits", 2, 128, 1024}, {"fp8_mqa_logits", 2, 128, 4096}};

/// fp8_paged_mqa_logits: bt64.c1024 (checked on every row, also on a
/// production-like problem) and the chunk sizes timed at the anchors' paged
/// shapes (CHUNK sets the programs a sequence: B x cdiv(next_n, BLOCK_Q) x
/// cdiv(context, CHUNK); with long contexts larger chunks read q and w fewer
/// times: bt128.c2048 to c8192, bench/RESULTS.md runs 93-94); bq2: two query
/// rows of a sequence a program (next_n = 2 reads each key row once), BLOCK_T
/// 64 (bt64.c512 and bt128.c1024 were slower at every next_n = 2 shape, run
/// 91). p64: specialised on the anchors' block_size 64 (as the Triton anchor
/// is on its PAGE), one page number a block for BLOCK_T 64: 0.79-0.95x the
/// Triton anchor's time at its 8 paged shapes, where the builds that read
/// block_size at run time took 0.91-1.02x (run 95).
const std::vector<MqaBuild> kPagedBuilds = {
    {"fp8_paged_mqa_logits", 1, 64, 1024},  {"fp8_paged_mqa_logits", 1, 64, 256},
    {"fp8_paged_mqa_logits", 1, 64, 512},   {"fp8_paged_mqa_logits", 1, 64, 2048},
    {"fp8_paged_mqa_logits", 1, 128, 1024}, {"fp8_paged_mqa_logits", 1, 128, 2048},
    {"fp8_paged_mqa_logits", 1, 128, 4096}, {"fp8_paged_mqa_logits", 1, 128, 8192},
    {"fp8_paged_mqa_logits", 2, 64, 1024},  {"fp8_paged_mqa_logits", 2, 64, 2048},
    {"fp8_paged_mqa_logits", 2, 64, 4096},  {"fp8_paged_mqa_logits", 1, 64, 1024, 64},
    {"fp8_paged_mqa_logits", 1, 64, 2048, 64}, {"fp8_paged_mqa_logits", 1, 64, 4096, 64},
    {"fp8_paged_mqa_logits", 1, 128, 1024, 64}, {"fp8_paged_mqa_logits", 1, 128, 4096, 64},
    {"fp8_paged_mqa_logits", 2, 64, 1024, 64}, {"fp8_paged_mqa_logits", 2, 64, 2048, 64},
    {"fp8_paged_mqa_logits", 2, 64, 4096, 64}};

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: mqa-gpu DIR | --list\n");
    return 2;
  }
  std::string dir = argv[1], error, err;
  if (dir == "--list") {
    for (const std::vector<MqaBuild> *builds : {&kMqaBuilds, &kPagedBuilds})
      for (const MqaBuild &b : *builds)
        std::printf("%s %s\n", b.name().c_str(), b.tilecArgs().c_str());
    return 0;
  }
  auto driver = cuda::Driver::open(0, error);
  if (!driver) {
    std::fprintf(stderr, "mqa-gpu: %s\n", error.c_str());
    return 2;
  }
  std::printf("device: %s (sm_%d)\n", driver->deviceName().c_str(), driver->computeCapability());
  test::GpuRunner runner(*driver);
  int failures = 0, cases = 0;
  uint64_t seed = 900;
  for (const MqaBuild &b : kMqaBuilds) {
    int64_t blockQ = b.blockQ, chunk = b.chunk;
    test::Variant v;
    std::string name = b.name();
    std::string path = dir + "/" + name + ".ptx";
    err = test::readVariant(path, v);
    if (err.empty())
      err = b.mismatch(path);
    if (err.empty())
      err = driver->loadKernel(v.ptx, v.kernel, v.function);
    if (!err.empty()) {
      std::printf("%s: FAIL %s\n", name.c_str(), err.c_str());
      ++failures;
      continue;
    }
    norms::Launcher launch = [&](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                                 const std::vector<size_t> &bytes) {
      return runner.launch(v, grid, args, bytes);
    };
    std::vector<MqaCase> checks = {{1, 1, Pattern::Causal},       {37, 300, Pattern::Causal},
                                   {300, 300, Pattern::Random},    {200, 777, Pattern::Windows, 64},
                                   {4096, 4096, Pattern::Causal, 2048, 257},
                                   {4096, 16384, Pattern::Windows, 2048, 509}};
    bool passed = true;
    for (const MqaCase &c : checks) {
      MqaResult r = runMqaCase(v.params, launch, c, chunk, seed++, blockQ);
      ++cases;
      failures += !r.pass;
      passed &= r.pass;
      std::printf("%-30s S=%-5lld T=%-6lld %-8s rows/%-4lld err/bound %.3f  %s\n", name.c_str(),
                  (long long)c.S, (long long)c.T, patternName(c.pattern), (long long)c.rowStep,
                  r.maxErrOverBound, r.pass ? "pass" : ("FAIL " + r.error).c_str());
    }
    if (!passed) {
      std::printf("%s: not timed (a check failed)\n", name.c_str());
      continue;
    }
    struct Bench {
      int64_t S, T;
      Pattern pattern;
    };
    for (Bench b : {Bench{4096, 4096, Pattern::Causal}, Bench{4096, 16384, Pattern::Causal},
                    Bench{4096, 16384, Pattern::Windows}}) {
      MqaCase c{b.S, b.T, b.pattern};
      MqaProblem p = makeProblem(c, seed++);
      int64_t pairs = 0;
      for (int64_t i = 0; i < c.S; ++i)
        pairs += std::max<int64_t>(0, std::min<int64_t>(p.ke[size_t(i)], c.T) -
                                          std::max<int64_t>(p.ks[size_t(i)], 0));
      double ms = 0;
      err = timeCase(*driver, v, p, chunk, blockQ, ms);
      if (!err.empty()) {
        std::printf("%s time: FAIL %s\n", name.c_str(), err.c_str());
        ++failures;
        continue;
      }
      double tflops = 2.0 * c.H * c.D * double(pairs) / (ms * 1e-3) / 1e12;
      std::printf("| %s | S=%lld T=%lld %s | %.1f us | %.1f TFLOP/s |\n", name.c_str(),
                  (long long)c.S, (long long)c.T, patternName(c.pattern), ms * 1e3, tflops);
    }
  }
  // The paged decode variant: every build checked on ragged problems (the
  // default build also on a production-like one), then timed.
  struct PagedBuild {
    MqaBuild build;
    test::Variant v;
    bool ok = false;
  };
  std::vector<PagedBuild> pagedBuilds;
  for (const MqaBuild &build : kPagedBuilds) {
    std::string name = build.name();
    std::string path = dir + "/" + name + ".ptx";
    if (&build != &kPagedBuilds.front()) { // the optional timing builds
      if (FILE *f = std::fopen(path.c_str(), "r"))
        std::fclose(f);
      else
        continue;
    }
    PagedBuild b{build, {}};
    err = test::readVariant(path, b.v);
    if (err.empty())
      err = build.mismatch(path);
    if (err.empty())
      err = driver->loadKernel(b.v.ptx, b.v.kernel, b.v.function);
    std::vector<PagedCase> pagedCases = {
        {{1, 37, 100, 2000}, 2, 16}, {{5, 64, 777}, 1, 64}, {{3, 900, 260}, 3, 16}};
    if (pagedBuilds.empty())
      pagedCases.push_back({std::vector<int64_t>(32, 8192), 2, 64});
    for (PagedCase &c : pagedCases) // a specialised build's cache has its block size
      c.blockSize = build.page ? build.page : c.blockSize;
    norms::Launcher pagedLaunch = [&](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                                      const std::vector<size_t> &bytes) {
      return runner.launch(b.v, grid, args, bytes);
    };
    b.ok = err.empty();
    for (const PagedCase &c : pagedCases) {
      MqaResult r = err.empty() ? runPagedCase(b.v.params, pagedLaunch, c, build.chunk, seed++,
                                               build.blockQ)
                                : MqaResult{false, 0, 1, 0, err};
      ++cases;
      failures += !r.pass;
      b.ok &= r.pass;
      std::printf("%-32s B=%-4zu next_n=%lld block=%-3lld max ctx %-6lld err/bound %.3f  %s\n",
                  name.c_str(), c.contexts.size(), (long long)c.nextN, (long long)c.blockSize,
                  (long long)*std::max_element(c.contexts.begin(), c.contexts.end()),
                  r.maxErrOverBound, r.pass ? "pass" : ("FAIL " + r.error).c_str());
    }
    pagedBuilds.push_back(std::move(b));
  }
  // Timing at the anchors' shapes; a 256 MiB buffer overwritten before each
  // timed launch flushes the 50 MiB L2.
  const size_t flushBytes = size_t(256) << 20;
  cuda::DevicePtr flush = 0;
  if (std::string e = driver->alloc(flushBytes, flush); !e.empty()) {
    std::printf("fp8_paged_mqa_logits time: FAIL %s\n", e.c_str());
    ++failures;
  }
  for (int64_t B : {32, 128})
    for (int64_t context : {8192, 32768})
      for (int64_t nextN : {1, 2}) {
        if (!flush)
          continue;
        PagedTiming t(*driver, B, nextN, context);
        err = t.upload(seed++);
        for (PagedBuild &b : pagedBuilds) {
          if (!b.ok)
            continue; // a build that failed its checks is not timed
          double ms = 0;
          if (err.empty())
            err = t.time(b.v, b.build.chunk, b.build.blockQ, flush, flushBytes, ms);
          if (!err.empty()) {
            std::printf("%s B=%lld next_n=%lld ctx=%lld time: FAIL %s\n", b.build.name().c_str(),
                        (long long)B, (long long)nextN, (long long)context, err.c_str());
            ++failures;
            break;
          }
          std::printf("| %s | B=%lld next_n=%lld ctx=%lld | %.1f us | %.1f TFLOP/s | %.0f GB/s |\n",
                      b.build.name().c_str(), (long long)B, (long long)nextN, (long long)context,
                      ms * 1e3, t.flops() / (ms * 1e-3) / 1e12, t.bytes() / (ms * 1e-3) / 1e9);
        }
      }
  if (flush)
    driver->free(flush);
  std::printf("\nmqa checks: %d passed, %d failed\n", cases - failures, failures);
  return failures ? 1 : 0;
}
