//===- AMDGPUTarget.h - AMD targets -----------------------------*- C++ -*-===//
#ifndef TILE_TARGETS_AMDGPU_AMDGPUTARGET_H
#define TILE_TARGETS_AMDGPU_AMDGPUTARGET_H

#include "tile/Target/GPUTarget.h"

#include "llvm/IR/Module.h"

#include <optional>

namespace mlir::tileir {

struct AMDGPUChip {
  std::string name; // gfx942, also the LLVM CPU name
  int64_t ldsPerWorkgroup;
};

/// The chip for "gfx90a", "gfx942", "gfx950".
std::optional<AMDGPUChip> lookupAMDGPUChip(StringRef name);
std::unique_ptr<GPUTargetInfo> createAMDGPUTargetInfo(const AMDGPUChip &chip);

/// Sets the triple, data layout and HSA code object version (5 or 6) of
/// `module` for `chip`; returns false and sets `error` on failure.
bool prepareAMDGPUModule(llvm::Module &module, const AMDGPUChip &chip,
                         unsigned codeObjectVersion, std::string &error);

enum class AMDGPUOutput { Assembly, CodeObject };

/// Optimises a prepared `module` (optimizeModule, `scalarize` as there) and
/// compiles it to AMDGCN assembly text or to a linked HSA code object (an ELF
/// shared object); returns "" and sets `error` on failure.
std::string emitAMDGPU(llvm::Module &module, const AMDGPUChip &chip, unsigned optLevel,
                       bool scalarize, AMDGPUOutput output, std::string &error);

} // namespace mlir::tileir

#endif // TILE_TARGETS_AMDGPU_AMDGPUTARGET_H
