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

/// The value of part `name` in a tuning lookup's parts ("" when absent).
std::string part(const std::vector<std::pair<std::string, std::string>> &parts,
                 const std::string &name) {
  for (auto &[n, v] : parts)
    if (n == name)
      return v;
  return "";
}
} // namespace

KernelCompiler embeddedCompiler(Signature signature, const Image *images, size_t count,
                                const Tuned *tuned, size_t tunedCount) {
  KernelCompiler c;
  c.signature = [signature](const std::string &, const std::string &, const CompileOptions &) {
    return Result<Signature>(signature);
  };
  c.compile = [signature, images, count](const std::string &, const std::string &,
                                         const CompileOptions &options) -> Result<KernelBinary> {
    // The configuration asked for: the tunables' values among the defines.
    std::string config;
    if (!signature.tunables.empty()) {
      TuneConfig values;
      for (const Tunable &t : signature.tunables) {
        auto it = options.defines.find(t.name);
        values[t.name] = it == options.defines.end() ? t.value : it->second;
      }
      config = configText(signature.tunables, values);
    }
    const Image *best = nullptr;
    size_t bestAssumptions = 0;
    std::string targets;
    for (size_t i = 0; i < count; ++i) {
      const Image &image = images[i];
      if (targets.find(image.target) == std::string::npos)
        targets += (targets.empty() ? "" : ", ") + std::string(image.target);
      if (options.target != image.target)
        continue;
      if (!signature.tunables.empty() && config != (image.config ? image.config : ""))
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
    if (!best && targets.find(options.target) != std::string::npos && !config.empty())
      return Result<KernelBinary>::failure("kernel '" + signature.kernel + "' was not built with " +
                                           config + " for " + options.target);
    if (!best)
      return Result<KernelBinary>::failure("kernel '" + signature.kernel + "' was not built for " +
                                           options.target + " (built for: " + targets + ")");
    KernelBinary b;
    b.kernel = signature.kernel;
    b.params = signature.params;
    b.image.assign(reinterpret_cast<const char *>(best->data), best->size);
    b.threads = best->threads;
    b.waitsOnPriorGrid = best->waitsOnPriorGrid;
    b.programsPerCta = best->programsPerCta;
    return b;
  };
  if (signature.tunables.empty())
    return c;
  // Dispatch on the tuning key: the configuration tuned for this target and
  // key, else the target's defaults (as built), else the declared defaults.
  // The Runtime asks once per key and remembers.
  std::vector<Tuned> table(tuned, tuned + tunedCount);
  TuneConfig defaults;
  for (const Tunable &t : signature.tunables)
    defaults[t.name] = t.value;
  std::string fallback = configText(signature.tunables, defaults);
  c.lookupTuning = [table, fallback](const std::vector<std::pair<std::string, std::string>>
                                         &parts) -> std::optional<std::string> {
    std::string target = part(parts, "target"), key = part(parts, "key");
    std::string other = fallback;
    for (const Tuned &t : table) {
      if (target != t.target)
        continue;
      if (!t.key)
        other = t.config;
      else if (key == t.key)
        return std::string(t.config);
    }
    return other;
  };
  return c;
}

} // namespace tile::aot
