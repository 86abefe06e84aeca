//===- LaunchOverhead.cpp - host time per launch through tile::Runtime ----===//
//
// Runs on the GPU machine with only the driver: the kernel image comes from
// the PTX that `tilec compile` wrote (a KernelCompiler that reads files, as an
// AOT build would), so the measured path is the runtime's launch path:
// argument checks, the specialisation lookup, packing and cuLaunchKernel.
//
//   launch-overhead DIR   (DIR holds trivial.ptx and trivial.ptx.meta)
//
//===----------------------------------------------------------------------===//
#include "tile/CudaDriver.h"
#include "tile/Runtime.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace tile;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

KernelCompiler fileCompiler(const std::string &dir) {
  KernelCompiler c;
  c.signature = [](const std::string &, const std::string &, const CompileOptions &) {
    return Result<Signature>(Signature{"trivial", {{"x", ScalarKind::F32, true}}});
  };
  c.compile = [dir](const std::string &, const std::string &,
                    const CompileOptions &) -> Result<KernelBinary> {
    KernelBinary b;
    b.kernel = "trivial";
    b.params = {{"x", ScalarKind::F32, true}};
    b.image = readFile(dir + "/trivial.ptx");
    b.threads = 128;
    if (b.image.empty())
      return Result<KernelBinary>::failure("cannot read " + dir + "/trivial.ptx");
    return b;
  };
  return c;
}

double microsPerLaunch(int launches, const std::function<std::string()> &launch) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i)
    if (!launch().empty())
      return -1;
  auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(stop - start).count() / launches;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: launch-overhead DIR\n");
    return 2;
  }
  RuntimeOptions options;
  options.backend = "cuda";
  auto rt = Runtime::create(options, fileCompiler(argv[1]));
  if (!rt) {
    std::fprintf(stderr, "launch-overhead: %s\n", rt.message().c_str());
    return 2;
  }
  auto kernel = (*rt)->loadSource("", "trivial.tile", {});
  void *buffer = nullptr;
  if (!kernel || !(*rt)->alloc(1 << 20, &buffer).empty())
    return std::fprintf(stderr, "launch-overhead: setup failed\n"), 2;
  std::vector<Arg> args = {Arg::pointer(buffer)};
  auto viaRuntime = [&] { return (*rt)->launch(*kernel, {1, 1, 1}, args); };
  // First launch compiles (here: loads) the variant; then warm up.
  if (std::string err = viaRuntime(); !err.empty())
    return std::fprintf(stderr, "launch-overhead: %s\n", err.c_str()), 2;
  microsPerLaunch(2000, viaRuntime);
  (*rt)->synchronize();
  std::printf("device: %s (%s)\n", (*rt)->deviceName().c_str(), (*rt)->target().c_str());
  for (int round = 0; round < 3; ++round) {
    double us = microsPerLaunch(10000, viaRuntime);
    (*rt)->synchronize();
    std::printf("tile::Runtime::launch: %.3f us per launch (10000 launches, host time)\n", us);
  }
  // The driver alone, same kernel and arguments: what the runtime adds is the
  // difference.
  std::string error;
  auto driver = cuda::Driver::open(0, error);
  void *function = nullptr;
  if (!driver || !driver->loadKernel(readFile(std::string(argv[1]) + "/trivial.ptx"), "trivial",
                                     function)
                      .empty())
    return std::fprintf(stderr, "launch-overhead: driver: %s\n", error.c_str()), 2;
  uint64_t address = reinterpret_cast<uintptr_t>(buffer);
  std::vector<void *> raw = {&address};
  unsigned grid[3] = {1, 1, 1};
  auto viaDriver = [&] { return driver->launch(function, grid, 128, 0, raw); };
  microsPerLaunch(2000, viaDriver);
  driver->synchronize();
  for (int round = 0; round < 3; ++round) {
    double us = microsPerLaunch(10000, viaDriver);
    driver->synchronize();
    std::printf("cuLaunchKernel alone: %.3f us per launch (10000 launches, host time)\n", us);
  }
  float check = 0;
  (*rt)->copyToHost(&check, buffer, 4);
  std::printf("kernel wrote %.1f (expected 1.0)\n", check);
  return check == 1.0f ? 0 : 1;
}
