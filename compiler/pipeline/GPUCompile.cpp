//===- GPUCompile.cpp - the GPU stages of the embedding API ---------------===//
#include "tile/Pipeline/Pipeline.h"

#include "../targets/nvptx/NVPTXTarget.h"
#include "tile/Target/GPUTarget.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace tile;

void tile::buildGPUPipeline(mlir::OpPassManager &pm, const CompileOptions &options,
                            bool toLLVM) {
  mlir::tileir::ConvertTileToGPUOptions gpu;
  gpu.target = options.target;
  gpu.numWarps = options.numWarps;
  pm.addPass(mlir::tileir::createConvertTileToGPU(gpu));
  pm.addPass(mlir::tileir::createExpandMath());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  if (!toLLVM)
    return;
  pm.addPass(mlir::createSCFToControlFlowPass());
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createConvertVectorToLLVMPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createConvertIndexToLLVMPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createUBToLLVMConversionPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
  pm.addPass(mlir::createCanonicalizerPass());
}

namespace {
/// Runs the GPU pipeline on `module` and marks the kernel for the target.
std::string lowerGPU(mlir::ModuleOp module, const CompileOptions &options, bool toLLVM,
                     int64_t &sharedBytes, unsigned &threads) {
  mlir::PassManager pm(module.getContext());
  buildGPUPipeline(pm, options, toLLVM);
  std::string err = runPasses(pm, module);
  if (!err.empty())
    return err;
  std::string targetError;
  auto target = mlir::tileir::createGPUTargetInfo(options.target, targetError);
  for (mlir::Operation &op : module.getBody()->getOperations()) {
    if (!op.hasAttr("tile.kernel"))
      continue;
    sharedBytes = llvm::cast<mlir::IntegerAttr>(op.getAttr("tile.shared_bytes")).getInt();
    threads = unsigned(llvm::cast<mlir::IntegerAttr>(op.getAttr("tile.threads")).getInt());
    if (toLLVM)
      target->markKernel(&op, threads);
  }
  return "";
}

Result<std::string> translateAndEmit(mlir::ModuleOp module, const CompileOptions &options,
                                     bool assembly) {
  llvm::LLVMContext llvmContext;
  auto llvmModule = mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return Result<std::string>::failure("internal compiler error: translation to LLVM IR failed");
  auto chip = mlir::tileir::lookupNVPTXChip(options.target);
  if (!assembly) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule->print(os, nullptr);
    return text;
  }
  std::string error;
  std::string ptx = mlir::tileir::emitPTX(*llvmModule, *chip, options.optLevel, error);
  if (!error.empty())
    return Result<std::string>::failure("PTX emission failed: " + error);
  return ptx;
}
} // namespace

Result<std::string> tile::lowerToText(mlir::ModuleOp module, const CompileOptions &options,
                                      Phase phase) {
  std::string targetError;
  if (!mlir::tileir::createGPUTargetInfo(options.target, targetError))
    return Result<std::string>::failure(targetError);
  int64_t sharedBytes = 0;
  unsigned threads = 0;
  std::string err = lowerGPU(module, options, phase != Phase::Lowered, sharedBytes, threads);
  if (!err.empty())
    return Result<std::string>::failure(err);
  if (phase == Phase::Lowered) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os, mlir::OpPrintingFlags().enableDebugInfo(false));
    return text;
  }
  return translateAndEmit(module, options, phase == Phase::Assembly);
}

Result<GPUBinary> tile::compileForGPU(const std::string &source, const std::string &fileName,
                                      const CompileOptions &options) {
  std::string targetError;
  if (!mlir::tileir::createGPUTargetInfo(options.target, targetError))
    return Result<GPUBinary>::failure(targetError);
  auto context = createContext();
  auto front = runFrontend(source, fileName, options, *context);
  if (!front)
    return Result<GPUBinary>::failure(front.message());
  mlir::ModuleOp module = *(*front)->module;
  GPUBinary binary;
  std::string err = lowerGPU(module, options, true, binary.sharedBytes, binary.threads);
  if (!err.empty())
    return Result<GPUBinary>::failure(err);
  auto ptx = translateAndEmit(module, options, /*assembly=*/true);
  if (!ptx)
    return Result<GPUBinary>::failure(ptx.message());
  binary.target = options.target;
  binary.kernel = (*front)->signature.name;
  binary.params = (*front)->signature.params;
  binary.ptx = *ptx;
  return binary;
}
