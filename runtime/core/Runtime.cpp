//===- Runtime.cpp - launch tile kernels from a host application ----------===//
#include "tile/Runtime.h"

#include "tile/CudaDriver.h"
#include "tile/HipDriver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <unistd.h>

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

std::map<std::string, TuneConfig> Kernel::tunedConfigs() const {
  std::lock_guard<std::mutex> lock(mutex);
  return choices;
}

std::vector<std::string> Kernel::remarks() const {
  std::lock_guard<std::mutex> lock(mutex);
  return compilerRemarks;
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

/// Appends each line of `from` that `to` does not hold yet.
void addOnce(std::vector<std::string> &to, const std::vector<std::string> &from) {
  for (const std::string &line : from)
    if (std::find(to.begin(), to.end(), line) == to.end())
      to.push_back(line);
}

} // namespace

std::string configText(const std::vector<Tunable> &tunables, const TuneConfig &config) {
  std::string text;
  for (const Tunable &t : tunables) {
    auto it = config.find(t.name);
    if (it == config.end())
      continue;
    text += (text.empty() ? "" : " ") + t.name + "=" + it->second;
  }
  return text;
}

bool parseConfig(const std::string &text, const std::vector<Tunable> &tunables,
                 TuneConfig &config) {
  config.clear();
  std::istringstream is(text);
  std::string word;
  while (is >> word) {
    size_t eq = word.find('=');
    if (eq == std::string::npos)
      return false;
    std::string name = word.substr(0, eq), value = word.substr(eq + 1);
    auto t = std::find_if(tunables.begin(), tunables.end(),
                          [&](const Tunable &t) { return t.name == name; });
    if (t == tunables.end() ||
        std::find(t->candidates.begin(), t->candidates.end(), value) == t->candidates.end() ||
        !config.emplace(name, value).second)
      return false;
  }
  return config.size() == tunables.size();
}

std::vector<Tunable> tunedParameters(const std::vector<Tunable> &tunables,
                                     const std::map<std::string, std::string> &defines) {
  std::vector<Tunable> out;
  for (const Tunable &t : tunables)
    if (!defines.count(t.name) && !t.candidates.empty())
      out.push_back(t);
  return out;
}

std::string tuningKeyText(const std::vector<ParamInfo> &params,
                          const std::vector<size_t> &keyArgs, const std::vector<Arg> &args) {
  std::string keyText;
  for (size_t index : keyArgs) {
    const Arg &a = args[index];
    std::string value = a.kind == Arg::Kind::Int     ? std::to_string(a.i)
                        : a.kind == Arg::Kind::Float ? std::to_string(a.f)
                                                     : "ptr";
    keyText += (keyText.empty() ? "" : ", ") + params[index].name + "=" + value;
  }
  return keyText;
}

std::vector<std::pair<std::string, std::string>>
tuningParts(const std::string &target, const std::string &kernel, const std::string &source,
            const CompileOptions &options, const std::vector<Tunable> &tuned,
            const std::string &keyText) {
  std::vector<std::pair<std::string, std::string>> parts = {
      {"kind", "tuning"},
      {"target", target},
      {"kernel", kernel},
      {"source", source},
      {"num_warps", std::to_string(options.numWarps)},
      {"opt", std::to_string(options.optLevel)},
      {"key", keyText}};
  for (auto &[name, value] : options.defines)
    parts.push_back({"define:" + name, value});
  for (const Tunable &t : tuned) {
    std::string space;
    for (auto &c : t.candidates)
      space += c + ",";
    parts.push_back({"tunable:" + t.name, space});
  }
  return parts;
}

namespace {

/// Every configuration of the candidates, the first tunable varying slowest.
std::vector<TuneConfig> configurations(const std::vector<Tunable> &tunables) {
  std::vector<TuneConfig> out(1);
  for (const Tunable &t : tunables) {
    std::vector<TuneConfig> next;
    for (const TuneConfig &c : out)
      for (const std::string &v : t.candidates) {
        next.push_back(c);
        next.back()[t.name] = v;
      }
    out = std::move(next);
  }
  return out;
}

std::string firstLine(const std::string &s) { return s.substr(0, s.find('\n')); }

std::string formatMs(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms < 1 ? "%.4f" : "%.3f", ms);
  return buf;
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
  rt->tuneProgress = options.tuneProgress;
  rt->tuneRepeats = std::max(1u, options.tuneRepeats);
  rt->tuneThreads = options.tuneThreads;
  rt->overlapLaunches = options.overlapLaunches;
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
  kernel->tuned = tunedParameters(sig->tunables, options.defines);
  for (const Tunable &t : sig->tunables)
    if (options.defines.count(t.name) || t.candidates.empty())
      kernel->fixed[t.name] = t.value;
  if (!kernel->tuned.empty())
    for (const std::string &name : sig->tuneKey) {
      auto it = std::find_if(sig->params.begin(), sig->params.end(),
                             [&](const ParamInfo &p) { return p.name == name; });
      if (it == sig->params.end())
        return Result<Kernel *>::failure("tuning key '" + name + "' is not a parameter of '" +
                                         sig->kernel + "'");
      kernel->tuneKeyArgs.push_back(size_t(it - sig->params.begin()));
    }
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

std::string Runtime::checkGrid(std::array<uint32_t, 3> grid) const {
  for (int axis = 0; axis < 3; ++axis) {
    if (grid[axis] == 0)
      return "grid dimension " + std::to_string(axis) + " is 0";
    if (grid[axis] > maxGrid[axis])
      return "grid dimension " + std::to_string(axis) + " is " + std::to_string(grid[axis]) +
             ", over the device limit " + std::to_string(maxGrid[axis]);
  }
  return "";
}

std::string Runtime::checkArgs(const Kernel &kernel, const std::vector<Arg> &args) const {
  const auto &params = kernel.params();
  std::string name = kernel.name().empty() ? "kernel" : "kernel '" + kernel.name() + "'";
  if (args.size() != params.size())
    return name + " takes " + std::to_string(params.size()) + " arguments, got " +
           std::to_string(args.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamInfo &p = params[i];
    const Arg &a = args[i];
    std::string where = "argument " + std::to_string(i) + " ('" + p.name + "', " + paramTypeName(p) + ")";
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

void Runtime::setTuneProgress(std::function<void(const std::string &)> progress) {
  std::lock_guard<std::mutex> lock(mutex);
  tuneProgress = std::move(progress);
}

void Runtime::progress(const std::string &line) {
  std::function<void(const std::string &)> sink;
  {
    std::lock_guard<std::mutex> lock(mutex);
    sink = tuneProgress;
  }
  if (sink) {
    sink(line);
    return;
  }
  static const bool toStderr = [] {
    const char *env = std::getenv("TILEC_TUNE_LOG");
    if (env && *env)
      return std::strcmp(env, "0") != 0;
    return isatty(2) != 0;
  }();
  if (toStderr)
    std::fprintf(stderr, "%s\n", line.c_str());
}

std::string Runtime::load(Kernel::Variant &v) {
  if (kind == Backend::Cuda)
    return drivers->cuda->loadKernel(v.binary.image, v.binary.kernel, v.function);
  if (kind == Backend::Hip)
    return drivers->hip->loadKernel(v.binary.image, v.binary.kernel, v.function);
  return "";
}

std::string Runtime::variant(Kernel &kernel, const TuneConfig &config,
                             const std::map<std::string, int64_t> &divisibility,
                             const std::string &specKey, Kernel::Variant *&out) {
  std::string key = configText(kernel.tuned, config) + "|" + specKey;
  {
    std::lock_guard<std::mutex> lock(kernel.mutex);
    auto it = kernel.variants.find(key);
    if (it != kernel.variants.end()) {
      out = it->second.get();
      return "";
    }
  }
  CompileOptions options = kernel.options;
  options.divisibility = divisibility;
  for (auto &[name, value] : config)
    options.defines[name] = value;
  auto binary = compiler.compile(kernel.source, kernel.fileName, options);
  if (!binary)
    return binary.message();
  auto v = std::make_unique<Kernel::Variant>();
  v->binary = std::move(*binary);
  if (std::string err = load(*v); !err.empty())
    return err;
  std::lock_guard<std::mutex> lock(kernel.mutex);
  addOnce(kernel.compilerRemarks, v->binary.remarks);
  auto &slot = kernel.variants[key];
  if (!slot)
    slot = std::move(v);
  out = slot.get();
  return "";
}

std::string Runtime::run(Kernel &kernel, const Kernel::Variant &variant,
                         std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                         void *stream) {
  if (kind == Backend::Host)
    return variant.binary.hostLaunch(grid, args);
  const auto &params = kernel.params();
  Slot slots[64];
  void *pointers[64];
  if (params.size() > 64)
    return "kernels take at most 64 arguments";
  for (size_t i = 0; i < params.size(); ++i) {
    packArg(params[i], args[i], slots[i]);
    pointers[i] = slots[i].bytes;
  }
  std::vector<void *> argv(pointers, pointers + params.size());
  unsigned g[3];
  const KernelBinary &b = variant.binary;
  if (std::string err = ctaGrid(grid, b.programsPerCta, g); !err.empty())
    return err;
  if (kind == Backend::Cuda)
    return drivers->cuda->launch(variant.function, g, b.threads, unsigned(b.sharedBytes), argv,
                                 stream, b.waitsOnPriorGrid && overlapLaunches);
  return drivers->hip->launch(variant.function, g, b.threads, 0, stream, argv);
}

std::string Runtime::tune(Kernel &kernel, const GridFn &gridFn, const std::vector<Arg> &args,
                          const std::map<std::string, int64_t> &divisibility,
                          const std::string &specKey, const std::string &keyText,
                          TuneConfig &chosen) {
  std::string label = "tuning " + kernel.name() + (keyText.empty() ? "" : " [" + keyText + "]");
  // Everything the choice depends on; the compiler adds its build id.
  std::vector<std::pair<std::string, std::string>> parts = tuningParts(
      targetName, kernel.name(), kernel.source, kernel.options, kernel.tuned, keyText);
  auto remember = [&](const TuneConfig &config) {
    std::lock_guard<std::mutex> lock(kernel.mutex);
    kernel.choices[keyText] = config;
  };
  if (compiler.lookupTuning)
    if (auto text = compiler.lookupTuning(parts))
      if (parseConfig(*text, kernel.tuned, chosen)) {
        remember(chosen);
        progress(label + ": " + *text + " (from the cache)");
        return "";
      }

  // Compile every configuration: the first alone (LLVM registers its targets
  // on first use, which is not thread-safe), the rest on a small pool.
  std::vector<TuneConfig> configs = configurations(kernel.tuned);
  size_t n = configs.size();
  std::vector<std::optional<Result<KernelBinary>>> results(n);
  std::mutex progressMutex;
  size_t compiled = 0;
  auto compileOne = [&](size_t i) {
    CompileOptions options = kernel.options;
    options.divisibility = divisibility;
    for (auto &[name, value] : configs[i])
      options.defines[name] = value;
    results[i].emplace(compiler.compile(kernel.source, kernel.fileName, options));
    std::lock_guard<std::mutex> lock(progressMutex);
    ++compiled;
    if (!*results[i])
      progress(label + ": " + configText(kernel.tuned, configs[i]) +
               " skipped, it does not compile: " + firstLine(results[i]->message()));
    progress(label + ": " + std::to_string(compiled) + "/" + std::to_string(n) +
             " configs compiled");
  };
  compileOne(0);
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  size_t workers = std::min<size_t>({n - 1, tuneThreads ? tuneThreads : hw, hw});
  std::atomic<size_t> next{1};
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < n;)
        compileOne(i);
    });
  for (auto &t : pool)
    t.join();

  // Time each configuration that compiled on the caller's arguments.
  std::string firstError;
  std::unique_ptr<Kernel::Variant> best;
  double bestMs = 0;
  size_t bestIndex = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!*results[i]) {
      if (firstError.empty())
        firstError = results[i]->message();
      continue;
    }
    auto v = std::make_unique<Kernel::Variant>();
    v->binary = std::move(**results[i]);
    TuneConfig all = kernel.fixed;
    for (auto &[name, value] : configs[i])
      all[name] = value;
    std::array<uint32_t, 3> grid = gridFn(all);
    std::string err = load(*v);
    if (err.empty())
      err = checkGrid(grid);
    if (err.empty())
      err = run(kernel, *v, grid, args, nullptr); // warm-up
    if (err.empty())
      err = synchronize();
    std::vector<double> times;
    for (unsigned r = 0; err.empty() && r < tuneRepeats; ++r) {
      if (kind == Backend::Cuda) {
        float ms = 0;
        err = drivers->cuda->time([&] { return run(kernel, *v, grid, args, nullptr); }, ms);
        times.push_back(ms);
        continue;
      }
      auto start = std::chrono::steady_clock::now();
      err = run(kernel, *v, grid, args, nullptr);
      if (err.empty() && kind == Backend::Hip)
        err = drivers->hip->synchronize();
      times.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
    }
    if (!err.empty()) {
      progress(label + ": " + configText(kernel.tuned, configs[i]) + " skipped: " +
               firstLine(err));
      if (firstError.empty())
        firstError = err;
      continue;
    }
    std::sort(times.begin(), times.end());
    double ms = times[times.size() / 2]; // the median
    if (!best || ms < bestMs) {
      best = std::move(v);
      bestMs = ms;
      bestIndex = i;
    }
  }
  if (!best)
    return firstError;

  chosen = configs[bestIndex];
  std::string text = configText(kernel.tuned, chosen);
  {
    std::lock_guard<std::mutex> lock(kernel.mutex);
    addOnce(kernel.compilerRemarks, best->binary.remarks);
    auto &slot = kernel.variants[text + "|" + specKey];
    if (!slot)
      slot = std::move(best);
    kernel.choices[keyText] = chosen;
  }
  if (compiler.storeTuning)
    compiler.storeTuning(parts, text);
  progress(label + ": " + text + " best (" + formatMs(bestMs) + " ms) of " + std::to_string(n));
  return "";
}

std::string Runtime::launch(Kernel *kernel, std::array<uint32_t, 3> grid,
                            const std::vector<Arg> &args, void *stream) {
  return launch(kernel, [grid](const TuneConfig &) { return grid; }, args, stream);
}

std::string Runtime::launch(Kernel *kernel, const GridFn &gridFn, const std::vector<Arg> &args,
                            void *stream) {
  if (!kernel)
    return "launch of a null kernel";
  if (!gridFn)
    return "launch without a grid";
  std::string err = checkArgs(*kernel, args);
  if (!err.empty())
    return err;
  std::map<std::string, int64_t> divisibility;
  std::string specKey = variantKey(*kernel, args, divisibility);
  TuneConfig config;
  if (!kernel->tuned.empty()) {
    std::string keyText = tuningKeyText(kernel->params(), kernel->tuneKeyArgs, args);
    auto find = [&]() -> bool {
      std::lock_guard<std::mutex> lock(kernel->mutex);
      auto it = kernel->choices.find(keyText);
      if (it == kernel->choices.end())
        return false;
      config = it->second;
      return true;
    };
    if (!find()) {
      std::lock_guard<std::mutex> lock(kernel->tuneMutex);
      if (!find()) {
        err = tune(*kernel, gridFn, args, divisibility, specKey, keyText, config);
        if (!err.empty())
          return err;
      }
    }
  }
  TuneConfig all = kernel->fixed;
  for (auto &[name, value] : config)
    all[name] = value;
  std::array<uint32_t, 3> grid = gridFn(all);
  if (err = checkGrid(grid); !err.empty())
    return err;
  Kernel::Variant *v = nullptr;
  if (err = variant(*kernel, config, divisibility, specKey, v); !err.empty())
    return err;
  return run(*kernel, *v, grid, args, stream);
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
