//===- Selftest.cpp - tilec selftest: the main job ------------------------===//
#include "Tilec.h"

#include "NormCheck.h"
#include "tile/Tile.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

int tilec::runSelftest(const std::string &dir, bool quick) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return fmt::print(stderr, "tilec: error: '{}' is not a directory\n", dir), kUsageError;
  std::vector<fs::path> files;
  for (auto &entry : fs::recursive_directory_iterator(dir, ec))
    if (entry.path().extension() == ".tile")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::map<std::string, std::string> sources;
  bool ok = true;
  for (auto &path : files) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    auto kernels = tile::check(ss.str(), path.string(), {});
    if (!kernels) {
      printDiagnostics(kernels.message());
      ok = false;
      continue;
    }
    for (auto &k : *kernels) {
      fmt::print("checked {:<28} {}\n", k, path.string());
      sources[k] = ss.str();
    }
  }

  fmt::print("\n{:<20} {:<5} {:>6} {:>6} {:>7} {:>10} {:>9}  {}\n", "kernel", "dtype", "M", "N",
             "stride", "max ulp", "err/bnd", "result");
  std::vector<int64_t> ms = quick ? std::vector<int64_t>{7} : std::vector<int64_t>{1, 7, 83};
  std::vector<int64_t> ns = quick ? std::vector<int64_t>{7, 769, 5125}
                                  : std::vector<int64_t>{1, 7, 768, 769, 5120, 5125, 8192};
  using tile::test::Dtype;
  int failures = 0, rows = 0;
  for (const std::string &name : tile::norms::normKernelNames()) {
    auto it = sources.find(name);
    if (it == sources.end()) {
      fmt::print(stderr, "tilec: error: no kernel '{}' under {}\n", name, dir);
      ok = false;
      continue;
    }
    for (Dtype dtype : {Dtype::BF16, Dtype::F16, Dtype::F32}) {
      tile::CompileOptions options;
      options.defines["T"] = tile::test::name(dtype);
      auto kernel = tile::compileForHost(it->second, name + ".tile", options);
      if (!kernel) {
        printDiagnostics(kernel.message());
        ok = false;
        continue;
      }
      for (int64_t m : ms) {
        for (int64_t n : ns) {
          for (bool strided : {false, true}) {
            tile::norms::NormCase c{name, dtype, m, n, strided};
            auto r = tile::norms::runNormCase(**kernel, c, 1000 + rows);
            ++rows;
            if (!r.pass)
              ++failures;
            fmt::print("{:<20} {:<5} {:>6} {:>6} {:>7} {:>10.3g} {:>9.3f}  {}\n", name,
                       tile::test::name(dtype), m, n, strided ? "2N" : "N", r.maxErrUlp,
                       r.maxErrOverBound, r.pass ? "pass" : "FAIL " + r.error);
          }
        }
      }
    }
  }
  fmt::print("\n{} passed, {} failed\n", rows - failures, failures);
  if (!ok)
    return kCompileError;
  return failures ? kCheckFailed : kOk;
}
