//===- Aot.h - kernels compiled ahead of time, served to the runtime -*- C++ -*-===//
//
// `tilec aot` writes a C++ source that embeds one image per target,
// specialisation and configuration and a typed launcher over tile::Runtime.
// The launcher needs the GPU driver only: this header and runtime/core,
// cuda/, hip/ link no LLVM.
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
  /// The tunable parameters it was built with, as configText() writes them
  /// ("BLOCK=256 num_warps=4"); null or "" when the kernel embeds no tuning.
  const char *config = nullptr;
  /// The kernel calls gdc_wait() (GPUBinary::waitsOnPriorGrid).
  bool waitsOnPriorGrid = false;
  /// GPUBinary::programsPerCta.
  unsigned programsPerCta = 1;
};

/// A configuration chosen by tuning ahead of time (`tilec tune`) for one
/// target and tuning key; with a null key, what every other key runs on the
/// target (`tilec aot` writes one for a target whose defaults were shrunk to
/// fit its shared memory).
struct Tuned {
  const char *target; // "sm_90a"
  const char *key;    // the key text, as tuningKeyText() writes it: "n=4096"
  const char *config; // "BLOCK=256 num_warps=4"
};

/// Serves `images` as compiled variants: for a launch's target and argument
/// properties it picks the matching image with the most assumptions. When
/// `signature` declares tunables, the images carry configurations and
/// `tuned` says which one each tuning key uses on each target; a key that
/// was not tuned gets the target's entry with a null key, else the tunables'
/// default values (signature.tunables[i].value), which must have images too.
/// Nothing is timed at run time.
KernelCompiler embeddedCompiler(Signature signature, const Image *images, size_t count,
                                const Tuned *tuned = nullptr, size_t tunedCount = 0);

} // namespace tile::aot

#endif // TILE_AOT_H
