//===- Tilec.h - shared pieces of the tilec command line --------*- C++ -*-===//
#ifndef TILEC_TILEC_H
#define TILEC_TILEC_H

#include "tile/Tile.h"

#include <string>
#include <vector>
#include <vector>

namespace tilec {

/// Exit codes, documented in `tilec --help` and the README.
enum ExitCode { kOk = 0, kCompileError = 1, kUsageError = 2, kCheckFailed = 3 };

/// Writes a diagnostic text to stderr, ending it with a newline.
void printDiagnostics(const std::string &text);

/// `tilec aot`: writes OUTDIR/<kernel>.{h,cpp} with one embedded image per
/// target and variant (the generic build plus each `variants` entry).
int runAot(const std::string &file, const std::string &source, tile::CompileOptions options,
           const std::vector<std::string> &targets, const std::vector<std::string> &variants,
           const std::string &outDir);

/// `tilec selftest [DIR]`: checks every kernel under DIR and runs the norm
/// kernels on the host CPU against their references.
int runSelftest(const std::string &dir, bool quick);

/// `tilec cache info|list|clear [--dir DIR]` (CacheCommand.cpp); `args`
/// follow the word 'cache'.
int runCacheCommand(const std::vector<std::string> &args);

} // namespace tilec

#endif // TILEC_TILEC_H
