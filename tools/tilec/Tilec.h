//===- Tilec.h - shared pieces of the tilec command line --------*- C++ -*-===//
#ifndef TILEC_TILEC_H
#define TILEC_TILEC_H

#include "tile/Tile.h"

#include <string>
#include <utility>
#include <vector>

namespace tilec {

/// Exit codes, documented in `tilec --help` and the README.
enum ExitCode { kOk = 0, kCompileError = 1, kUsageError = 2, kCheckFailed = 3 };

/// Writes a diagnostic text to stderr, ending it with a newline.
void printDiagnostics(const std::string &text);

/// Prints "tilec: error: MESSAGE" to stderr and returns kUsageError.
int usageError(const std::string &message);

/// The value of option `flag` at args[i]: "--flag=VALUE" or "--flag VALUE"
/// (then i moves to VALUE). Returns "" or the error text.
std::string optionValue(const std::vector<std::string> &args, size_t &i, const std::string &flag,
                        std::string &dst);

/// Where `tilec aot` finds tuned configurations to embed.
struct AotTuning {
  /// A tuned-configs file (`tilec tune` output lines); empty: none.
  std::string file;
  /// The disk cache to read choices from (empty: the default location).
  std::string cacheDir;
  bool noCache = false;
};

/// `tilec aot`: writes OUTDIR/<kernel>.{h,cpp} with one embedded image per
/// target, variant (the generic build plus each `variants` entry) and
/// configuration (the defaults plus each tuned one), and the table of tuned
/// configurations the launcher dispatches on.
int runAot(const std::string &file, const std::string &source, tile::CompileOptions options,
           const std::vector<std::string> &targets, const std::vector<std::string> &variants,
           const std::string &outDir, const AotTuning &tuning);

/// Options of `tilec tune` beyond the common ones (TuneCommand.cpp).
struct TuneArgs {
  /// --key NAME=VALUE, --arg NAME=VALUE, --buffer NAME=EXPR, in order.
  std::vector<std::pair<std::string, std::string>> keys, args, buffers;
  std::string grid, elements, config;
  unsigned repeats = 10, threads = 0;
  bool force = false;
};

/// Parses the tune option at args[i] (advancing i past its value) into
/// `out`; `matched` says whether it was one. Returns an error text or "".
std::string parseTuneFlag(const std::vector<std::string> &args, size_t &i, TuneArgs &out,
                          bool &matched);

/// `tilec tune`: tunes `options.kernel` of FILE for one key on the device
/// found for `options.target` ("auto": CUDA, HIP, else the host CPU), stores
/// the choice in the disk cache and prints it as a tuned-configs line.
/// `tilec budget`: prints the kernel's shared memory plan for a GPU target.
int runBudget(const std::string &file, const std::string &source,
              const tile::CompileOptions &options);

int runTune(const std::string &file, const std::string &source, tile::CompileOptions options,
            const TuneArgs &args, const std::string &cacheDir);

/// `tilec selftest [DIR]`: checks every kernel under DIR and runs the norm
/// kernels on the host CPU against their references.
int runSelftest(const std::string &dir, bool quick);

/// `tilec cache info|list|clear [--dir DIR]` (CacheCommand.cpp); `args`
/// follow the word 'cache'.
int runCacheCommand(const std::vector<std::string> &args);

} // namespace tilec

#endif // TILEC_TILEC_H
