//===- NVPTXTarget.cpp - NVIDIA chips and PTX emission --------------------===//
#include "NVPTXTarget.h"

#include "mlir/ExecutionEngine/OptUtils.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

using namespace mlir;
using namespace mlir::tileir;

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

std::optional<NVPTXChip> mlir::tileir::lookupNVPTXChip(StringRef name) {
  constexpr int64_t kKiB = 1024;
  // PTX ISA 8.6 is accepted by ptxas 12.8+ and the R570+ drivers.
  if (name == "sm_80")
    return NVPTXChip{"sm_80", "sm_80", "+ptx86", 163 * kKiB};
  if (name == "sm_89")
    return NVPTXChip{"sm_89", "sm_89", "+ptx86", 99 * kKiB};
  if (name == "sm_90")
    return NVPTXChip{"sm_90", "sm_90", "+ptx86", 227 * kKiB};
  if (name == "sm_90a")
    return NVPTXChip{"sm_90a", "sm_90a", "+ptx86", 227 * kKiB};
  return std::nullopt;
}

std::string mlir::tileir::emitPTX(llvm::Module &module, const NVPTXChip &chip,
                                  unsigned optLevel, std::string &error) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return "";
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, chip.cpu, chip.feature, llvm::TargetOptions(), std::nullopt));
  if (!tm) {
    error = "cannot create the NVPTX target machine for " + chip.name;
    return "";
  }
  module.setTargetTriple(triple);
  module.setDataLayout(tm->createDataLayout());
  auto optimize = mlir::makeOptimizingTransformer(optLevel, 0, tm.get());
  if (llvm::Error err = optimize(&module)) {
    error = llvm::toString(std::move(err));
    return "";
  }
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream os(ptx);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    error = "the NVPTX backend cannot emit assembly";
    return "";
  }
  pm.run(module);
  return std::string(ptx.str());
}
