//===- Tilec.h - shared pieces of the tilec command line --------*- C++ -*-===//
#ifndef TILEC_TILEC_H
#define TILEC_TILEC_H

#include <string>

namespace tilec {

/// Exit codes, documented in `tilec --help` and the README.
enum ExitCode { kOk = 0, kCompileError = 1, kUsageError = 2, kCheckFailed = 3 };

/// Writes a diagnostic text to stderr, ending it with a newline.
void printDiagnostics(const std::string &text);

/// `tilec selftest [DIR]`: checks every kernel under DIR and runs the norm
/// kernels on the host CPU against their references.
int runSelftest(const std::string &dir, bool quick);

} // namespace tilec

#endif // TILEC_TILEC_H
