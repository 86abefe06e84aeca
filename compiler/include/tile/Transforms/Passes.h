//===- Passes.h - tile compiler passes --------------------------*- C++ -*-===//
#ifndef TILE_TRANSFORMS_PASSES_H
#define TILE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "tile/Dialect/TileDialect.h"

namespace mlir {
class DialectRegistry;
namespace tileir {

#define GEN_PASS_DECL
#include "tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Transforms/Passes.h.inc"

/// The dialects that tile IR uses (tile, arith, math, scf, func).
void registerTileDialects(DialectRegistry &registry);

/// Memory effects for llvm.atomicrmw (which declares none in MLIR 22), so
/// that buffer deallocation accepts the host lowering of tile.atomic_add.
void registerHostAtomicEffects(DialectRegistry &registry);

/// The greedy driver's configuration for the expansion passes
/// (tile-expand-fp8, tile-expand-math): rewrites only. The canonicalisation
/// that follows in every pipeline folds, and folding here as well doubled the
/// passes' time on kernels they leave alone.
inline GreedyRewriteConfig expansionConfig() {
  GreedyRewriteConfig config;
  config.enableFolding(false);
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  return config;
}

} // namespace tileir
} // namespace mlir

#endif // TILE_TRANSFORMS_PASSES_H
