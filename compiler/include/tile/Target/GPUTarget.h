//===- GPUTarget.h - what the GPU lowering needs from a target --*- C++ -*-===//
//
// The only way target-neutral code reaches NVVM or ROCDL: thread and program
// ids, warp shuffles, barriers and the facts of the chip. Implementations
// live in compiler/targets/<target>/.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TARGET_GPUTARGET_H
#define TILE_TARGET_GPUTARGET_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"

#include <memory>
#include <string>

namespace mlir::tileir {

/// The registers dot's operands and accumulator live in: the #tile.dist
/// layouts (DistributedLayoutAttr) the target's matrix instructions read and
/// write. A target whose instructions read B from shared memory (wgmma)
/// leaves `b` null (B stays in whatever layout it has) and asks for
/// `sharedBytes` of shared memory, aligned to `sharedAlignment`, to stage it.
struct DotLayouts {
  Attribute a, b, acc;
  int64_t sharedBytes = 0;
  int64_t sharedAlignment = 16;
};

class GPUTargetInfo {
public:
  virtual ~GPUTargetInfo() = default;
  /// "sm_90a", "gfx942", ...
  virtual StringRef name() const = 0;
  virtual unsigned warpSize() const = 0;
  /// Threads a workgroup may have.
  virtual unsigned maxThreadsPerBlock() const = 0;
  /// Shared memory / LDS a workgroup may use, in bytes (NVIDIA: with the
  /// dynamic shared memory opt-in).
  virtual int64_t sharedMemoryPerBlock() const = 0;
  /// The most a workgroup's statically sized shared array may be: a kernel
  /// that needs more declares the array dynamic and its launch asks for the
  /// bytes (declareSharedArray; NVIDIA: 48 KiB; AMD: all its LDS, never).
  virtual int64_t staticSharedMemoryPerBlock() const = 0;
  /// Shared memory / LDS of one SM / CU, shared by its resident workgroups.
  virtual int64_t sharedMemoryPerCU() const = 0;
  /// Address space of global memory and of shared memory / LDS.
  virtual unsigned globalAddressSpace() const = 0;
  virtual unsigned sharedAddressSpace() const = 0;

  /// i32 values.
  virtual Value threadId(OpBuilder &b, Location loc) const = 0;
  virtual Value programId(OpBuilder &b, Location loc, int axis) const = 0;
  virtual Value numPrograms(OpBuilder &b, Location loc, int axis) const = 0;
  /// The value of `v` (32-bit) in lane `lane ^ mask` of the warp.
  virtual Value shuffleXor(OpBuilder &b, Location loc, Value v, int mask) const = 0;
  /// The value of `v` (i32) in lane `lane` (i32, below the warp size) of the warp.
  virtual Value shuffleIndex(OpBuilder &b, Location loc, Value v, Value lane) const = 0;
  /// Whether transpose8x8 exists on the target.
  virtual bool canTranspose8x8() const { return false; }
  /// The 8x8 matrix of 16-bit elements of which lane 4 r + c holds row r,
  /// columns 2 c and 2 c + 1 (the lower in the low half) in `word` (i32),
  /// transposed: the same lane's word of the transpose (NVIDIA: movmatrix).
  virtual Value transpose8x8(OpBuilder &b, Location loc, Value word) const {
    llvm_unreachable("the target has no 8x8 transpose (canTranspose8x8)");
  }
  /// Synchronises the threads of a workgroup (and orders shared memory).
  virtual void barrier(OpBuilder &b, Location loc) const = 0;
  /// tile.gdc_wait (`wait`) and tile.gdc_launch_dependents: NVIDIA sm_90+
  /// griddepcontrol; nothing where kernel launches do not overlap.
  virtual void gridDependency(OpBuilder &b, Location loc, bool wait) const {}
  /// LLVM's synchronisation scope of the whole device (NVPTX "device",
  /// AMDGPU "agent"), for atomics that order programs' memory.
  virtual StringRef deviceScope() const = 0;
  /// Layouts for dot(a: [m, k], b: [k, n]) of `elem` over `numWarps` warps;
  /// "" or why the target's matrix instructions cannot do it. For one
  /// element of a batched dot (`batched`), B stays in registers: `out.b` is
  /// set and no shared memory is asked for.
  virtual std::string dotLayouts(MLIRContext *ctx, Type elem, int64_t m, int64_t n, int64_t k,
                                 int64_t numWarps, bool batched, DotLayouts &out) const = 0;
  /// acc + a * b on one thread's registers in `layouts` (from dotLayouts;
  /// `layouts.b` is B's actual layout). `shared` points at the staging
  /// buffer dotLayouts asked for (null when it asked for none); with
  /// `bInShared`, B is already there, written and fenced (matrixReadFence)
  /// before a barrier (a stage of a swizzled ring buffer).
  virtual SmallVector<Value> lowerDot(OpBuilder &b, Location loc, Type elem, int64_t m,
                                      int64_t n, int64_t k, const DotLayouts &layouts,
                                      ArrayRef<Value> a, ArrayRef<Value> bRegs,
                                      ArrayRef<Value> acc, Value shared,
                                      bool bInShared) const = 0;
  /// Marks `func` (an llvm.func) as a kernel launched with `threads` threads
  /// whose threads use at most `maxRegisters` registers (0: no limit; only
  /// targets whose supportsRegisterLimit() is true are given one).
  virtual void markKernel(Operation *func, unsigned threads, unsigned maxRegisters) const = 0;
  /// Whether markKernel can limit a thread's registers.
  virtual bool supportsRegisterLimit() const { return false; }
  /// Starts an asynchronous copy of `bytes` (4, 8 or 16) from global `src`
  /// to shared `dst` (zeros when `pred` is false) and returns true; false
  /// when the target has no such copy (the caller copies through registers).
  virtual bool asyncCopy(OpBuilder &b, Location loc, Value dst, Value src, int64_t bytes,
                         Value pred) const {
    return false;
  }
  /// Closes the group of asynchronous copies started since the last commit.
  virtual void asyncCommit(OpBuilder &b, Location loc) const {}
  /// Waits until at most `pending` groups of this thread's copies are in flight.
  virtual void asyncWait(OpBuilder &b, Location loc, int64_t pending) const {}
  /// Whether the target has bulk copies (one copy of a contiguous run of
  /// global memory into shared memory, completing on a shared barrier).
  virtual bool hasBulkCopy() const { return false; }
  /// Initialises the `count` 8-byte barriers from `first` (shared) for one
  /// arrival each; the caller runs it in one thread and synchronises after.
  virtual void initBarriers(OpBuilder &b, Location loc, Value first, int64_t count) const {}
  /// Starts the bulk copy of `bytes` (a multiple of 16; both addresses
  /// 16-byte aligned) from global `src` to shared `dst`, to complete on
  /// `barrier` (which this arrival expects it on); one thread calls it.
  virtual void bulkCopy(OpBuilder &b, Location loc, Value dst, Value src, int64_t bytes,
                        Value barrier) const {}
  /// Waits until `barrier` completes the phase of parity `phase` (i32).
  virtual void waitBarrier(OpBuilder &b, Location loc, Value barrier, Value phase) const {}
  /// Orders this thread's earlier shared-memory writes before the matrix
  /// unit's later reads of them (NVIDIA: wgmma reads through the async proxy).
  virtual void matrixReadFence(OpBuilder &b, Location loc) const {}
};

/// Registers the dialects whose ops the target infos build (NVVM, ROCDL):
/// passes that use GPUTargetInfo add them to their dependent dialects.
void registerGPUTargetDialects(DialectRegistry &registry);

/// The target info for `name`, or null with `error` set for an unknown one.
std::unique_ptr<GPUTargetInfo> createGPUTargetInfo(StringRef name, std::string &error);

} // namespace mlir::tileir

#endif // TILE_TARGET_GPUTARGET_H
