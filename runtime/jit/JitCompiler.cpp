//===- JitCompiler.cpp - the runtime's compiler: this build of tilec ------===//
#include "tile/Runtime.h"

namespace tile {

KernelCompiler jitCompiler(const std::string &cacheDir,
                           std::function<void(const std::string &)> warn) {
  (void)cacheDir;
  (void)warn;
  KernelCompiler c;
  c.signature = [](const std::string &source, const std::string &fileName,
                   const CompileOptions &options) {
    return tile::signature(source, fileName, options);
  };
  c.compile = [](const std::string &source, const std::string &fileName,
                 const CompileOptions &options) -> Result<KernelBinary> {
    KernelBinary binary;
    if (options.target == "host") {
      auto host = compileForHost(source, fileName, options);
      if (!host)
        return Result<KernelBinary>::failure(host.message());
      std::shared_ptr<HostKernel> kernel = *host;
      binary.kernel = kernel->name();
      binary.params = kernel->params();
      binary.hostLaunch = [kernel](std::array<uint32_t, 3> grid, const std::vector<Arg> &args) {
        return kernel->launch(grid, args);
      };
      return binary;
    }
    auto gpu = compileForGPU(source, fileName, options);
    if (!gpu)
      return Result<KernelBinary>::failure(gpu.message());
    binary.kernel = gpu->kernel;
    binary.params = gpu->params;
    binary.image = gpu->binary.empty() ? gpu->ptx : gpu->binary;
    binary.threads = gpu->threads;
    binary.sharedBytes = gpu->sharedBytes;
    return binary;
  };
  return c;
}

} // namespace tile
