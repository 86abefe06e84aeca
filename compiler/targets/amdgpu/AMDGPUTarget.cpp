//===- AMDGPUTarget.cpp - AMD chips, code generation and linking ----------===//
//
// The AMDGPU backend writes a relocatable object; ld.lld (LLVM's own, next to
// the LLVM tools) links it into the shared object the HSA runtime loads.
//
//===----------------------------------------------------------------------===//
#include "AMDGPUTarget.h"
#include "../OptimizeModule.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

using namespace mlir;
using namespace mlir::tileir;

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmPrinter();
}

std::optional<AMDGPUChip> mlir::tileir::lookupAMDGPUChip(StringRef name) {
  constexpr int64_t kKiB = 1024;
  if (name == "gfx90a" || name == "gfx942")
    return AMDGPUChip{name.str(), 64 * kKiB};
  if (name == "gfx950")
    return AMDGPUChip{name.str(), 160 * kKiB};
  return std::nullopt;
}

namespace {

constexpr llvm::StringLiteral kTriple = "amdgcn-amd-amdhsa";

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const AMDGPUChip &chip,
                                                         llvm::CodeGenOptLevel level,
                                                         std::string &error) {
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTarget();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUAsmPrinter();
  llvm::Triple triple(kTriple);
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, chip.name, "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    error = "cannot create the AMDGPU target machine for " + chip.name;
  return tm;
}

/// Runs `tool args...` and returns "" or the reason it failed, with its stderr.
std::string runTool(StringRef tool, ArrayRef<StringRef> args) {
  SmallString<128> errPath;
  if (llvm::sys::fs::createTemporaryFile("tilec-lld", "err", errPath))
    return "cannot create a temporary file";
  llvm::FileRemover removeErr(errPath);
  SmallVector<StringRef> argv{tool};
  argv.append(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, std::nullopt, StringRef(errPath)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(tool, argv, std::nullopt, redirects, 0, 0, &message);
  if (rc == 0)
    return "";
  auto stderrText = llvm::MemoryBuffer::getFile(errPath);
  if (stderrText && !(*stderrText)->getBuffer().empty())
    message += (message.empty() ? "" : "; ") + (*stderrText)->getBuffer().rtrim().str();
  return tool.str() + " failed: " + message;
}

/// Links a relocatable AMDGPU object into an HSA code object.
std::string linkCodeObject(StringRef object, std::string &error) {
  auto lld = llvm::sys::findProgramByName("ld.lld", {TILEC_LLVM_TOOLS_DIR});
  if (!lld) {
    error = "ld.lld not found in " TILEC_LLVM_TOOLS_DIR;
    return "";
  }
  SmallString<128> objPath, outPath;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tilec", "o", fd, objPath) ||
      llvm::sys::fs::createTemporaryFile("tilec", "hsaco", outPath)) {
    error = "cannot create a temporary file";
    return "";
  }
  llvm::FileRemover removeObj(objPath), removeOut(outPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object;
    if (os.has_error()) {
      error = "cannot write " + objPath.str().str();
      return "";
    }
  }
  error = runTool(*lld, {"-shared", "--no-undefined", objPath, "-o", outPath});
  if (!error.empty())
    return "";
  auto linked = llvm::MemoryBuffer::getFile(outPath);
  if (!linked) {
    error = "cannot read " + outPath.str().str();
    return "";
  }
  return (*linked)->getBuffer().str();
}

} // namespace

bool mlir::tileir::prepareAMDGPUModule(llvm::Module &module, const AMDGPUChip &chip,
                                       unsigned codeObjectVersion, std::string &error) {
  if (codeObjectVersion != 5 && codeObjectVersion != 6) {
    error = "HSA code object version " + std::to_string(codeObjectVersion) +
            " is not supported (5 or 6)";
    return false;
  }
  // The data layout does not depend on the optimisation level.
  auto tm = createTargetMachine(chip, llvm::CodeGenOptLevel::Default, error);
  if (!tm)
    return false;
  module.setTargetTriple(llvm::Triple(kTriple));
  module.setDataLayout(tm->createDataLayout());
  module.addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                       codeObjectVersion * 100);
  return true;
}

std::string mlir::tileir::emitAMDGPU(llvm::Module &module, const AMDGPUChip &chip,
                                     unsigned optLevel, bool scalarize, AMDGPUOutput output,
                                     std::string &error) {
  auto level = llvm::CodeGenOpt::getLevel(int(optLevel));
  auto tm = createTargetMachine(chip, level.value_or(llvm::CodeGenOptLevel::Default), error);
  if (!tm)
    return "";
  error = optimizeModule(module, *tm, optLevel, scalarize);
  if (!error.empty())
    return "";
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  auto fileType = output == AMDGPUOutput::Assembly ? llvm::CodeGenFileType::AssemblyFile
                                                   : llvm::CodeGenFileType::ObjectFile;
  if (tm->addPassesToEmitFile(pm, os, nullptr, fileType)) {
    error = "the AMDGPU backend cannot emit this file type";
    return "";
  }
  pm.run(module);
  if (output == AMDGPUOutput::Assembly)
    return std::string(text.str());
  return linkCodeObject(text.str(), error);
}
