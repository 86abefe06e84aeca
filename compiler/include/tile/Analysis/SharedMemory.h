//===- SharedMemory.h - shared memory / LDS scratch of tile ops -*- C++ -*-===//
//
// Which laid-out tile ops exchange data through shared memory (LDS on AMD)
// and how many bytes they need. The allocation pass places these buffers;
// the GPU lowering reads them back at the offsets it was given.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_ANALYSIS_SHAREDMEMORY_H
#define TILE_ANALYSIS_SHAREDMEMORY_H

#include "tile/Dialect/TileLayout.h"

#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::tileir {

/// Where a convert_layout that keeps every element within its warp finds,
/// for each register of the result, the source element (a bit of the
/// source's lane or register number): in the same bit of the reading
/// thread's lane (Own), in a bit of the result's register number
/// (Register: known when compiling) or in a bit of the reading thread's id
/// (Thread: lane bits, then warp bits).
struct ShuffleBit {
  enum Kind { Own, Register, Thread } kind;
  int64_t pos = 0;
};

/// How convert_layout moves elements without shared memory: register r of
/// the result is read from the source register numbered by `regBits`, in
/// the lane numbered by `laneBits` (by a warp shuffle when `crossesLanes`).
/// Source register bits taken from the thread id (`dynamicRegBits` of them)
/// are chosen by selects: one candidate (shuffle) each.
struct ShufflePlan {
  SmallVector<ShuffleBit> laneBits, regBits;
  bool crossesLanes = false;
  int64_t dynamicRegBits = 0;
};

/// The plan for converting `from` to `to` by shuffles and selects, or none
/// when an element changes warps or the plan would read more than two
/// source registers a result register across lanes (eight within a thread).
std::optional<ShufflePlan> planShuffles(DistributedLayoutAttr from, DistributedLayoutAttr to);

/// How convert_layout moves a tile of 16-bit elements by 8x8 transposes
/// within each warp (GPUTargetInfo::transpose8x8), where the source's lanes
/// hold index bits [a1, a2, b0, b1, b2] and a register bit holds a0, the
/// result's lanes [b1, b2, a0, a1, a2] and a register bit b0, and both give
/// every other index bit to the same warp bits and to register bits: each
/// pair of source registers differing in a0 (`fromBit`, a register bit
/// position) is one transpose, which gives the pair of result registers
/// differing in b0 (`toBit`). `source[r]` is, for result register r with
/// bit toBit clear, the source register with bit fromBit clear.
struct TransposePlan {
  int64_t fromBit = 0, toBit = 0;
  SmallVector<int64_t> source;
};

/// The plan for converting `from` to `to` by 8x8 transposes (32-lane
/// warps), or none when the layouts are not so related.
std::optional<TransposePlan> planTransposes(DistributedLayoutAttr from, DistributedLayoutAttr to);

/// Bytes one element of `type` takes in shared memory (pointers: 8, i1 and
/// fp8: 1).
int64_t sharedElementBytes(Type type);

/// Shared-memory bytes `op` needs while it runs; 0 when it needs none. The
/// op's operands and results must carry #tile.dist layouts.
int64_t sharedScratchBytes(Operation *op);

/// The alignment, in bytes, of `op`'s shared memory (16 unless the op asks
/// for more).
int64_t sharedAlignment(Operation *op);

/// The outermost loop around `op`, a tile.gather, that its table is
/// defined outside of: the table is written to shared memory once, before
/// that loop, and stays there while it runs (null: written at the gather).
Operation *gatherTableLoop(Operation *op);

/// The attribute holding an op's byte offset into the kernel's shared memory.
inline constexpr llvm::StringLiteral kSharedOffsetAttr = "tile.shared_offset";
/// The attribute of a dot whose B operand the target stages through shared
/// memory: [bytes, alignment] (layout assignment sets it from DotLayouts).
inline constexpr llvm::StringLiteral kDotStagingAttr = "tile.dot_staging";
/// The attribute of a dot that reads its B operand, trans(stage_read of a
/// swizzled ring buffer), from the stage itself (set by tile-pipeline-loads
/// on a dot that had kDotStagingAttr).
inline constexpr llvm::StringLiteral kDotReadsStageAttr = "tile.dot_reads_stage";
/// The attribute of a tile.gather whose table is a stage_read: it looks
/// its indices up in the stage itself, with no table of its own (set by
/// tile-pipeline-loads).
inline constexpr llvm::StringLiteral kGatherReadsStageAttr = "tile.gather_reads_stage";
/// On a tile.stage_buffer of a 1-D load masked by `range < C` (C constant)
/// whose users are all gathers: C. Each stage holds the first C elements
/// (rounded up to 16 bytes) and nothing past them is copied or read: the
/// lookups of elements past C give 0 (tile-pipeline-loads sets it).
inline constexpr llvm::StringLiteral kStageLiveAttr = "tile.stage_live";
/// On a tile.stage_buffer whose stage is one contiguous 16-byte aligned run
/// of global memory (a 1-D load, unmasked or masked by `range < C`), on a
/// target with bulk copies (NVIDIA sm_90): each stage is copied by one bulk
/// copy that completes on the stage's barrier (8 bytes each, after the
/// stages' data, counted in `bytes`), and tile.stage_wait waits for it
/// (tile-pipeline-loads sets it).
inline constexpr llvm::StringLiteral kStageBulkAttr = "tile.stage_bulk";
/// The attribute holding a kernel's shared-memory bytes.
inline constexpr llvm::StringLiteral kSharedBytesAttr = "tile.shared_bytes";
/// On an scf.for: the `num_stages` of its `range`, the ring buffer depth
/// PipelineLoads stages the loop's loads with.
inline constexpr llvm::StringLiteral kNumStagesAttr = "tile.num_stages";
/// The attribute holding the alignment a kernel's shared memory needs, where
/// it is more than 16 bytes.
inline constexpr llvm::StringLiteral kSharedAlignmentAttr = "tile.shared_alignment";

} // namespace mlir::tileir

#endif // TILE_ANALYSIS_SHAREDMEMORY_H
