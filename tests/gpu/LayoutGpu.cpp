//===- LayoutGpu.cpp - the layout kernels on an NVIDIA GPU ----------------===//
//
// Runs every variant of LayoutCases (2-D tiles, reductions along either
// axis, layout conversions) on the GPU from the PTX that `tilec compile`
// wrote, and checks each case against its float64 reference.
//
//   layout-gpu DIR     runs DIR/<variant>.ptx for every variant
//   layout-gpu --list  prints "<variant> <tilec compile arguments>" per line
//                      (scripts/gpu-artifacts.sh builds from this list)
//
//===----------------------------------------------------------------------===//
#include "GpuVariant.h"
#include "LayoutCases.h"

#include <cstdio>

using namespace tile;
using namespace tile::layouts;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: layout-gpu DIR | --list\n");
    return 2;
  }
  std::string dir = argv[1];
  if (dir == "--list") {
    for (const LayoutVariant &v : layoutVariants())
      std::printf("%s %s\n", v.name().c_str(), v.tilecArgs().c_str());
    return 0;
  }
  std::string error;
  auto driver = cuda::Driver::open(0, error);
  if (!driver) {
    std::fprintf(stderr, "layout-gpu: %s\n", error.c_str());
    return 2;
  }
  std::printf("device: %s (sm_%d)\n", driver->deviceName().c_str(), driver->computeCapability());
  test::GpuRunner runner(*driver);
  int cases = 0, failures = 0;
  uint64_t seed = 100;
  for (const LayoutVariant &v : layoutVariants()) {
    test::Variant build;
    std::string err = test::readVariant(dir + "/" + v.name() + ".ptx", build);
    if (err.empty())
      err = driver->loadKernel(build.ptx, build.kernel, build.function);
    norms::Launcher launch = [&](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                                 const std::vector<size_t> &bytes) {
      return runner.launch(build, grid, args, bytes);
    };
    for (auto [m, n] : layoutShapes(v)) {
      ++cases;
      std::string result =
          err.empty() ? runLayoutCase(v, build.params, launch, m, n, seed) : err;
      ++seed;
      failures += !result.empty();
      std::printf("%-36s M=%-5lld N=%-5lld shared=%-5u %s\n", v.name().c_str(), (long long)m,
                  (long long)n, build.sharedBytes, result.empty() ? "pass" : ("FAIL " + result).c_str());
    }
  }
  std::printf("\nlayout checks: %d passed, %d failed\n", cases - failures, failures);
  return failures ? 1 : 0;
}
