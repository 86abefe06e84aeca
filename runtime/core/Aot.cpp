//===- Aot.cpp - kernels compiled ahead of time, served to the runtime ----===//
#include "tile/Aot.h"

#include <sstream>

namespace tile::aot {

namespace {
/// "x=16,N=16" -> {x: 16, N: 16}.
std::map<std::string, int64_t> parseAssumptions(const std::string &text) {
  std::map<std::string, int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t eq = item.find('=');
    if (eq != std::string::npos)
      out[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
  }
  return out;
}
} // namespace

KernelCompiler embeddedCompiler(Signature signature, const Image *images, size_t count) {
  KernelCompiler c;
  c.signature = [signature](const std::string &, const std::string &, const CompileOptions &) {
    return Result<Signature>(signature);
  };
  c.compile = [signature, images, count](const std::string &, const std::string &,
                                         const CompileOptions &options) -> Result<KernelBinary> {
    const Image *best = nullptr;
    size_t bestAssumptions = 0;
    std::string targets;
    for (size_t i = 0; i < count; ++i) {
      const Image &image = images[i];
      if (targets.find(image.target) == std::string::npos)
        targets += (targets.empty() ? "" : ", ") + std::string(image.target);
      if (options.target != image.target)
        continue;
      auto assumed = parseAssumptions(image.assumptions);
      bool holds = true;
      for (auto &[name, divisor] : assumed) {
        auto it = options.divisibility.find(name);
        // A divisor of 1 means "equals 1": only a launch with the value 1 matches.
        holds &= it != options.divisibility.end() &&
                 (divisor == 1 ? it->second == 1 : it->second % divisor == 0);
      }
      if (holds && (!best || assumed.size() > bestAssumptions)) {
        best = &image;
        bestAssumptions = assumed.size();
      }
    }
    if (!best)
      return Result<KernelBinary>::failure("kernel '" + signature.kernel + "' was not built for " +
                                           options.target + " (built for: " + targets + ")");
    KernelBinary b;
    b.kernel = signature.kernel;
    b.params = signature.params;
    b.image.assign(reinterpret_cast<const char *>(best->data), best->size);
    b.threads = best->threads;
    return b;
  };
  return c;
}

} // namespace tile::aot
