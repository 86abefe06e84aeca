//===- Diagnostics.h - user-facing errors with file:line:col ----*- C++ -*-===//
#ifndef TILE_FRONTEND_DIAGNOSTICS_H
#define TILE_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

namespace tile {

/// Prints errors as `file:line:col: error: message`, the source line and a
/// caret (llvm::SourceMgr's format), and counts them; an error already
/// printed (the same place and message, e.g. from a helper that two kernels
/// call) is counted but not printed again. A source line longer
/// than kMaxEchoedLine bytes is echoed clipped to that many bytes around the
/// caret, with "..." where it was cut, so that an error on a 10 MB line
/// prints a few hundred bytes, not 20 MB.
class Diagnostics {
public:
  static constexpr size_t kMaxEchoedLine = 200;

  Diagnostics(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os)
      : sourceMgr(sourceMgr), os(os) {}

  void error(llvm::SMLoc loc, const llvm::Twine &message) {
    ++numErrors;
    if (printed.insert({loc.getPointer(), message.str()}).second)
      print(loc, llvm::SourceMgr::DK_Error, message);
  }
  void note(llvm::SMLoc loc, const llvm::Twine &message) {
    print(loc, llvm::SourceMgr::DK_Note, message);
  }
  unsigned errorCount() const { return numErrors; }
  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }

private:
  void print(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind, const llvm::Twine &message) {
    llvm::SMDiagnostic diag = sourceMgr.GetMessage(loc, kind, message);
    llvm::StringRef line = diag.getLineContents();
    if (diag.getColumnNo() < 0 || line.size() <= kMaxEchoedLine) {
      sourceMgr.PrintMessage(os, diag);
      return;
    }
    // A window of kMaxEchoedLine bytes around the caret (half before it where
    // the line allows), widened to whole UTF-8 characters.
    size_t col = std::min<size_t>(diag.getColumnNo(), line.size());
    size_t start = col > kMaxEchoedLine / 2 ? col - kMaxEchoedLine / 2 : 0;
    size_t end = std::min(line.size(), start + kMaxEchoedLine);
    start = end > kMaxEchoedLine ? std::min(start, end - kMaxEchoedLine) : 0;
    auto continuation = [&](size_t i) { return (line[i] & 0xC0) == 0x80; };
    while (start > 0 && continuation(start))
      --start;
    while (end < line.size() && continuation(end))
      ++end;
    llvm::StringRef before = start > 0 ? "..." : "", after = end < line.size() ? "..." : "";
    std::string clipped = (before + line.slice(start, end) + after).str();
    // The location is printed here: the clipped diagnostic's column is the
    // caret's within the clipped line.
    os << (diag.getFilename() == "-" ? llvm::StringRef("<stdin>") : diag.getFilename()) << ':'
       << diag.getLineNo() << ':' << diag.getColumnNo() + 1 << ": ";
    llvm::SMDiagnostic(sourceMgr, loc, /*FN=*/"", diag.getLineNo(),
                       int(before.size() + col - start), kind, diag.getMessage(), clipped,
                       /*Ranges=*/{})
        .print(nullptr, os);
  }

  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
  unsigned numErrors = 0;
  std::set<std::pair<const char *, std::string>> printed;
};

} // namespace tile

#endif // TILE_FRONTEND_DIAGNOSTICS_H
