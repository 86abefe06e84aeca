//===- Runtime.h - launch tile kernels from a host application --*- C++ -*-===//
//
// A Runtime finds a device (CUDA, then HIP, then the host CPU), loads kernels
// from .tile sources and launches them with typed arguments. Each launch picks
// the kernel variant specialised for its arguments (pointers aligned to 16
// bytes, integers divisible by 16), compiling it on first use; variants are
// kept in memory and, through the KernelCompiler, in the disk cache.
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

namespace tile {

enum class Backend { Host, Cuda, Hip };

/// One compiled variant as the runtime loads it.
struct KernelBinary {
  std::string kernel;
  std::vector<ParamInfo> params;
  /// PTX or cubin (CUDA), a code object (HIP); empty for the host.
  std::string image;
  unsigned threads = 0;
  int64_t sharedBytes = 0;
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
};

/// The compiler of this build with its disk cache (`cacheDir` empty: the
/// default location; see DiskCache.h). Warnings go to `warn`.
KernelCompiler jitCompiler(const std::string &cacheDir,
                           std::function<void(const std::string &)> warn);

struct RuntimeOptions {
  /// "auto" (CUDA, then HIP, then host), "cuda", "hip" or "host".
  std::string backend = "auto";
  int device = 0;
};

class Runtime;

/// A loaded kernel; owned by its Runtime.
class Kernel {
public:
  const std::string &name() const { return kernelName; }
  const std::vector<ParamInfo> &params() const { return signature; }
  /// Variants compiled or loaded so far.
  size_t numVariants() const;

private:
  friend class Runtime;
  struct Variant;
  std::string source, fileName, kernelName;
  CompileOptions options;
  std::vector<ParamInfo> signature;
  std::map<std::string, std::unique_ptr<Variant>> variants;
  mutable std::mutex mutex;
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
  std::string launch(Kernel *kernel, std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                     void *stream = nullptr);
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
  std::string checkArgs(const Kernel &kernel, std::array<uint32_t, 3> grid,
                        const std::vector<Arg> &args) const;
  std::string variantKey(const Kernel &kernel, const std::vector<Arg> &args,
                         std::map<std::string, int64_t> &divisibility) const;
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
