//===- Runtime.h - launch tile kernels from a host application --*- C++ -*-===//
//
// A Runtime finds a device (CUDA, then HIP, then the host CPU), loads kernels
// from .tile sources and launches them with typed arguments. Each launch picks
// the kernel variant specialised for its arguments (pointers aligned to 16
// bytes, integers divisible by 16), compiling it on first use; variants are
// kept in memory and, through the KernelCompiler, in the disk cache.
//
// Autotuning: a kernel that declares tunable compile-time parameters
// (`BLOCK: int = 256 in [64, 1024]`, `num_warps: int = 4 in {2, 4, 8}`) and
// whose load does not fix them all with defines is tuned on the first launch
// for each tuning key (the values of the arguments named by `key(...)`, the
// kernel's defines and the target): every configuration of the candidates is
// compiled (in parallel), launched a few times on the caller's arguments and
// timed; the fastest is kept in memory and, through the KernelCompiler, in the
// disk cache, so that later processes skip the tuning. Tuning launches the
// kernel repeatedly on the caller's buffers: a kernel that updates its inputs
// in place sees them updated several times (as in Triton without
// restore_value).
// Errors come back as strings ("" on success): no exceptions, no aborts.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_RUNTIME_H
#define TILE_RUNTIME_H

#include "tile/Tile.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace tile {

enum class Backend { Host, Cuda, Hip };

/// One compiled variant as the runtime loads it.
struct KernelBinary {
  std::string kernel;
  std::vector<ParamInfo> params;
  /// PTX or cubin (CUDA), a code object (HIP); empty for the host.
  std::string image;
  /// Threads a CTA (GPUBinary::threads).
  unsigned threads = 0;
  /// GPUBinary::programsPerCta.
  unsigned programsPerCta = 1;
  int64_t sharedBytes = 0;
  /// GPUBinary::waitsOnPriorGrid: CUDA launches it with programmatic
  /// dependent launch.
  bool waitsOnPriorGrid = false;
  /// The tunable parameters' values it was built with (GPUBinary::config).
  std::map<std::string, std::string> config;
  /// The compiler's remarks on this variant (GPUBinary::remarks: tunables
  /// shrunk to fit the shared memory budget); kept in the disk cache, so a
  /// cached variant reports them too.
  std::vector<std::string> remarks;
  /// GPUBinary::phaseMs of the compile that made it; empty when it came from
  /// the disk cache (not kept there).
  std::vector<std::pair<std::string, double>> phaseMs;
  /// The host backend's launch of the compiled kernel (keeps it alive).
  std::function<std::string(std::array<uint32_t, 3>, const std::vector<Arg> &)> hostLaunch;
};

/// Where variants come from: tile::jitCompiler() compiles (and caches on
/// disk); an AOT build can serve precompiled images instead.
struct KernelCompiler {
  /// The runtime parameters of the kernel (parse and type-check only).
  std::function<Result<Signature>(const std::string &source, const std::string &fileName,
                                   const CompileOptions &options)>
      signature;
  /// One specialised variant for `options.target`.
  std::function<Result<KernelBinary>(const std::string &source, const std::string &fileName,
                                     const CompileOptions &options)>
      compile;
  /// A tuning result persisted earlier (optional). `parts` name everything
  /// the choice depends on (target, kernel, source, defines, key values); the
  /// compiler adds its build id. The value is what storeTuning stored.
  std::function<std::optional<std::string>(
      const std::vector<std::pair<std::string, std::string>> &parts)>
      lookupTuning;
  /// Persists a tuning result (optional); `config` is one line of text.
  std::function<void(const std::vector<std::pair<std::string, std::string>> &parts,
                     const std::string &config)>
      storeTuning;
};

/// A tuned configuration: tunable parameter name -> value text, e.g.
/// {"BLOCK", "256"}, {"num_warps", "4"}.
using TuneConfig = std::map<std::string, std::string>;

/// The grid of a launch as a function of the configuration it runs with (the
/// values of every tunable parameter), for kernels whose grid depends on a
/// tuned parameter: `[&](const TuneConfig &c) { return {cdiv(n,
/// std::stoll(c.at("BLOCK"))), 1, 1}; }`.
using GridFn = std::function<std::array<uint32_t, 3>(const TuneConfig &config)>;

/// "BLOCK=256 num_warps=4": the values `config` gives the `tunables`, in
/// their declaration order (tunables it does not name are left out).
std::string configText(const std::vector<Tunable> &tunables, const TuneConfig &config);

/// Reads configText()'s output back; false unless `text` names one candidate
/// of every tunable and nothing else.
bool parseConfig(const std::string &text, const std::vector<Tunable> &tunables,
                 TuneConfig &config);

/// The tunables a load tunes: those with candidates that `defines` does not fix.
std::vector<Tunable> tunedParameters(const std::vector<Tunable> &tunables,
                                     const std::map<std::string, std::string> &defines);

/// The tuning key text of a launch: "n=1000, m=7" for `key(n, m)` (integers
/// in decimal, floats as std::to_string prints them).
std::string tuningKeyText(const std::vector<ParamInfo> &params,
                          const std::vector<size_t> &keyArgs, const std::vector<Arg> &args);

/// Everything a tuning choice depends on, as the Runtime passes it to
/// KernelCompiler::lookupTuning and storeTuning (the JIT compiler adds its
/// build id): the target, the kernel, its source, the load's options
/// (defines, warps, opt level), the tuned parameters' candidates and the key
/// text. `tilec tune` and `tilec aot` use it to write and find the entries
/// that the Runtime reads and writes.
std::vector<std::pair<std::string, std::string>>
tuningParts(const std::string &target, const std::string &kernel, const std::string &source,
            const CompileOptions &options, const std::vector<Tunable> &tuned,
            const std::string &keyText);

/// What the runtime loads of a GPU compile (its image: PTX or code object).
KernelBinary kernelBinary(GPUBinary gpu);

/// The compiler of this build with its disk cache (`cacheDir` empty: the
/// default location; see DiskCache.h). Warnings go to `warn`.
KernelCompiler jitCompiler(const std::string &cacheDir,
                           std::function<void(const std::string &)> warn);

struct RuntimeOptions {
  /// "auto" (CUDA, then HIP, then host), "cuda", "hip" or "host".
  std::string backend = "auto";
  int device = 0;
  /// Receives the autotuner's progress, one line at a time ("tuning scale
  /// [n=1000]: 4/15 configs compiled", "... BLOCK=256 num_warps=4 best
  /// (0.012 ms) of 15"); calls never overlap but may come from the compile
  /// threads. Empty: lines go to stderr when stderr is a terminal or
  /// TILEC_TUNE_LOG=1 (TILEC_TUNE_LOG=0: never), else nowhere.
  std::function<void(const std::string &)> tuneProgress;
  /// Timed launches per configuration while tuning (after one warm-up).
  unsigned tuneRepeats = 5;
  /// Threads compiling candidates; 0: hardware_concurrency.
  unsigned tuneThreads = 0;
  /// Launch kernels that call gdc_wait() with programmatic dependent launch
  /// (CUDA, sm_90+): each may start while the kernel before it on the stream
  /// finishes. false: every launch waits for the one before it (to rule the
  /// overlap out while debugging).
  bool overlapLaunches = true;
};

class Runtime;

/// A loaded kernel; owned by its Runtime.
class Kernel {
public:
  const std::string &name() const { return kernelName; }
  const std::vector<ParamInfo> &params() const { return signature; }
  /// Variants compiled or loaded so far.
  size_t numVariants() const;
  /// The tunable parameters the runtime tunes (those the load's defines do
  /// not fix); empty: no tuning.
  const std::vector<Tunable> &tunables() const { return tuned; }
  /// The configurations chosen so far, by tuning key text ("n=1000").
  std::map<std::string, TuneConfig> tunedConfigs() const;
  /// The compiler's remarks on the variants compiled or loaded so far, each
  /// once, in order: "FILE:LINE:COL: remark: kernel 'K' needs N bytes of
  /// shared memory ...; shrunk to fit: BLOCK 8192 -> 4096 (...)" when the
  /// compiler shrank tunable parameters to fit the target's budget.
  std::vector<std::string> remarks() const;

private:
  friend class Runtime;
  struct Variant;
  std::string source, fileName, kernelName;
  CompileOptions options;
  std::vector<ParamInfo> signature;
  std::map<std::string, std::unique_ptr<Variant>> variants;
  /// Tuning: the parameters tuned, the indices of the key arguments, and the
  /// choices made (by key text).
  std::vector<Tunable> tuned;
  /// Values of the tunable parameters that are not tuned (fixed by defines).
  TuneConfig fixed;
  std::vector<size_t> tuneKeyArgs;
  std::map<std::string, TuneConfig> choices;
  std::vector<std::string> compilerRemarks;
  mutable std::mutex mutex;
  /// Held while tuning, so that concurrent first launches tune once.
  std::mutex tuneMutex;
};

class Runtime {
public:
  /// Opens the backend `options` asks for. "auto" never fails: without a
  /// GPU it runs on the host CPU. Explicit "cuda"/"hip" fail with one line
  /// saying what was tried.
  static Result<std::unique_ptr<Runtime>> create(const RuntimeOptions &options,
                                                 KernelCompiler compiler);
  ~Runtime();

  Backend backend() const { return kind; }
  /// "host", "sm_90a", "gfx942", ...
  const std::string &target() const { return targetName; }
  const std::string &deviceName() const { return device; }

  /// Loads kernel `options.kernel` of `source` (the only one when empty)
  /// with its compile-time parameters; variants compile at first launch.
  Result<Kernel *> loadSource(const std::string &source, const std::string &fileName,
                              CompileOptions options);
  Result<Kernel *> loadFile(const std::string &path, CompileOptions options);

  /// Launches `kernel` over `grid` on `stream` (null: the default stream)
  /// and returns without waiting; the host backend runs to completion.
  /// A tunable kernel is tuned first (see above) when its key is new.
  std::string launch(Kernel *kernel, std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                     void *stream = nullptr);
  /// The same with a grid computed from the configuration (tuned or not).
  std::string launch(Kernel *kernel, const GridFn &grid, const std::vector<Arg> &args,
                     void *stream = nullptr);
  /// Replaces RuntimeOptions::tuneProgress.
  void setTuneProgress(std::function<void(const std::string &)> progress);
  /// Waits for the device.
  std::string synchronize();

  /// Device memory helpers (host backend: plain heap memory).
  std::string alloc(size_t bytes, void **out);
  std::string free(void *ptr);
  std::string copyToDevice(void *dst, const void *src, size_t bytes);
  std::string copyToHost(void *dst, const void *src, size_t bytes);

private:
  Runtime() = default;
  struct Drivers;
  std::string checkArgs(const Kernel &kernel, const std::vector<Arg> &args) const;
  std::string checkGrid(std::array<uint32_t, 3> grid) const;
  std::string variantKey(const Kernel &kernel, const std::vector<Arg> &args,
                         std::map<std::string, int64_t> &divisibility) const;
  std::string variant(Kernel &kernel, const TuneConfig &config,
                      const std::map<std::string, int64_t> &divisibility,
                      const std::string &specKey, Kernel::Variant *&out);
  std::string load(Kernel::Variant &v);
  std::string run(Kernel &kernel, const Kernel::Variant &v, std::array<uint32_t, 3> grid,
                  const std::vector<Arg> &args, void *stream);
  std::string tune(Kernel &kernel, const GridFn &grid, const std::vector<Arg> &args,
                   const std::map<std::string, int64_t> &divisibility,
                   const std::string &specKey, const std::string &keyText,
                   TuneConfig &chosen);
  void progress(const std::string &line);
  std::function<void(const std::string &)> tuneProgress;
  unsigned tuneRepeats = 5, tuneThreads = 0;
  bool overlapLaunches = true;
  Backend kind = Backend::Host;
  std::string targetName = "host", device = "host CPU";
  KernelCompiler compiler;
  std::unique_ptr<Drivers> drivers;
  std::array<uint32_t, 3> maxGrid = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
  std::vector<std::unique_ptr<Kernel>> kernels;
  std::mutex mutex;
};

} // namespace tile

#endif // TILE_RUNTIME_H
