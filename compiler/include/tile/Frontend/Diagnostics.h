//===- Diagnostics.h - user-facing errors with file:line:col ----*- C++ -*-===//
#ifndef TILE_FRONTEND_DIAGNOSTICS_H
#define TILE_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace tile {

/// Prints errors as `file:line:col: error: message`, the source line and a
/// caret (llvm::SourceMgr's format), and counts them.
class Diagnostics {
public:
  Diagnostics(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os)
      : sourceMgr(sourceMgr), os(os) {}

  void error(llvm::SMLoc loc, const llvm::Twine &message) {
    ++numErrors;
    sourceMgr.PrintMessage(os, loc, llvm::SourceMgr::DK_Error, message);
  }
  void note(llvm::SMLoc loc, const llvm::Twine &message) {
    sourceMgr.PrintMessage(os, loc, llvm::SourceMgr::DK_Note, message);
  }
  unsigned errorCount() const { return numErrors; }
  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }

private:
  llvm::SourceMgr &sourceMgr;
  llvm::raw_ostream &os;
  unsigned numErrors = 0;
};

} // namespace tile

#endif // TILE_FRONTEND_DIAGNOSTICS_H
