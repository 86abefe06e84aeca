//===- Aot.h - kernels compiled ahead of time, served to the runtime -*- C++ -*-===//
//
// `tilec aot` writes a C++ source that embeds one image per target and
// specialisation and a typed launcher over tile::Runtime. The launcher needs
// the GPU driver only: this header and runtime/core, cuda/, hip/ link no LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_AOT_H
#define TILE_AOT_H

#include "tile/Runtime.h"

namespace tile::aot {

/// One embedded variant.
struct Image {
  const char *target;        // "sm_90a", "gfx942"
  const char *assumptions;   // "x=16,N=16" ("" for the generic build)
  const unsigned char *data; // PTX text or code object bytes
  size_t size;
  unsigned threads;
};

/// Serves `images` as compiled variants: for a launch's target and argument
/// properties it picks the matching image with the most assumptions.
KernelCompiler embeddedCompiler(Signature signature, const Image *images, size_t count);

} // namespace tile::aot

#endif // TILE_AOT_H
