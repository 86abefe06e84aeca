//===- Compile.cpp - the embedding API's stages ---------------------------===//
#include "tile/Pipeline/Pipeline.h"

#include "tile/Dialect/TileDialect.h"
#include "tile/Frontend/Parser.h"
#include "tile/Target/GPUTarget.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRefMemorySlot.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>

using namespace tile;

std::unique_ptr<mlir::MLIRContext> tile::createContext() {
  mlir::DialectRegistry registry;
  mlir::tileir::registerTileDialects(registry);
  mlir::tileir::registerHostAtomicEffects(registry);
  registry.insert<mlir::bufferization::BufferizationDialect, mlir::cf::ControlFlowDialect,
                  mlir::linalg::LinalgDialect, mlir::LLVM::LLVMDialect,
                  mlir::memref::MemRefDialect, mlir::tensor::TensorDialect,
                  mlir::ub::UBDialect, mlir::NVVM::NVVMDialect, mlir::ROCDL::ROCDLDialect,
                  mlir::vector::VectorDialect>();
  mlir::arith::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::scf::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::tensor::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::memref::registerAllocationOpInterfaceExternalModels(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  mlir::registerROCDLDialectTranslation(registry);
  // No thread pool: a module holds one kernel, so MLIR would only verify
  // that one function on a worker thread; a pool per context also multiplied
  // threads when tune compiles configurations in parallel.
  auto context =
      std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  return context;
}

void tile::buildHostPipeline(mlir::OpPassManager &pm, bool toLLVM) {
  pm.addPass(mlir::tileir::createConvertTileToHost());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(mlir::createConvertElementwiseToLinalgPass());
  pm.addPass(mlir::createLinalgElementwiseOpFusionPass());
  pm.addPass(mlir::createCanonicalizerPass());
  mlir::bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(mlir::bufferization::createOneShotBufferizePass(bufferize));
  mlir::bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(mlir::createConvertLinalgToLoopsPass());
  pm.addPass(mlir::tileir::createExpandFP8());
  pm.addPass(mlir::tileir::createExpandMath());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  if (!toLLVM)
    return;
  pm.addPass(mlir::createLowerAffinePass());
  pm.addPass(mlir::createSCFToControlFlowPass());
  pm.addPass(mlir::memref::createExpandStridedMetadataPass());
  mlir::arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(mlir::arith::createArithExpandOpsPass(expand));
  pm.addPass(mlir::tileir::createGuardIntegerDivision());
  pm.addPass(mlir::tileir::createSaturateFloatToInt());
  // LLVM intrinsics first (rsqrt has no libm function); libm for erf, erfc, tanh.
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createConvertMathToLibmPass());
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  addCommonToLLVMPasses(pm);
}

void tile::addCommonToLLVMPasses(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createConvertIndexToLLVMPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createUBToLLVMConversionPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
}

std::string tile::runPasses(mlir::PassManager &pm, mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  bool allLocated = true;
  mlir::ScopedDiagnosticHandler handler(module.getContext(), [&](mlir::Diagnostic &diag) {
    // Errors a lowering reports about the user's kernel carry its
    // file:line:col; anything else is the compiler's own fault.
    if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation())) {
      os << loc.getFilename().getValue() << ":" << loc.getLine() << ":" << loc.getColumn()
         << ": error: " << diag << "\n";
      return mlir::success();
    }
    allLocated = false;
    os << diag.getLocation() << ": " << diag << "\n";
    return mlir::success();
  });
  pm.enableVerifier(kVerifyEachPass);
  if (mlir::succeeded(pm.run(module)) &&
      (kVerifyEachPass || mlir::succeeded(mlir::verify(module))))
    return "";
  if (allLocated && !text.empty())
    return text;
  return "internal compiler error while lowering:\n" + text;
}

namespace {
/// `source` in a SourceMgr of its own, with diagnostics printed into `text`.
struct SourceDiagnostics {
  llvm::SourceMgr sourceMgr;
  std::string text;
  llvm::raw_string_ostream os{text};
  Diagnostics diags{sourceMgr, os};

  SourceDiagnostics(const std::string &source, const std::string &fileName) {
    sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(source, fileName),
                                 llvm::SMLoc());
  }
};
} // namespace

Result<std::shared_ptr<FrontendOutput>> tile::runFrontend(const std::string &source,
                                                          const std::string &fileName,
                                                          const CompileOptions &options,
                                                          mlir::MLIRContext &context) {
  SourceDiagnostics src(source, fileName);
  auto ast = parseModule(src.diags);
  if (!ast)
    return Result<std::shared_ptr<FrontendOutput>>::failure(src.text);
  auto out = std::make_shared<FrontendOutput>();
  out->module = generateKernel(*ast, src.diags, context, options.kernel, options.defines,
                               &out->signature);
  if (!out->module)
    return Result<std::shared_ptr<FrontendOutput>>::failure(src.text);
  std::string notGPU;
  if (auto target = mlir::tileir::createGPUTargetInfo(options.target, notGPU)) {
    // The warps a program runs: a `num_warps` parameter's, else --num-warps';
    // a program's threads and a CTA's (--programs-per-cta of them) must fit.
    const KernelSignature &sig = out->signature;
    unsigned warps = sig.numWarps ? unsigned(sig.numWarps) : options.numWarps;
    unsigned warp = target->warpSize(), limit = target->maxThreadsPerBlock();
    unsigned k = options.programsPerCta, perCta = k * warps * warp;
    if (warps * warp > limit) {
      std::string message = std::to_string(warps) + " makes " + std::to_string(warps * warp) +
                            " threads a program but " + target->name().str() + " allows at most " +
                            std::to_string(limit) + " (" + std::to_string(limit / warp) +
                            " warps of " + std::to_string(warp) + ")";
      if (!sig.numWarps)
        return Result<std::shared_ptr<FrontendOutput>>::failure(
            fileName + ": error: --num-warps=" + message + "\n");
      src.diags.error(sig.numWarpsLoc, "num_warps=" + message);
      return Result<std::shared_ptr<FrontendOutput>>::failure(src.text);
    }
    if (k > 1 && perCta > limit)
      return Result<std::shared_ptr<FrontendOutput>>::failure(
          fileName + ": error: --programs-per-cta=" + std::to_string(k) + " with " +
          std::to_string(warps) + " warps a program makes " + std::to_string(perCta) +
          " threads a CTA but " + target->name().str() + " allows at most " +
          std::to_string(limit) + "\n");
  }
  auto func = *out->module->getOps<mlir::func::FuncOp>().begin();
  for (auto &[name, divisor] : options.divisibility) {
    auto &params = out->signature.params;
    auto it = std::find_if(params.begin(), params.end(),
                           [&](const ParamInfo &p) { return p.name == name; });
    if (it == params.end())
      return Result<std::shared_ptr<FrontendOutput>>::failure(
          fileName + ": error: specialisation for '" + name + "', which is not a parameter of '" +
          out->signature.name + "'\n");
    if (divisor <= 0 || (divisor & (divisor - 1)))
      return Result<std::shared_ptr<FrontendOutput>>::failure(
          fileName + ": error: divisibility of '" + name + "' must be a power of two, got " +
          std::to_string(divisor) + "\n");
    unsigned index = it - params.begin();
    if (divisor == 1) {
      // Triton's `== 1` specialisation: the argument is the constant 1.
      mlir::BlockArgument arg = func.getArgument(index);
      if (it->isPointer || !llvm::isa<mlir::IntegerType>(arg.getType()) ||
          arg.getType().isInteger(1))
        return Result<std::shared_ptr<FrontendOutput>>::failure(
            fileName + ": error: only integer parameters can be specialised to 1, not '" + name +
            "'\n");
      mlir::OpBuilder b(&context);
      b.setInsertionPointToStart(&func.getBody().front());
      auto one = mlir::arith::ConstantOp::create(b, arg.getLoc(),
                                                 b.getIntegerAttr(arg.getType(), 1));
      arg.replaceAllUsesWith(one);
      continue;
    }
    func.setArgAttr(index, "tile.divisibility",
                    mlir::IntegerAttr::get(mlir::IntegerType::get(&context, 64), divisor));
  }
  return out;
}

/// Parses `source` and reports syntax errors; for the AST stage only.
static Result<std::string> dumpAST(const std::string &source, const std::string &fileName) {
  SourceDiagnostics src(source, fileName);
  auto ast = parseModule(src.diags);
  if (!ast)
    return Result<std::string>::failure(src.text);
  std::string text;
  llvm::raw_string_ostream os(text);
  ast::dump(*ast, os);
  return text;
}

Result<std::string> tile::emit(const std::string &source, const std::string &fileName,
                               const CompileOptions &options, Phase phase) {
  if (phase == Phase::AST)
    return dumpAST(source, fileName);
  auto context = createContext();
  auto front = runFrontend(source, fileName, options, *context);
  if (!front)
    return Result<std::string>::failure(front.message());
  mlir::ModuleOp module = *(*front)->module;
  if (options.target != "host" && phase != Phase::Tile) {
    CompileOptions effective = options;
    if ((*front)->signature.numWarps)
      effective.numWarps = unsigned((*front)->signature.numWarps);
    return lowerToText(module, effective, phase);
  }
  if (phase == Phase::Assembly)
    return Result<std::string>::failure("the host target has no assembly stage; use llvm");
  std::string text;
  llvm::raw_string_ostream os(text);
  if (phase != Phase::Tile) {
    mlir::PassManager pm(context.get());
    buildHostPipeline(pm, phase == Phase::LLVM);
    std::string err = runPasses(pm, module);
    if (!err.empty())
      return Result<std::string>::failure(err);
  }
  if (phase != Phase::LLVM) {
    module.print(os, mlir::OpPrintingFlags().enableDebugInfo(false));
    return text;
  }
  llvm::LLVMContext llvmContext;
  auto llvmModule = mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return Result<std::string>::failure("internal compiler error: translation to LLVM IR failed");
  llvmModule->print(os, nullptr);
  return text;
}

Result<Signature> tile::signature(const std::string &source, const std::string &fileName,
                                 const CompileOptions &options) {
  auto context = createContext();
  auto front = runFrontend(source, fileName, options, *context);
  if (!front)
    return Result<Signature>::failure(front.message());
  const KernelSignature &sig = (*front)->signature;
  return Signature{sig.name, sig.params, sig.tunables, sig.tuneKey};
}

Result<std::vector<std::string>> tile::check(const std::string &source,
                                             const std::string &fileName,
                                             const CompileOptions &options) {
  SourceDiagnostics src(source, fileName);
  llvm::SourceMgr &sourceMgr = src.sourceMgr;
  Diagnostics &diags = src.diags;
  const std::string &errors = src.text;
  auto ast = parseModule(diags);
  if (!ast)
    return Result<std::vector<std::string>>::failure(errors);
  auto context = createContext();
  std::vector<std::string> kernels, all;
  std::set<std::string> usedDefines;
  for (auto &fn : ast->functions)
    if (fn->isKernel)
      all.push_back(fn->name);
  llvm::SMLoc start = llvm::SMLoc::getFromPointer(
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferStart());
  if (all.empty() || (!options.kernel.empty() && !llvm::is_contained(all, options.kernel))) {
    diags.error(start, all.empty() ? "the file defines no kernel"
                                   : "no kernel named '" + options.kernel +
                                         "' (the file defines: " + llvm::join(all, ", ") + ")");
    return Result<std::vector<std::string>>::failure(errors);
  }
  // Every kernel is checked, so that one run reports the errors of all of
  // them (an error in a helper that several kernels call is printed once).
  bool failed = false;
  for (auto &fn : ast->functions) {
    if (!fn->isKernel || (!options.kernel.empty() && fn->name != options.kernel))
      continue;
    // With several kernels, each takes the -D values it declares.
    std::map<std::string, std::string> defines;
    for (auto &[name, value] : options.defines) {
      bool declared = llvm::any_of(fn->ctParams, [&](const ast::Param &p) { return p.name == name; });
      if (declared || !options.kernel.empty() || all.size() == 1) {
        defines[name] = value;
        usedDefines.insert(name);
      }
    }
    KernelSignature signature;
    if (!generateKernel(*ast, diags, *context, fn->name, defines, &signature)) {
      failed = true;
      continue;
    }
    kernels.push_back(fn->name);
  }
  if (failed)
    return Result<std::vector<std::string>>::failure(errors);
  for (auto &[name, value] : options.defines) {
    if (!usedDefines.count(name)) {
      diags.error(start, "-D " + name + "=" + value +
                             ": no kernel of the file has a compile-time parameter named '" +
                             name + "'");
      return Result<std::vector<std::string>>::failure(errors);
    }
  }
  return kernels;
}
