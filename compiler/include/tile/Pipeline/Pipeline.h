//===- Pipeline.h - from source text to each stage --------------*- C++ -*-===//
#ifndef TILE_PIPELINE_PIPELINE_H
#define TILE_PIPELINE_PIPELINE_H

#include "tile/Frontend/MLIRGen.h"
#include "tile/Tile.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include <algorithm>

namespace tile {

/// Whether the IR is verified after every pass (debug and sanitizer builds:
/// a broken pass is named) or once, after the last pass of each pipeline
/// (release builds: the same IR is checked before it leaves runPasses, for a
/// fraction of the cost; bench/RESULTS.md, compile time). Release builds also
/// skip LLVM's verifier on the translated module.
#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool kVerifyEachPass = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
inline constexpr bool kVerifyEachPass = true;
#else
inline constexpr bool kVerifyEachPass = false;
#endif
#else
inline constexpr bool kVerifyEachPass = false;
#endif

/// A context with every dialect, interface and translation tilec uses, and
/// no thread pool of its own (one kernel a module: nothing runs in parallel).
std::unique_ptr<mlir::MLIRContext> createContext();

/// Adds the host lowering after tile IR: bufferized loops when `toLLVM` is
/// false, the LLVM dialect when it is true.
void buildHostPipeline(mlir::OpPassManager &pm, bool toLLVM);

/// The conversions to the LLVM dialect that both lowerings end with (arith,
/// index, cf, func, ub, then the unrealized casts reconciled), after each
/// converted its own dialects (memref, vector, math).
void addCommonToLLVMPasses(mlir::OpPassManager &pm);

/// Adds the GPU passes that fix the tiles' layouts and shared memory
/// (canonicalisation, tile-assign-layouts, tile-allocate-shared).
void buildGPULayoutPipeline(mlir::OpPassManager &pm, const CompileOptions &options);

/// Shared memory a workgroup may use so that `occupancy` of them fit an SM /
/// CU of `perCU` bytes with a 10% margin.
inline int64_t occupancyBudget(int64_t perCU, unsigned occupancy) {
  return perCU * 9 / (10 * int64_t(std::max(1u, occupancy)));
}

/// Adds the GPU lowering after tile IR: per-thread code when `toLLVM` is
/// false, the LLVM dialect (with NVVM/ROCDL ops) when it is true.
void buildGPUPipeline(mlir::OpPassManager &pm, const CompileOptions &options, bool toLLVM);

/// Runs the lowering of `options.target` up to `phase` (Lowered, LLVM or
/// Assembly) and returns its text.
Result<std::string> lowerToText(mlir::ModuleOp module, const CompileOptions &options,
                                Phase phase);

/// The generated kernel and its signature, or the diagnostics text.
struct FrontendOutput {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  KernelSignature signature;
};
Result<std::shared_ptr<FrontendOutput>> runFrontend(const std::string &source,
                                                    const std::string &fileName,
                                                    const CompileOptions &options,
                                                    mlir::MLIRContext &context);

/// Runs `pm` on `module`, verifying as kVerifyEachPass says; MLIR
/// diagnostics come back as the error text.
std::string runPasses(mlir::PassManager &pm, mlir::ModuleOp module);

} // namespace tile

#endif // TILE_PIPELINE_PIPELINE_H
