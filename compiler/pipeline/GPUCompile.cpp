//===- GPUCompile.cpp - the GPU stages of the embedding API ---------------===//
#include "tile/Pipeline/Pipeline.h"

#include "../targets/amdgpu/AMDGPUTarget.h"
#include "../targets/nvptx/NVPTXConvert.h"
#include "../targets/nvptx/NVPTXPackPrograms.h"
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

#include <chrono>

using namespace tile;

void tile::buildGPULayoutPipeline(mlir::OpPassManager &pm, const CompileOptions &options) {
  // Fold what specialisation made constant (x * 1, splats of constants)
  // before AxisInfo looks at the kernel.
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  mlir::tileir::AssignLayoutsOptions layouts;
  layouts.target = options.target;
  layouts.numWarps = options.numWarps;
  pm.addPass(mlir::tileir::createAssignLayouts(layouts));
  // Conversions of conversions fold, and conversions of one value to one
  // layout merge, before shared memory is placed for what remains.
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  mlir::tileir::PipelineLoadsOptions pipeline;
  std::string error;
  auto target = mlir::tileir::createGPUTargetInfo(options.target, error);
  pipeline.bulkCopies = target && target->hasBulkCopy();
  pm.addPass(mlir::tileir::createPipelineLoads(pipeline));
  pm.addPass(mlir::tileir::createAllocateShared());
}

void tile::buildGPUPipeline(mlir::OpPassManager &pm, const CompileOptions &options,
                            bool toLLVM) {
  buildGPULayoutPipeline(pm, options);
  mlir::tileir::ConvertTileToGPUOptions gpu;
  gpu.target = options.target;
  pm.addPass(mlir::tileir::createConvertTileToGPU(gpu));
  if (options.programsPerCta > 1) // checkTarget: NVIDIA targets only
    pm.addPass(mlir::tileir::createNVPTXPackProgramsPass(options.programsPerCta));
  // fp8 pairs to f16 pairs in one instruction where the chip has it; the
  // expansion decodes what remains.
  if (auto chip = mlir::tileir::lookupNVPTXChip(options.target);
      chip && mlir::tileir::hasFP8PairConversion(*chip))
    pm.addPass(mlir::tileir::createNVPTXExtendFP8Pass());
  mlir::tileir::ExpandFP8Options fp8;
  fp8.fnuz = options.target == "gfx942"; // gfx942 stores e4m3 as e4m3fnuz
  pm.addPass(mlir::tileir::createExpandFP8(fp8));
  mlir::tileir::ExpandMathOptions math;
  // erfc's power of two on ex2.approx (2 ulp), as the kernel's own exp2
  // always is on NVPTX: the tier-A bounds hold with it (ExpandMath.cpp).
  math.nativeExp2 = options.target.rfind("sm_", 0) == 0;
  pm.addPass(mlir::tileir::createExpandMath(math));
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  if (!toLLVM)
    return;
  pm.addPass(mlir::createSCFToControlFlowPass());
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createConvertVectorToLLVMPass());
  addCommonToLLVMPasses(pm);
  pm.addPass(mlir::createCanonicalizerPass());
}

namespace {
/// Appends the milliseconds since its creation or previous lap to `phases`
/// (GPUBinary::phaseMs), when there is one.
class PhaseClock {
public:
  explicit PhaseClock(std::vector<std::pair<std::string, double>> *phases) : phases(phases) {}
  void lap(const char *name) {
    auto now = std::chrono::steady_clock::now();
    if (phases)
      phases->emplace_back(name, std::chrono::duration<double, std::milli>(now - last).count());
    last = now;
  }
  double sinceStart() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  }

private:
  std::vector<std::pair<std::string, double>> *phases;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), last = start;
};

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
      target->markKernel(&op, threads, options.maxRegisters);
  }
  return "";
}

/// What translateAndEmit produces: LLVM IR text, the target's assembly text,
/// or what a driver loads (PTX for NVIDIA, a code object for AMD).
enum class Output { LLVMText, Assembly, Binary };

std::string printModule(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

std::string emitNVPTX(llvm::Module &module, const mlir::tileir::NVPTXChip &chip,
                      const CompileOptions &options, Output output, std::string &error) {
  if (output == Output::LLVMText)
    return printModule(module);
  std::string ptx = mlir::tileir::emitPTX(module, chip, options.optLevel, options.scalarize, error);
  if (!error.empty())
    error = "PTX emission failed: " + error;
  return ptx;
}

std::string emitAMDGPU(llvm::Module &module, const mlir::tileir::AMDGPUChip &chip,
                       const CompileOptions &options, Output output, std::string &error) {
  if (!mlir::tileir::prepareAMDGPUModule(module, chip, options.codeObjectVersion, error))
    return "";
  if (output == Output::LLVMText)
    return printModule(module);
  auto kind = output == Output::Assembly ? mlir::tileir::AMDGPUOutput::Assembly
                                         : mlir::tileir::AMDGPUOutput::CodeObject;
  std::string text =
      mlir::tileir::emitAMDGPU(module, chip, options.optLevel, options.scalarize, kind, error);
  if (!error.empty())
    error = "AMDGPU code generation failed: " + error;
  return text;
}

Result<std::string> translateAndEmit(mlir::ModuleOp module, const CompileOptions &options,
                                     Output output, PhaseClock *clock = nullptr) {
  llvm::LLVMContext llvmContext;
  // The module was verified at the end of the pipeline (runPasses).
  auto llvmModule = mlir::translateModuleToLLVMIR(module, llvmContext, "LLVMDialectModule",
                                                  /*disableVerification=*/!kVerifyEachPass);
  if (!llvmModule)
    return Result<std::string>::failure("internal compiler error: translation to LLVM IR failed");
  if (clock)
    clock->lap("llvm-ir");
  std::string error;
  std::string text;
  if (auto chip = mlir::tileir::lookupAMDGPUChip(options.target))
    text = emitAMDGPU(*llvmModule, *chip, options, output, error);
  else
    text = emitNVPTX(*llvmModule, *mlir::tileir::lookupNVPTXChip(options.target), options,
                     output, error);
  if (!error.empty())
    return Result<std::string>::failure(error);
  if (clock)
    clock->lap("llvm");
  return text;
}

/// "" when `options` can be compiled for its target, else the reason.
std::string checkTarget(const CompileOptions &options) {
  std::string error;
  auto target = mlir::tileir::createGPUTargetInfo(options.target, error);
  if (!target)
    return error;
  if (options.maxRegisters && !target->supportsRegisterLimit())
    return "--max-registers applies to NVIDIA targets only (PTX .maxnreg), not " +
           target->name().str();
  if (options.maxRegisters && (options.maxRegisters < 16 || options.maxRegisters > 255))
    return "--max-registers must be 16 to 255 registers a thread, got " +
           std::to_string(options.maxRegisters);
  unsigned k = options.programsPerCta;
  if (k == 0 || k > 16)
    return "--programs-per-cta must be 1 to 16 (PTX has 16 barriers a CTA), got " +
           std::to_string(k);
  if (k > 1 && !mlir::tileir::lookupNVPTXChip(options.target))
    return "--programs-per-cta=" + std::to_string(k) + " applies to NVIDIA targets only, not " +
           target->name().str();
  return "";
}

} // namespace

Result<std::string> tile::lowerToText(mlir::ModuleOp module, const CompileOptions &options,
                                      Phase phase) {
  std::string targetError = checkTarget(options);
  if (!targetError.empty())
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
  return translateAndEmit(module, options,
                          phase == Phase::Assembly ? Output::Assembly : Output::LLVMText);
}

Result<GPUBinary> tile::compileForGPU(const std::string &source, const std::string &fileName,
                                      const CompileOptions &options) {
  GPUBinary binary;
  PhaseClock clock(&binary.phaseMs);
  std::string targetError = checkTarget(options);
  if (!targetError.empty())
    return Result<GPUBinary>::failure(targetError);
  auto context = createContext();
  clock.lap("context");
  auto front = runFrontend(source, fileName, options, *context);
  if (!front)
    return Result<GPUBinary>::failure(front.message());
  clock.lap("frontend");
  mlir::ModuleOp module = *(*front)->module;
  binary.waitsOnPriorGrid =
      module.walk([](mlir::tileir::GridDependencyWaitOp) { return mlir::WalkResult::interrupt(); })
          .wasInterrupted();
  CompileOptions effective = options;
  if ((*front)->signature.numWarps) // a `num_warps` compile-time parameter wins
    effective.numWarps = unsigned((*front)->signature.numWarps);
  std::string err = lowerGPU(module, effective, true, binary.sharedBytes, binary.threads);
  if (!err.empty())
    return Result<GPUBinary>::failure(err);
  clock.lap("lowering");
  binary.programsPerCta = options.programsPerCta;
  auto target = mlir::tileir::createGPUTargetInfo(options.target, targetError);
  int64_t budget = std::min(target->sharedMemoryPerBlock(),
                            occupancyBudget(target->sharedMemoryPerCU(), options.occupancy));
  if (binary.sharedBytes > budget && options.programsPerCta > 1)
    return Result<GPUBinary>::failure(
        "--programs-per-cta=" + std::to_string(options.programsPerCta) + " needs " +
        std::to_string(binary.sharedBytes) + " bytes of shared memory a CTA, over the " +
        std::to_string(budget) + " of the budget (--occupancy " +
        std::to_string(options.occupancy) + "): use fewer programs a CTA");
  // Over the shared memory budget: shrink free tunables and compile again.
  if (binary.sharedBytes > budget) {
    auto plan = planSharedMemory(source, fileName, options);
    if (!plan)
      return Result<GPUBinary>::failure(plan.message());
    CompileOptions shrunk = options;
    for (const auto &[name, value] : plan->defines)
      shrunk.defines[name] = value;
    double overBudget = clock.sinceStart();
    auto result = compileForGPU(source, fileName, shrunk);
    if (result && !plan->remark.empty())
      result->remarks.insert(result->remarks.begin(), plan->remark);
    if (result)
      result->phaseMs.insert(result->phaseMs.begin(), {"over-budget", overBudget});
    return result;
  }
  auto code = translateAndEmit(module, effective, Output::Binary, &clock);
  if (!code)
    return Result<GPUBinary>::failure(code.message());
  binary.target = options.target;
  binary.kernel = (*front)->signature.name;
  binary.params = (*front)->signature.params;
  for (const Tunable &t : (*front)->signature.tunables)
    binary.config[t.name] = t.value;
  if (mlir::tileir::lookupAMDGPUChip(options.target)) {
    binary.binary = std::move(*code);
    return binary;
  }
  binary.ptx = std::move(*code);
  if (options.cubin) {
    std::string error;
    binary.binary =
        mlir::tileir::assembleCubin(binary.ptx, *mlir::tileir::lookupNVPTXChip(options.target), error);
    if (!error.empty())
      return Result<GPUBinary>::failure(error);
    clock.lap("ptxas");
  }
  return binary;
}
