//===- NormGpu.cpp - norm kernels on an NVIDIA GPU: check, then time ------===//
//
// Runs on the GPU machine with nothing but the driver: loads the PTX that
// `tilec compile` produced (scripts/gpu-artifacts.sh), checks every kernel
// and dtype against the float64 references (tier A) over the spec's shapes,
// then times the bandwidth shapes with CUDA events (L2 flushed before each
// launch) next to a device-to-device copy.
//
//   norm-gpu DIR [--check-only|--time-only] [--shard I/N]
//
// --shard I/N runs the checks numbered I, I+N, I+2N, ... only (0 <= I < N):
// N such processes at once share the float64 references among the CPU cores
// (bench/suite.py does this); each case keeps its seed whatever the sharding.
//
//===----------------------------------------------------------------------===//
#include "GpuVariant.h"
#include "NormCheck.h"
#include "tile/CudaDriver.h"

#include <algorithm>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

using namespace tile;
using tile::test::Dtype;

namespace {

using test::ArgSlot;
using test::GpuRunner;
using test::readVariant;
using test::Variant;

const char *dtypeName(Dtype d) { return test::name(d); }

int runChecks(cuda::Driver &driver, std::map<std::string, Variant> &variants, int shard,
              int shards) {
  GpuRunner runner(driver);
  int failures = 0, rows = 0, index = 0;
  std::printf("%-20s %-5s %-7s %6s %6s %6s %10s %9s  %s\n", "kernel", "dtype", "variant", "M",
              "N", "stride", "max ulp", "err/bnd", "result");
  for (const std::string &kernel : norms::normKernelNames()) {
    for (Dtype dtype : {Dtype::BF16, Dtype::F16, Dtype::F32}) {
      for (const char *variant : {"generic", "div16"}) {
        std::string key = kernel + "." + dtypeName(dtype) + "." + variant;
        auto it = variants.find(key);
        if (it == variants.end()) {
          std::printf("missing variant %s\n", key.c_str());
          ++failures;
          continue;
        }
        Variant &v = it->second;
        bool div16 = std::string(variant) == "div16";
        for (int64_t m : {1, 7, 83, 512, 32768}) {
          for (int64_t n : {1, 7, 768, 769, 4096, 5125, 8192, 16384}) {
            for (bool strided : {false, true}) {
              // The div16 build may only run where every N and stride is a
              // multiple of 16 (what it was specialised on).
              if (div16 && n % 16 != 0)
                continue;
              // Large M: a few shapes, so that the float64 references stay
              // within the device call's time.
              if (m == 512 && n != 5125 && n != 16384)
                continue;
              if (m == 32768 && !(n == 4096 && div16 && !strided && dtype == Dtype::BF16 &&
                                  kernel == "rms_norm"))
                continue;
              int caseIndex = index++;
              if (caseIndex % shards != shard)
                continue;
              norms::NormCase c{kernel, dtype, m, n, strided};
              auto launcher = [&](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                                  const std::vector<size_t> &bytes) {
                return runner.launch(v, grid, args, bytes);
              };
              auto r = norms::runNormCase(v.params, launcher, c, 7000 + caseIndex);
              ++rows;
              failures += !r.pass;
              if (!r.pass || m >= 83)
                std::printf("%-20s %-5s %-7s %6lld %6lld %6s %10.3g %9.3f  %s\n", kernel.c_str(),
                            dtypeName(dtype), variant, (long long)m, (long long)n,
                            strided ? "2N" : "N", r.maxErrUlp, r.maxErrOverBound,
                            r.pass ? "pass" : ("FAIL " + r.error).c_str());
            }
          }
        }
      }
    }
  }
  if (shards > 1)
    std::printf("\nshard %d/%d: %d of %d cases\n", shard, shards, rows, index);
  std::printf("\ngpu checks: %d passed, %d failed\n", rows - failures, failures);
  return failures;
}

/// Bytes a norm must move (each input read once, each output written once).
double normBytes(const std::string &kernel, int64_t m, int64_t n, int64_t s, int64_t k,
                 int64_t v) {
  if (kernel == "fused_add_rms_norm")
    return 4.0 * m * n * s + n * s;
  if (kernel == "embed_sum_rms_norm")
    return 4.0 * m * k + std::min(v, m * k) * double(n) * s + double(m) * n * s + n * s;
  return 2.0 * m * n * s + n * s;
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median time of one launch of `v` on an M x N bf16 problem, in us, with
/// L2 flushed before each launch.
std::string timeVariant(cuda::Driver &driver, Variant &v, cuda::DevicePtr flush,
                        size_t flushBytes, int64_t m, int64_t n, int64_t K, int64_t V,
                        double &us) {
  int64_t s = 2;
  std::vector<cuda::DevicePtr> bufs;
  std::vector<ArgSlot> slots(v.params.size());
  std::vector<void *> ptrs(v.params.size());
  std::string err;
  auto bufferBytes = [&](const std::string &name) -> size_t {
    if (name == "w")
      return n * s;
    if (name == "ids")
      return size_t(m) * K * 4;
    if (name == "table")
      return size_t(V) * n * s;
    return size_t(m) * n * s;
  };
  for (size_t i = 0; i < v.params.size(); ++i) {
    const ParamInfo &p = v.params[i];
    ptrs[i] = slots[i].bytes;
    int64_t value = 0;
    if (p.isPointer) {
      cuda::DevicePtr d = 0;
      size_t bytes = bufferBytes(p.name);
      if (err.empty())
        err = driver.alloc(bytes, d);
      if (err.empty() && p.name == "ids") {
        // The anchors' layout (Inkling dmel): ids[m, k] = 16 k + u, u in [0, 16).
        std::vector<int32_t> ids(size_t(m) * K);
        for (size_t j = 0; j < ids.size(); ++j)
          ids[j] = int32_t(16 * (j % K) + (j * 2654435761u >> 7) % 16);
        err = driver.copyToDevice(d, ids.data(), bytes);
      } else if (err.empty()) {
        err = driver.memset8(d, 0x3c, bytes);
      }
      bufs.push_back(d);
      std::memcpy(slots[i].bytes, &d, 8);
      continue;
    }
    if (p.name == "N")
      value = n;
    else if (p.name == "K" || p.name == "ids_stride")
      value = K;
    else if (p.name.find("stride") != std::string::npos)
      value = n;
    if (p.kind == ScalarKind::F32) {
      float eps = 1e-6f;
      std::memcpy(slots[i].bytes, &eps, 4);
    } else {
      std::memcpy(slots[i].bytes, &value, 8);
    }
  }
  unsigned grid[3] = {unsigned(m), 1, 1};
  std::vector<float> times;
  for (int it = 0; it < 12 && err.empty(); ++it) {
    err = driver.memset8(flush, uint8_t(it), flushBytes);
    float ms = 0;
    if (err.empty())
      err = driver.time(
          [&] { return driver.launch(v.function, grid, v.threads, v.sharedBytes, ptrs); }, ms);
    if (it >= 2)
      times.push_back(ms);
  }
  for (auto d : bufs)
    driver.free(d);
  if (err.empty())
    us = median(times) * 1e3;
  return err;
}

int runTimings(cuda::Driver &driver, std::map<std::string, Variant> &variants) {
  // Copy ceiling: 1 GiB device-to-device, bytes read + written.
  size_t copyBytes = size_t(1) << 30;
  cuda::DevicePtr a = 0, b = 0, flush = 0;
  size_t flushBytes = size_t(256) << 20;
  if (!driver.alloc(copyBytes, a).empty() || !driver.alloc(copyBytes, b).empty() ||
      !driver.alloc(flushBytes, flush).empty())
    return std::printf("allocation failed\n"), 1;
  std::vector<float> copyMs;
  for (int i = 0; i < 10; ++i) {
    float ms = 0;
    driver.time([&] { return driver.copyOnDevice(b, a, copyBytes); }, ms);
    copyMs.push_back(ms);
  }
  double copyGBs = 2.0 * copyBytes / (median(copyMs) * 1e-3) / 1e9;
  std::printf("\ncopy bandwidth (1 GiB device-to-device, read+write): %.0f GB/s\n\n", copyGBs);
  driver.free(a);
  driver.free(b);

  std::printf("| kernel | dtype | M | N | tilec us | GB/s | %% of copy | warps (best of) |\n"
              "|---|---|---|---|---|---|---|---|\n");
  const int64_t K = 80, V = 1280;
  // The anchors' shapes, then the M x N grid of the first bandwidth table.
  std::vector<std::pair<int64_t, int64_t>> shapes = {
      {1, 4096}, {128, 7168}, {4096, 5120}, {32768, 4096}, {8192, 16384}};
  for (int64_t m : {1, 128, 4096, 32768})
    for (int64_t n : {4096, 8192, 16384})
      if (std::find(shapes.begin(), shapes.end(), std::make_pair(m, n)) == shapes.end())
        shapes.push_back({m, n});
  for (const std::string &kernel : norms::normKernelNames()) {
    for (auto [m, n] : shapes) {
      std::string base = kernel + ".bf16.n" + std::to_string(n);
      std::vector<Variant *> candidates = {&variants.at(base)};
      for (int w : {4, 8, 16})
        if (variants.count(base + ".w" + std::to_string(w)))
          candidates.push_back(&variants.at(base + ".w" + std::to_string(w)));
      double best = 0;
      unsigned bestThreads = 0;
      std::string err;
      for (Variant *v : candidates) {
        double us = 0;
        err = timeVariant(driver, *v, flush, flushBytes, m, n, K, V, us);
        if (!err.empty())
          break;
        if (best == 0 || us < best) {
          best = us;
          bestThreads = v->threads;
        }
      }
      if (!err.empty()) {
        std::printf("| %s | bf16 | %lld | %lld | error: %s |\n", kernel.c_str(), (long long)m,
                    (long long)n, err.c_str());
        continue;
      }
      double gbs = normBytes(kernel, m, n, 2, K, V) / (best * 1e-6) / 1e9;
      std::printf("| %s | bf16 | %lld | %lld | %.1f | %.0f | %.1f | %u (%zu) |\n", kernel.c_str(),
                  (long long)m, (long long)n, best, gbs, 100.0 * gbs / copyGBs, bestThreads / 32,
                  candidates.size());
    }
  }
  driver.free(flush);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  const char *usage = "usage: norm-gpu DIR [--check-only|--time-only] [--shard I/N]\n";
  if (argc < 2) {
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  std::string dir = argv[1], mode;
  int shard = 0, shards = 1;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--check-only" || a == "--time-only") {
      mode = a;
    } else if (a == "--shard" && i + 1 < argc &&
               std::sscanf(argv[i + 1], "%d/%d", &shard, &shards) == 2 && shards >= 1 &&
               shard >= 0 && shard < shards) {
      ++i;
    } else {
      std::fprintf(stderr, "norm-gpu: bad argument '%s'\n%s", argv[i], usage);
      return 2;
    }
  }
  std::string error;
  auto driver = cuda::Driver::open(0, error);
  if (!driver) {
    std::fprintf(stderr, "norm-gpu: %s\n", error.c_str());
    return 2;
  }
  std::printf("device: %s (sm_%d, %d SMs)\n", driver->deviceName().c_str(),
              driver->computeCapability(), driver->multiprocessors());
  std::map<std::string, Variant> variants;
  // Reads DIR/KEY.ptx and its .meta and loads the kernel into `variants`.
  auto load = [&](const std::string &key) {
    Variant v;
    std::string err = readVariant(dir + "/" + key + ".ptx", v);
    if (err.empty())
      err = driver->loadKernel(v.ptx, v.kernel, v.function);
    if (err.empty())
      variants[key] = std::move(v);
    return err;
  };
  // Required builds; the timing builds (second) may come with a warps sweep.
  std::vector<std::pair<std::string, bool>> required;
  for (const std::string &kernel : norms::normKernelNames()) {
    for (const char *dtype : {"bf16", "f16", "f32"})
      for (const char *variant : {"generic", "div16"})
        required.push_back({kernel + "." + dtype + "." + variant, false});
    for (int n : {4096, 5120, 7168, 8192, 16384})
      required.push_back({kernel + ".bf16.n" + std::to_string(n), true});
  }
  for (const auto &[key, timing] : required) {
    if (std::string err = load(key); !err.empty()) {
      std::fprintf(stderr, "norm-gpu: %s: %s\n", key.c_str(), err.c_str());
      return 2;
    }
    if (timing)
      for (int w : {4, 8, 16})
        load(key + ".w" + std::to_string(w));
  }
  int failures = 0;
  if (mode != "--time-only")
    failures += runChecks(*driver, variants, shard, shards);
  if (mode != "--check-only")
    failures += runTimings(*driver, variants);
  return failures ? 1 : 0;
}
