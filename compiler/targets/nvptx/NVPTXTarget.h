//===- NVPTXTarget.h - NVIDIA targets ---------------------------*- C++ -*-===//
#ifndef TILE_TARGETS_NVPTX_NVPTXTARGET_H
#define TILE_TARGETS_NVPTX_NVPTXTARGET_H

#include "tile/Target/GPUTarget.h"

#include "llvm/IR/Module.h"

#include <optional>

namespace mlir::tileir {

/// The most a CTA's statically sized shared array may be; a kernel that
/// needs more declares it dynamic (extern) and its launch asks for the bytes,
/// with the dynamic shared memory opt-in (up to NVPTXChip::sharedPerBlock).
inline constexpr int64_t kNVPTXStaticSharedBytes = 48 * 1024;

struct NVPTXChip {
  std::string name;    // sm_90a
  std::string cpu;     // LLVM CPU name, sm_90a
  std::string feature; // PTX ISA feature, +ptx86
  int64_t sharedPerBlock; // with the dynamic shared memory opt-in
  int64_t sharedPerSM;
};

/// The chip for "sm_80", "sm_89", "sm_90", "sm_90a".
std::optional<NVPTXChip> lookupNVPTXChip(StringRef name);
std::unique_ptr<GPUTargetInfo> createNVPTXTargetInfo(const NVPTXChip &chip);

/// Compiles `module` to PTX text (optimizeModule's `scalarize` first where
/// set); returns "" and sets `error` on failure.
std::string emitPTX(llvm::Module &module, const NVPTXChip &chip, unsigned optLevel,
                    bool scalarize, std::string &error);

/// Assembles `ptx` into a cubin with ptxas; "" and `error` set on failure.
std::string assembleCubin(const std::string &ptx, const NVPTXChip &chip, std::string &error);

} // namespace mlir::tileir

#endif // TILE_TARGETS_NVPTX_NVPTXTARGET_H
