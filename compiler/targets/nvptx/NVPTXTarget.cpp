//===- NVPTXTarget.cpp - NVIDIA chips and PTX emission --------------------===//
#include "NVPTXTarget.h"
#include "../OptimizeModule.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <mutex>

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
    return NVPTXChip{"sm_80", "sm_80", "+ptx86", 163 * kKiB, 164 * kKiB};
  if (name == "sm_89")
    return NVPTXChip{"sm_89", "sm_89", "+ptx86", 99 * kKiB, 100 * kKiB};
  if (name == "sm_90")
    return NVPTXChip{"sm_90", "sm_90", "+ptx86", 227 * kKiB, 228 * kKiB};
  if (name == "sm_90a")
    return NVPTXChip{"sm_90a", "sm_90a", "+ptx86", 227 * kKiB, 228 * kKiB};
  return std::nullopt;
}

namespace {

/// The NVPTX target machine with 32-bit shared, local and constant pointers
/// (nvcc's choice): a lookup table's address is then one 32-bit add that
/// ptxas folds into the ld.shared, where 64-bit pointers cost a wide
/// multiply-add per element (TurboQuant's codebook gathers: bench/RESULTS.md
/// run 56). LLVM 22 takes this data layout only from its nvptx-short-ptr
/// option, read once, in the target machine's constructor; the option is set
/// around that constructor alone and restored, so that nothing else in the
/// process that builds NVPTX code sees it change.
std::unique_ptr<llvm::TargetMachine> createShortPointerMachine(const llvm::Target &target,
                                                               const llvm::Triple &triple,
                                                               const NVPTXChip &chip) {
  static std::mutex construction;
  std::lock_guard<std::mutex> lock(construction);
  auto *option = static_cast<llvm::cl::opt<bool> *>(
      llvm::cl::getRegisteredOptions().lookup("nvptx-short-ptr"));
  assert(option && "LLVM's NVPTX target has no nvptx-short-ptr option");
  bool before = option->getValue();
  option->setValue(true);
  std::unique_ptr<llvm::TargetMachine> tm(target.createTargetMachine(
      triple, chip.cpu, chip.feature, llvm::TargetOptions(), std::nullopt));
  option->setValue(before);
  return tm;
}

} // namespace

std::string mlir::tileir::emitPTX(llvm::Module &module, const NVPTXChip &chip,
                                  unsigned optLevel, bool scalarize, std::string &error) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return "";
  std::unique_ptr<llvm::TargetMachine> tm = createShortPointerMachine(*target, triple, chip);
  if (!tm) {
    error = "cannot create the NVPTX target machine for " + chip.name;
    return "";
  }
  module.setTargetTriple(triple);
  module.setDataLayout(tm->createDataLayout());
  error = optimizeModule(module, *tm, optLevel, scalarize);
  if (!error.empty())
    return "";
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

std::string mlir::tileir::assembleCubin(const std::string &ptx, const NVPTXChip &chip,
                                        std::string &error) {
  auto ptxas = llvm::sys::findProgramByName("ptxas");
  if (!ptxas)
    ptxas = llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas) {
    error = "ptxas not found (searched PATH and /usr/local/cuda/bin); write PTX instead";
    return "";
  }
  llvm::SmallString<128> in, out;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tilec", "ptx", fd, in) ||
      llvm::sys::fs::createTemporaryFile("tilec", "cubin", out)) {
    error = "cannot create temporary files for ptxas";
    return "";
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  std::string arch = "-arch=" + chip.name;
  llvm::StringRef args[] = {*ptxas, arch, in, "-o", out};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, {}, 0, 0, &message);
  std::string cubin;
  if (rc == 0) {
    if (auto buffer = llvm::MemoryBuffer::getFile(out, /*IsText=*/false))
      cubin = (*buffer)->getBuffer().str();
  }
  if (cubin.empty())
    error = "ptxas -arch=" + chip.name + " failed (exit " + std::to_string(rc) + ")" +
            (message.empty() ? "" : ": " + message);
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  return cubin;
}
