//===- HostExitTest.cpp - a HostKernel destroyed after main returns -------===//
//
// Compiles host kernels into objects with static storage duration that are
// destroyed after main returns: a global constructed before the first compile,
// so that it outlives whatever LLVM initialises lazily during the compile and
// the launch. The test passes when the process exits with 0 and a clean
// sanitizer report (a crash or a leak aborts it).
//
//===----------------------------------------------------------------------===//
#include "tile/Tile.h"

#include <cstdio>
#include <memory>
#include <vector>

namespace {

const char *kSource =
    "kernel twice<BLOCK: int = 64>(x: ptr<f32>, n: i32) {\n"
    "  let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n"
    "  let m = offs < n;\n"
    "  store(x + offs, load(x + offs, mask=m, other=0) * 2.0, mask=m);\n"
    "}\n";

/// Destroyed after main returns, after LLVM's function-local statics that the
/// compiles below construct.
std::vector<std::shared_ptr<tile::HostKernel>> kernels;
std::shared_ptr<tile::HostKernel> unlaunched;

} // namespace

int main() {
  for (const char *block : {"32", "64"}) {
    tile::CompileOptions options;
    options.defines["BLOCK"] = block;
    auto kernel = tile::compileForHost(kSource, "twice.tile", options);
    if (!kernel) {
      std::printf("FAILED: compile: %s\n", kernel.message().c_str());
      return 1;
    }
    kernels.push_back(*kernel);
  }
  float x[100];
  for (int i = 0; i < 100; ++i)
    x[i] = float(i);
  for (auto &k : kernels) {
    std::string err = k->launch({4, 1, 1}, {tile::Arg::pointer(x), tile::Arg::integer(100)});
    if (!err.empty()) {
      std::printf("FAILED: launch: %s\n", err.c_str());
      return 1;
    }
  }
  for (int i = 0; i < 100; ++i)
    if (x[i] != 4.0f * float(i)) {
      std::printf("FAILED: x[%d] = %g\n", i, double(x[i]));
      return 1;
    }
  // One kernel compiled but never launched.
  auto kernel = tile::compileForHost(kSource, "twice.tile", tile::CompileOptions());
  if (!kernel) {
    std::printf("FAILED: compile: %s\n", kernel.message().c_str());
    return 1;
  }
  unlaunched = *kernel;
  std::printf("host kernels destroyed after main: launched, checked\n");
  return 0;
}
