//===- Runtime.cpp - launch tile kernels from a host application ----------===//
#include "tile/Runtime.h"

#include "tile/CudaDriver.h"
#include "tile/HipDriver.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tile {

struct Runtime::Drivers {
  std::unique_ptr<cuda::Driver> cuda;
  std::unique_ptr<hip::Driver> hip;
};

struct Kernel::Variant {
  KernelBinary binary;
  void *function = nullptr;
};

size_t Kernel::numVariants() const {
  std::lock_guard<std::mutex> lock(mutex);
  return variants.size();
}

namespace {

/// The NVIDIA target tilec compiles for a compute capability.
std::string cudaTarget(int cc) {
  if (cc == 90)
    return "sm_90a";
  if (cc >= 90)
    return "sm_90";
  if (cc == 89)
    return "sm_89";
  if (cc >= 80)
    return "sm_80";
  return "";
}

const char *kindName(ScalarKind k) {
  static const char *names[] = {"f32", "f16", "bf16", "f8e4m3", "f8e5m2", "bool",
                                "i8",  "u8",  "i16",  "i32",    "i64"};
  return names[int(k)];
}

std::string paramText(const ParamInfo &p) {
  return p.isPointer ? std::string("ptr<") + kindName(p.kind) + ">" : kindName(p.kind);
}

bool isFloat(ScalarKind k) {
  return k == ScalarKind::F32 || k == ScalarKind::F16 || k == ScalarKind::BF16 ||
         k == ScalarKind::F8E4M3 || k == ScalarKind::F8E5M2;
}

/// One kernel argument as cuLaunchKernel / hipModuleLaunchKernel read it.
struct Slot {
  alignas(8) unsigned char bytes[8] = {};
};

void packArg(const ParamInfo &p, const Arg &a, Slot &slot) {
  if (p.isPointer) {
    uint64_t address = reinterpret_cast<uintptr_t>(a.ptr);
    std::memcpy(slot.bytes, &address, 8);
    return;
  }
  if (p.kind == ScalarKind::F32) {
    float f = float(a.kind == Arg::Kind::Float ? a.f : double(a.i));
    std::memcpy(slot.bytes, &f, 4);
    return;
  }
  std::memcpy(slot.bytes, &a.i, 8);
}

} // namespace

Result<std::unique_ptr<Runtime>> Runtime::create(const RuntimeOptions &options,
                                                 KernelCompiler compiler) {
  using R = Result<std::unique_ptr<Runtime>>;
  const std::string &want = options.backend;
  if (want != "auto" && want != "cuda" && want != "hip" && want != "host")
    return R::failure("unknown backend '" + want + "' (expected auto, cuda, hip or host)");
  if (!compiler.signature || !compiler.compile)
    return R::failure("Runtime::create needs a KernelCompiler");
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->compiler = std::move(compiler);
  rt->drivers = std::make_unique<Drivers>();
  std::string tried;
  if (want == "auto" || want == "cuda") {
    std::string error;
    if (auto d = cuda::Driver::open(options.device, error)) {
      std::string target = cudaTarget(d->computeCapability());
      if (!target.empty()) {
        rt->kind = Backend::Cuda;
        rt->targetName = target;
        rt->device = d->deviceName();
        for (int i = 0; i < 3; ++i)
          rt->maxGrid[i] = d->maxGrid()[i];
        rt->drivers->cuda = std::move(d);
        return rt;
      }
      error = "compute capability " + std::to_string(d->computeCapability()) +
              " is older than sm_80";
    }
    tried += "CUDA: " + error;
  }
  if (want == "auto" || want == "hip") {
    std::string error;
    if (auto d = hip::Driver::open(options.device, error)) {
      rt->kind = Backend::Hip;
      rt->targetName = d->arch();
      rt->device = d->deviceName();
      rt->drivers->hip = std::move(d);
      return rt;
    }
    tried += (tried.empty() ? "" : "; ") + std::string("HIP: ") + error;
  }
  if (want == "cuda" || want == "hip")
    return R::failure("no " + want + " device: " + tried);
  return rt;
}

Runtime::~Runtime() = default;

Result<Kernel *> Runtime::loadSource(const std::string &source, const std::string &fileName,
                                     CompileOptions options) {
  options.target = targetName;
  auto sig = compiler.signature(source, fileName, options);
  if (!sig)
    return Result<Kernel *>::failure(sig.message());
  auto kernel = std::make_unique<Kernel>();
  kernel->source = source;
  kernel->fileName = fileName;
  kernel->options = options;
  kernel->signature = sig->params;
  kernel->kernelName = sig->kernel;
  kernel->options.kernel = sig->kernel;
  std::lock_guard<std::mutex> lock(mutex);
  kernels.push_back(std::move(kernel));
  return kernels.back().get();
}

Result<Kernel *> Runtime::loadFile(const std::string &path, CompileOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Result<Kernel *>::failure("cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return loadSource(ss.str(), path, std::move(options));
}

std::string Runtime::checkArgs(const Kernel &kernel, std::array<uint32_t, 3> grid,
                               const std::vector<Arg> &args) const {
  const auto &params = kernel.params();
  std::string name = kernel.name().empty() ? "kernel" : "kernel '" + kernel.name() + "'";
  if (args.size() != params.size())
    return name + " takes " + std::to_string(params.size()) + " arguments, got " +
           std::to_string(args.size());
  for (int axis = 0; axis < 3; ++axis) {
    if (grid[axis] == 0)
      return "grid dimension " + std::to_string(axis) + " is 0";
    if (grid[axis] > maxGrid[axis])
      return "grid dimension " + std::to_string(axis) + " is " + std::to_string(grid[axis]) +
             ", over the device limit " + std::to_string(maxGrid[axis]);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamInfo &p = params[i];
    const Arg &a = args[i];
    std::string where = "argument " + std::to_string(i) + " ('" + p.name + "', " + paramText(p) + ")";
    if (p.isPointer && a.kind != Arg::Kind::Pointer)
      return where + " needs a pointer";
    if (p.isPointer && !a.ptr)
      return where + " is a null pointer";
    if (!p.isPointer && a.kind == Arg::Kind::Pointer)
      return where + " needs a scalar, got a pointer";
    if (!p.isPointer && !isFloat(p.kind) && a.kind != Arg::Kind::Int)
      return where + " needs an integer, got a float";
  }
  return "";
}

std::string Runtime::variantKey(const Kernel &kernel, const std::vector<Arg> &args,
                                std::map<std::string, int64_t> &divisibility) const {
  // Triton's specialisation: 16-byte aligned pointers, integers divisible by
  // 16 or equal to 1 (as divisibility 1, see CompileOptions).
  std::string key;
  const auto &params = kernel.params();
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamInfo &p = params[i];
    bool isInt = !p.isPointer && !isFloat(p.kind) && p.kind != ScalarKind::I1;
    if (isInt && args[i].i == 1) {
      key += '1';
      divisibility[p.name] = 1;
      continue;
    }
    bool special = p.isPointer ? reinterpret_cast<uintptr_t>(args[i].ptr) % 16 == 0
                               : isInt && args[i].i % 16 == 0;
    key += special ? 'd' : '-';
    if (special)
      divisibility[p.name] = 16;
  }
  return key;
}

std::string Runtime::launch(Kernel *kernel, std::array<uint32_t, 3> grid,
                            const std::vector<Arg> &args, void *stream) {
  if (!kernel)
    return "launch of a null kernel";
  std::string err = checkArgs(*kernel, grid, args);
  if (!err.empty())
    return err;
  std::map<std::string, int64_t> divisibility;
  std::string key = variantKey(*kernel, args, divisibility);
  Kernel::Variant *variant = nullptr;
  {
    std::lock_guard<std::mutex> lock(kernel->mutex);
    auto it = kernel->variants.find(key);
    if (it != kernel->variants.end())
      variant = it->second.get();
  }
  if (!variant) {
    CompileOptions options = kernel->options;
    options.divisibility = divisibility;
    auto binary = compiler.compile(kernel->source, kernel->fileName, options);
    if (!binary)
      return binary.message();
    auto v = std::make_unique<Kernel::Variant>();
    v->binary = std::move(*binary);
    if (kind == Backend::Cuda)
      err = drivers->cuda->loadKernel(v->binary.image, v->binary.kernel, v->function);
    else if (kind == Backend::Hip)
      err = drivers->hip->loadKernel(v->binary.image, v->binary.kernel, v->function);
    if (!err.empty())
      return err;
    std::lock_guard<std::mutex> lock(kernel->mutex);
    auto &slot = kernel->variants[key];
    if (!slot)
      slot = std::move(v);
    variant = slot.get();
  }
  if (kind == Backend::Host)
    return variant->binary.hostLaunch(grid, args);
  const auto &params = kernel->params();
  Slot slots[64];
  void *pointers[64];
  if (params.size() > 64)
    return "kernels take at most 64 arguments";
  for (size_t i = 0; i < params.size(); ++i) {
    packArg(params[i], args[i], slots[i]);
    pointers[i] = slots[i].bytes;
  }
  std::vector<void *> argv(pointers, pointers + params.size());
  unsigned g[3] = {grid[0], grid[1], grid[2]};
  const KernelBinary &b = variant->binary;
  if (kind == Backend::Cuda)
    return drivers->cuda->launch(variant->function, g, b.threads, 0, argv, stream);
  return drivers->hip->launch(variant->function, g, b.threads, 0, stream, argv);
}

std::string Runtime::synchronize() {
  if (kind == Backend::Cuda)
    return drivers->cuda->synchronize();
  if (kind == Backend::Hip)
    return drivers->hip->synchronize();
  return "";
}

std::string Runtime::alloc(size_t bytes, void **out) {
  if (kind == Backend::Cuda) {
    cuda::DevicePtr p = 0;
    std::string err = drivers->cuda->alloc(bytes, p);
    *out = reinterpret_cast<void *>(p);
    return err;
  }
  if (kind == Backend::Hip)
    return drivers->hip->alloc(bytes, out);
  *out = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  return *out ? "" : "out of host memory";
}

std::string Runtime::free(void *ptr) {
  if (kind == Backend::Cuda)
    return drivers->cuda->free(reinterpret_cast<cuda::DevicePtr>(ptr));
  if (kind == Backend::Hip)
    return drivers->hip->free(ptr);
  std::free(ptr);
  return "";
}

std::string Runtime::copyToDevice(void *dst, const void *src, size_t bytes) {
  if (kind == Backend::Cuda)
    return drivers->cuda->copyToDevice(reinterpret_cast<cuda::DevicePtr>(dst), src, bytes);
  if (kind == Backend::Hip)
    return drivers->hip->copyToDevice(dst, src, bytes);
  std::memcpy(dst, src, bytes);
  return "";
}

std::string Runtime::copyToHost(void *dst, const void *src, size_t bytes) {
  if (kind == Backend::Cuda)
    return drivers->cuda->copyToHost(dst, reinterpret_cast<cuda::DevicePtr>(src), bytes);
  if (kind == Backend::Hip)
    return drivers->hip->copyToHost(dst, src, bytes);
  std::memcpy(dst, src, bytes);
  return "";
}

} // namespace tile
