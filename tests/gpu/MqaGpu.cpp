//===- MqaGpu.cpp - fp8_mqa_logits on an NVIDIA GPU: check, then time -----===//
//
// Loads the PTX builds DIR/fp8_mqa_logits.bt<BLOCK_T>.c<CHUNK>.ptx that
// `tilec compile` wrote (scripts/gpu-artifacts.sh), checks each at tier B (MqaCheck: small problems on every
// row, the benchmark shapes on sampled rows), then times the spec's
// benchmark shapes with CUDA events (median of 10 timed runs of 5 launches
// after a warm-up) and prints TFLOP/s counted as the spec says (2 H D per
// unmasked pair).
//
// Then fp8_paged_mqa_logits (DIR/fp8_paged_mqa_logits.bt64.c1024.ptx) is
// checked on every row of ragged and production-like problems.
//
//   mqa-gpu DIR
//
//===----------------------------------------------------------------------===//
#include "GpuVariant.h"
#include "MqaCheck.h"

#include <algorithm>
#include <cstdio>

using namespace tile;
using namespace tile::mqa;

namespace {

/// Median milliseconds per launch of `v` on `p` (device copies of its buffers).
std::string timeCase(cuda::Driver &driver, test::Variant &v, const MqaProblem &p, int64_t chunk,
                     double &ms) {
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
  auto grid = p.grid(chunk);
  unsigned g[3] = {grid[0], grid[1], grid[2]};
  auto launch5 = [&]() -> std::string {
    for (int r = 0; r < 5; ++r)
      if (std::string e = driver.launch(v.function, g, v.threads, 0, pointers); !e.empty())
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

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: mqa-gpu DIR\n");
    return 2;
  }
  std::string dir = argv[1], error, err;
  auto driver = cuda::Driver::open(0, error);
  if (!driver) {
    std::fprintf(stderr, "mqa-gpu: %s\n", error.c_str());
    return 2;
  }
  std::printf("device: %s (sm_%d)\n", driver->deviceName().c_str(), driver->computeCapability());
  test::GpuRunner runner(*driver);
  int failures = 0, cases = 0;
  uint64_t seed = 900;
  for (auto [blockT, chunk] : std::vector<std::pair<int64_t, int64_t>>{
           {64, 1024}, {128, 1024}, {64, 4096}, {128, 4096}}) {
    test::Variant v;
    std::string name =
        "fp8_mqa_logits.bt" + std::to_string(blockT) + ".c" + std::to_string(chunk);
    err = test::readVariant(dir + "/" + name + ".ptx", v);
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
    for (const MqaCase &c : checks) {
      MqaResult r = runMqaCase(v.params, launch, c, chunk, seed++);
      ++cases;
      failures += !r.pass;
      std::printf("%-24s S=%-5lld T=%-6lld %-8s rows/%-4lld err/bound %.3f  %s\n", name.c_str(),
                  (long long)c.S, (long long)c.T, patternName(c.pattern), (long long)c.rowStep,
                  r.maxErrOverBound, r.pass ? "pass" : ("FAIL " + r.error).c_str());
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
      err = timeCase(*driver, v, p, chunk, ms);
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
  // The paged decode variant: checks only (every row), ragged and production-like shapes.
  test::Variant paged;
  err = test::readVariant(dir + "/fp8_paged_mqa_logits.bt64.c1024.ptx", paged);
  if (err.empty())
    err = driver->loadKernel(paged.ptx, paged.kernel, paged.function);
  std::vector<PagedCase> pagedCases = {{{1, 37, 100, 2000}, 2, 16},
                                       {{5, 64, 777}, 1, 64},
                                       {std::vector<int64_t>(32, 8192), 2, 64}};
  norms::Launcher pagedLaunch = [&](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                                    const std::vector<size_t> &bytes) {
    return runner.launch(paged, grid, args, bytes);
  };
  for (const PagedCase &c : pagedCases) {
    MqaResult r = err.empty() ? runPagedCase(paged.params, pagedLaunch, c, 1024, seed++)
                              : MqaResult{false, 0, 1, 0, err};
    ++cases;
    failures += !r.pass;
    std::printf("fp8_paged_mqa_logits     B=%-4zu next_n=%lld block=%-3lld max ctx %-6lld err/bound "
                "%.3f  %s\n",
                c.contexts.size(), (long long)c.nextN, (long long)c.blockSize,
                (long long)*std::max_element(c.contexts.begin(), c.contexts.end()),
                r.maxErrOverBound, r.pass ? "pass" : ("FAIL " + r.error).c_str());
  }
  std::printf("\nmqa checks: %d passed, %d failed\n", cases - failures, failures);
  return failures ? 1 : 0;
}
