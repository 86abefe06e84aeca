//===- SharedMemory.h - shared memory / LDS scratch of tile ops -*- C++ -*-===//
//
// Which laid-out tile ops exchange data through shared memory (LDS on AMD)
// and how many bytes they need. The allocation pass places these buffers;
// the GPU lowering reads them back at the offsets it was given.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_ANALYSIS_SHAREDMEMORY_H
#define TILE_ANALYSIS_SHAREDMEMORY_H

#include "mlir/IR/Operation.h"

namespace mlir::tileir {

/// Bytes one element of `type` takes in shared memory (pointers: 8, i1 and
/// fp8: 1).
int64_t sharedElementBytes(Type type);

/// Shared-memory bytes `op` needs while it runs; 0 when it needs none. The
/// op's operands and results must carry #tile.dist layouts.
int64_t sharedScratchBytes(Operation *op);

/// The attribute holding an op's byte offset into the kernel's shared memory.
inline constexpr llvm::StringLiteral kSharedOffsetAttr = "tile.shared_offset";
/// The attribute holding a kernel's shared-memory bytes.
inline constexpr llvm::StringLiteral kSharedBytesAttr = "tile.shared_bytes";

} // namespace mlir::tileir

#endif // TILE_ANALYSIS_SHAREDMEMORY_H
