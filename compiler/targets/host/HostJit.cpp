//===- HostJit.cpp - host-CPU kernels through an ORC LLJIT ---------------===//
//
// The kernel's LLVM IR is compiled by an LLJIT set up like MLIR's
// ExecutionEngine (RuntimeDyld, SectionMemoryManager, process symbols) but
// with ORC's inactive platform: tile kernels have no global constructors or
// destructors, and ExecutionEngine's generic IR platform JIT-compiles its
// deinitialisers in ~ExecutionEngine. That made a HostKernel destroyed after
// main returns (owned by a static) run LLVM's code generator after the
// statics it uses were destroyed: "error: scalar-to-vector conversion
// failed" and exit(1), or a crash. Nothing is compiled on destruction now
// (tests/runtime/HostExitTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "tile/Pipeline/Pipeline.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <cstring>
#include <thread>

namespace tile {

class HostKernelImpl {
public:
  std::string name;
  std::vector<ParamInfo> params;
  std::unique_ptr<mlir::MLIRContext> context;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  void (*entry)(void **) = nullptr;
};

namespace {

/// Scalar storage for one argument, read by the packed entry point through a
/// pointer of the parameter's LLVM type.
struct Slot {
  alignas(8) unsigned char bytes[8] = {};
};

/// Encodes a float argument in the parameter's format.
void encodeFloat(ScalarKind kind, double v, Slot &slot) {
  if (kind == ScalarKind::F32) {
    float f = float(v);
    std::memcpy(slot.bytes, &f, 4);
    return;
  }
  const llvm::fltSemantics &sem = kind == ScalarKind::F16      ? llvm::APFloat::IEEEhalf()
                                  : kind == ScalarKind::BF16   ? llvm::APFloat::BFloat()
                                  : kind == ScalarKind::F8E4M3 ? llvm::APFloat::Float8E4M3FN()
                                                               : llvm::APFloat::Float8E5M2();
  llvm::APFloat f(v);
  bool losesInfo;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  uint64_t bits = f.bitcastToAPInt().getZExtValue();
  std::memcpy(slot.bytes, &bits, 2);
}

bool isFloatKind(ScalarKind k) {
  return k == ScalarKind::F32 || k == ScalarKind::F16 || k == ScalarKind::BF16 ||
         k == ScalarKind::F8E4M3 || k == ScalarKind::F8E5M2;
}

/// Checks one integer argument against its parameter's range.
std::string encodeInt(const ParamInfo &p, int64_t v, Slot &slot) {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  switch (p.kind) {
  case ScalarKind::I1: lo = 0; hi = 1; break;
  case ScalarKind::I8: lo = INT8_MIN; hi = INT8_MAX; break;
  case ScalarKind::U8: lo = 0; hi = UINT8_MAX; break;
  case ScalarKind::I16: lo = INT16_MIN; hi = INT16_MAX; break;
  case ScalarKind::I32: lo = INT32_MIN; hi = INT32_MAX; break;
  default: break;
  }
  if (v < lo || v > hi)
    return "argument '" + p.name + "' (" + paramTypeName(p) + "): value " + std::to_string(v) +
           " is out of range";
  std::memcpy(slot.bytes, &v, 8); // little-endian: the low bytes are the value
  return "";
}

/// Adds `void <name>.packed(void **args)`, which loads each argument of
/// `name` from the pointer in args[i] and calls it (MLIR's packed interface).
llvm::Function *addPackedWrapper(llvm::Module &module, llvm::Function &func) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::IRBuilder<> builder(ctx);
  auto *type = llvm::FunctionType::get(builder.getVoidTy(), {builder.getPtrTy()}, false);
  auto *wrapper = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                         func.getName() + ".packed", module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", wrapper));
  llvm::Value *argList = wrapper->arg_begin();
  llvm::SmallVector<llvm::Value *, 16> args;
  for (auto [index, arg] : llvm::enumerate(func.args())) {
    llvm::Value *slot = builder.CreateLoad(
        builder.getPtrTy(), builder.CreateConstGEP1_64(builder.getPtrTy(), argList, index));
    args.push_back(builder.CreateLoad(arg.getType(), slot));
  }
  builder.CreateCall(&func, args);
  builder.CreateRetVoid();
  return wrapper;
}

/// Compiles `module` (LLVM dialect) and returns the JIT holding it, with the
/// packed entry point of `name` in `entry`.
llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
createJit(mlir::ModuleOp module, const std::string &name, unsigned optLevel,
          void (*&entry)(void **)) {
  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder)
    return tmBuilder.takeError();
  tmBuilder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto tm = tmBuilder->createTargetMachine();
  if (!tm)
    return tm.takeError();
  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  auto llvmModule = mlir::translateModuleToLLVMIR(module, *llvmContext);
  if (!llvmModule)
    return llvm::createStringError("could not translate the kernel to LLVM IR");
  llvmModule->setDataLayout((*tm)->createDataLayout());
  llvmModule->setTargetTriple((*tm)->getTargetTriple());
  llvm::Function *func = llvmModule->getFunction(name);
  if (!func || func->isDeclaration() || !func->getReturnType()->isVoidTy())
    return llvm::createStringError("no kernel function '" + name + "' in the LLVM IR");
  std::string packedName = addPackedWrapper(*llvmModule, *func)->getName().str();
  if (llvm::Error err = mlir::makeOptimizingTransformer(optLevel, 0, nullptr)(llvmModule.get()))
    return std::move(err);
  llvm::DataLayout dataLayout = llvmModule->getDataLayout();

  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(*tmBuilder))
                 .setDataLayout(dataLayout)
                 // No platform: nothing to run at initialisation or teardown.
                 .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                 .setObjectLinkingLayerCreator([](llvm::orc::ExecutionSession &session) {
                   return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                       session, [](const llvm::MemoryBuffer &) {
                         return std::make_unique<llvm::SectionMemoryManager>();
                       });
                 })
                 .create();
  if (!jit)
    return jit.takeError();
  // Calls into the C library and the runtime resolve in this process.
  auto processSymbols = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      dataLayout.getGlobalPrefix());
  if (!processSymbols)
    return processSymbols.takeError();
  (*jit)->getMainJITDylib().addGenerator(std::move(*processSymbols));
  if (llvm::Error err = (*jit)->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(llvmModule), std::move(llvmContext))))
    return std::move(err);
  auto address = (*jit)->lookup(packedName);
  if (!address)
    return address.takeError();
  entry = address->toPtr<void (*)(void **)>();
  return std::move(*jit);
}

} // namespace

HostKernel::HostKernel(std::unique_ptr<HostKernelImpl> impl) : impl(std::move(impl)) {}
HostKernel::~HostKernel() = default;
HostKernel::HostKernel(HostKernel &&) noexcept = default;
HostKernel &HostKernel::operator=(HostKernel &&) noexcept = default;
const std::string &HostKernel::name() const { return impl->name; }
const std::vector<ParamInfo> &HostKernel::params() const { return impl->params; }

std::string HostKernel::launch(std::array<uint32_t, 3> grid, const std::vector<Arg> &args) const {
  const auto &params = impl->params;
  if (args.size() != params.size())
    return "kernel '" + impl->name + "' takes " + std::to_string(params.size()) +
           " arguments, got " + std::to_string(args.size());
  for (uint32_t g : grid)
    if (g == 0)
      return "grid dimensions must be at least 1, got (" + std::to_string(grid[0]) + ", " +
             std::to_string(grid[1]) + ", " + std::to_string(grid[2]) + ")";
  std::vector<Slot> slots(params.size() + 6);
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamInfo &p = params[i];
    const Arg &a = args[i];
    std::string where = "argument " + std::to_string(i) + " ('" + p.name + "', " + paramTypeName(p) + ")";
    if (p.isPointer) {
      if (a.kind != Arg::Kind::Pointer)
        return where + " needs a pointer";
      if (!a.ptr)
        return where + " is a null pointer";
      uint64_t address = reinterpret_cast<uintptr_t>(a.ptr);
      std::memcpy(slots[i].bytes, &address, 8);
      continue;
    }
    if (a.kind == Arg::Kind::Pointer)
      return where + " needs a scalar, got a pointer";
    if (isFloatKind(p.kind)) {
      encodeFloat(p.kind, a.kind == Arg::Kind::Float ? a.f : double(a.i), slots[i]);
      continue;
    }
    if (a.kind != Arg::Kind::Int)
      return where + " needs an integer, got a float";
    std::string err = encodeInt(p, a.i, slots[i]);
    if (!err.empty())
      return err;
  }

  uint64_t total = uint64_t(grid[0]) * grid[1] * grid[2];
  unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                                                     unsigned(std::min<uint64_t>(total, 64))));
  auto worker = [&](unsigned t) {
    std::vector<Slot> local = slots;
    std::vector<void *> pointers(local.size());
    for (size_t i = 0; i < local.size(); ++i)
      pointers[i] = local[i].bytes;
    size_t base = params.size();
    for (int k = 0; k < 3; ++k)
      std::memcpy(local[base + 3 + k].bytes, &grid[k], 4);
    for (uint64_t linear = t; linear < total; linear += threads) {
      uint32_t pid[3] = {uint32_t(linear % grid[0]), uint32_t(linear / grid[0] % grid[1]),
                         uint32_t(linear / grid[0] / grid[1])};
      for (int k = 0; k < 3; ++k)
        std::memcpy(local[base + k].bytes, &pid[k], 4);
      impl->entry(pointers.data());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker, t);
  worker(0);
  for (auto &th : pool)
    th.join();
  return "";
}

Result<std::shared_ptr<HostKernel>> compileForHost(const std::string &source,
                                                   const std::string &fileName,
                                                   const CompileOptions &options) {
  using R = Result<std::shared_ptr<HostKernel>>;
  if (options.target != "host")
    return R::failure("compileForHost: target must be 'host', got '" + options.target + "'");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto impl = std::make_unique<HostKernelImpl>();
  impl->context = createContext();
  auto front = runFrontend(source, fileName, options, *impl->context);
  if (!front)
    return R::failure(front.message());
  mlir::ModuleOp module = *(*front)->module;
  mlir::PassManager pm(impl->context.get());
  buildHostPipeline(pm, /*toLLVM=*/true);
  std::string err = runPasses(pm, module);
  if (!err.empty())
    return R::failure(err);
  impl->name = (*front)->signature.name;
  impl->params = (*front)->signature.params;
  auto jit = createJit(module, impl->name, options.optLevel, impl->entry);
  if (!jit)
    return R::failure("host JIT failed for '" + impl->name +
                      "': " + llvm::toString(jit.takeError()));
  impl->jit = std::move(*jit);
  return std::make_shared<HostKernel>(std::move(impl));
}

} // namespace tile
