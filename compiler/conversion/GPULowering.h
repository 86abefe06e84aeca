//===- GPULowering.h - what the tile-to-GPU patterns share ------*- C++ -*-===//
#ifndef TILE_CONVERSION_GPULOWERING_H
#define TILE_CONVERSION_GPULOWERING_H

#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/TileDialect.h"
#include "tile/Dialect/TileLayout.h"
#include "tile/Target/GPUTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tileir {

/// The name of the kernel's shared memory / LDS array.
inline constexpr llvm::StringLiteral kSharedArray = "__tile_shared";

/// Everything the patterns of one kernel share.
struct GPULowering {
  const GPUTargetInfo &target;
  const AxisInfoAnalysis &axis;
};

template <typename Op> struct GPUPattern : OpConversionPattern<Op> {
  GPUPattern(const TypeConverter &tc, MLIRContext *mctx, const GPULowering &lowering)
      : OpConversionPattern<Op>(tc, mctx), lowering(lowering) {}
  const GPULowering &lowering;
};

inline Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

/// The elements of a per-thread vector (a scalar is one element).
SmallVector<Value> unpack(OpBuilder &b, Location loc, Value v);
/// `elems` as a value of `type` (a vector, or the scalar itself).
Value pack(OpBuilder &b, Location loc, Type type, ArrayRef<Value> elems);

/// The linear index bits the calling thread's id contributes under `layout` (i32).
Value threadIndex(OpBuilder &b, Location loc, const GPUTargetInfo &target,
                  DistributedLayoutAttr layout);

/// Bits of `r` at the positions where `keep` holds, packed together.
int64_t compressBits(int64_t r, ArrayRef<bool> keep);

/// Elements of the same register run a thread keeps at consecutive
/// indices: the leading register bits that number the lowest index bits.
int64_t consecutiveRegisters(DistributedLayoutAttr layout);

/// Declares the kernel's shared array (kSharedArray) of `bytes` at the
/// start of `module`, replacing any: a global of that size where it fits
/// `staticLimit`, else an external one of no size (PTX `.extern .shared`:
/// its size is the launch's dynamic shared memory, the kernel's
/// tile.shared_bytes).
void declareSharedArray(ModuleOp module, int64_t bytes, int64_t alignment, unsigned addressSpace,
                        int64_t staticLimit);

/// Pointer to byte `offset` (i32) of the kernel's shared array, past the
/// offset the allocation gave `op`.
Value sharedAddress(OpBuilder &b, Location loc, const GPUTargetInfo &target, Operation *op,
                    Value offset);

/// The shared address of element `index` of stage `stage` of `op`'s buffer
/// (`buffer`'s copy, wait or read): each stage its tile in row-major order (a
/// swizzled buffer's 16-byte chunks permuted; a buffer with kStageLiveAttr
/// only the live elements).
Value stageAddress(OpBuilder &b, Location loc, const GPUTargetInfo &target, Operation *op,
                   Value buffer, Value stage, Value index, int64_t elemBytes);
/// The bytes of `stages`' tiles (without a bulk buffer's barriers).
int64_t stageDataBytes(StageBufferOp stages);
/// The shared address of the barrier of stage `stage` (i32) of a bulk
/// buffer (kStageBulkAttr), for `op`, its copy or wait.
Value stageBarrier(OpBuilder &b, Location loc, const GPUTargetInfo &target, Operation *op,
                   Value buffer, Value stage);
/// Whether element `index` (i32) is one of a trimmed stage's live elements
/// (kStageLiveAttr: index < C), as an i1; null when `buffer`'s stages hold
/// their whole tile.
Value insideLiveElements(OpBuilder &b, Location loc, Value buffer, Value index);

/// `values` (one element type) in memory form, packed into one value:
/// fp8 and i1 as i8, several elements as a vector.
Value toMemory(OpBuilder &b, Location loc, ArrayRef<Value> values);
/// The `count` elements of type `elem` held by `raw` (as toMemory made it).
SmallVector<Value> fromMemory(OpBuilder &b, Location loc, Value raw, Type elem, int64_t count);
/// The type toMemory gives `count` elements of `elem`.
Type memoryType(Type elem, int64_t count);

/// Broadcast, expand_dims, convert_layout and reduce.
void populateLayoutPatterns(const TypeConverter &converter, RewritePatternSet &patterns,
                            const GPULowering &lowering);

} // namespace mlir::tileir

#endif // TILE_CONVERSION_GPULOWERING_H
