//===- NVPTXMatrix.h - NVIDIA matrix instructions for dot -------*- C++ -*-===//
//
// What dot's two NVIDIA lowerings share, and the warpgroup one: mma.sync
// (sm_80+, operands in registers) is in NVPTXTargetInfo.cpp; wgmma (sm_90a)
// takes A from registers in mma.sync's fragment and B from shared memory,
// where the lowering stages it K-major with the 128-byte swizzle.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TARGETS_NVPTX_NVPTXMATRIX_H
#define TILE_TARGETS_NVPTX_NVPTXMATRIX_H

#include "../MatrixLayouts.h"

namespace mlir::tileir::nvptx {

/// mma.sync's A fragment (m16 x k16 for 16-bit types, k32 for fp8): the
/// fragment bits, and the (row, column) of fragment element i.
Fragment mmaAFragment(bool fp8);
std::pair<int64_t, int64_t> mmaAElement(bool fp8, int64_t i);

/// Consecutive fragment elements of `elem` as one 32-bit operand register.
Value operandWord(OpBuilder &b, Location loc, Type elem, ArrayRef<Value> elems);

/// The layouts of dot on wgmma (sm_90a) over `numWarps` warps, or false when
/// wgmma cannot take it (M not a multiple of 64, warps not whole
/// warpgroups, K not whole 128-byte rows, too many accumulators).
bool wgmmaLayouts(MLIRContext *ctx, Type elem, int64_t m, int64_t n, int64_t k,
                  int64_t numWarps, DotLayouts &out);

/// acc + a * b on wgmma: B's registers (in layouts.b) go to `shared`
/// (unless `bInShared`: B is there already), then each warpgroup multiplies
/// from there. `tid` is the thread id (i32).
SmallVector<Value> lowerWgmma(OpBuilder &b, Location loc, Type elem, int64_t m, int64_t n,
                              int64_t k, const DotLayouts &layouts, ArrayRef<Value> a,
                              ArrayRef<Value> bRegs, ArrayRef<Value> acc, Value shared,
                              bool bInShared, Value tid);

/// An i32 constant.
Value i32(OpBuilder &b, Location loc, int64_t v);

/// fence.proxy.async.shared::cta: this thread's shared-memory writes are
/// ordered before later reads through the async proxy (wgmma).
void asyncProxyFence(OpBuilder &b, Location loc);

} // namespace mlir::tileir::nvptx

#endif // TILE_TARGETS_NVPTX_NVPTXMATRIX_H
