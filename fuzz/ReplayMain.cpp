//===- ReplayMain.cpp - run a fuzz target once on each given input -------===//
//
// The main() of the fuzz-*-replay programs: what ctest runs in every build, so
// that the seed corpus and every input the fuzzer once crashed on are checked
// by the normal test suite, with or without libFuzzer.
//
//   fuzz-NAME-replay [--suffix=.EXT]... PATH...
//
// A PATH that is a file is run whatever its name; directories are walked
// recursively, in sorted order, taking the files that end in one of the
// suffixes (every file when none is given). A failing input aborts the
// program (the target calls abort(), or a sanitizer reports), after its path
// has been printed.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> suffixes;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--suffix=", 0) == 0) {
      suffixes.push_back(arg.substr(9));
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(arg, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file())
          continue;
        std::string name = it->path().filename().string();
        bool match = suffixes.empty() ||
                     std::any_of(suffixes.begin(), suffixes.end(), [&](const std::string &s) {
                       return name.size() >= s.size() &&
                              name.compare(name.size() - s.size(), s.size(), s) == 0;
                     });
        if (match)
          found.push_back(it->path());
      }
      if (ec) {
        std::fprintf(stderr, "replay: cannot read the directory %s: %s\n", arg.c_str(),
                     ec.message().c_str());
        return 2;
      }
      std::sort(found.begin(), found.end());
      inputs.insert(inputs.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(arg, ec)) {
      inputs.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", arg.c_str());
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s [--suffix=.EXT]... FILE|DIR... (no inputs found)\n",
                 argv[0]);
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  double total = 0, slowest = 0;
  std::string slowestPath;
  for (const fs::path &path : inputs) {
    std::ifstream in(path, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
      return 2;
    }
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", path.c_str(), data.size());
    auto start = Clock::now();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(data.data()), data.size());
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    total += seconds;
    if (seconds > slowest) {
      slowest = seconds;
      slowestPath = path.string();
    }
  }
  std::fprintf(stderr, "replay: %zu inputs passed in %.2f s (slowest %.3f s: %s)\n",
               inputs.size(), total, slowest, slowestPath.c_str());
  return 0;
}
