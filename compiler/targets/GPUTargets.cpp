//===- GPUTargets.cpp - target names to target info -----------------------===//
#include "tile/Target/GPUTarget.h"

#include "amdgpu/AMDGPUTarget.h"
#include "nvptx/NVPTXTarget.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

void mlir::tileir::registerGPUTargetDialects(DialectRegistry &registry) {
  registry.insert<NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
}

std::unique_ptr<mlir::tileir::GPUTargetInfo>
mlir::tileir::createGPUTargetInfo(StringRef name, std::string &error) {
  if (auto chip = lookupNVPTXChip(name))
    return createNVPTXTargetInfo(*chip);
  if (auto chip = lookupAMDGPUChip(name))
    return createAMDGPUTargetInfo(*chip);
  error = "unknown target '" + name.str() +
          "' (supported: host, sm_80, sm_89, sm_90, sm_90a, gfx90a, gfx942, gfx950)";
  return nullptr;
}
