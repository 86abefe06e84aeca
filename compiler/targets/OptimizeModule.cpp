//===- OptimizeModule.cpp - LLVM's optimisation of a GPU module -----------===//
#include "OptimizeModule.h"

#include "mlir/ExecutionEngine/OptUtils.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/Scalarizer.h"

namespace {

void runScalarizer(llvm::Module &module, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ScalarizerPassOptions options;
  options.ScalarizeMinBits = 32;
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::ScalarizerPass(options));
  fpm.addPass(llvm::InstCombinePass());
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(module, mam);
}

} // namespace

std::string mlir::tileir::optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                                         unsigned optLevel, bool scalarize) {
  if (scalarize && optLevel > 0)
    runScalarizer(module, tm);
  auto optimize = mlir::makeOptimizingTransformer(optLevel, 0, &tm);
  if (llvm::Error err = optimize(&module))
    return llvm::toString(std::move(err));
  return "";
}
