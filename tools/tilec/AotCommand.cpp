//===- AotCommand.cpp - tilec aot: C++ sources with embedded kernels ------===//
#include "Tilec.h"

#include "tile/DiskCache.h"
#include "tile/Runtime.h"
#include "tile/Tile.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace {

const char *kindName(tile::ScalarKind k) {
  static const char *names[] = {"F32", "F16", "BF16", "F8E4M3", "F8E5M2", "I1",
                                "I8",  "U8",  "I16",  "I32",    "I64"};
  return names[int(k)];
}

/// The C++ type a launcher takes for a parameter, or "" if AOT cannot pass it.
std::string cppType(const tile::ParamInfo &p) {
  if (p.isPointer)
    return "const void *";
  switch (p.kind) {
  case tile::ScalarKind::F32: return "float";
  case tile::ScalarKind::I1: return "bool";
  case tile::ScalarKind::I8: return "int8_t";
  case tile::ScalarKind::U8: return "uint8_t";
  case tile::ScalarKind::I16: return "int16_t";
  case tile::ScalarKind::I32: return "int32_t";
  case tile::ScalarKind::I64: return "int64_t";
  default: return "";
  }
}

std::string argExpr(const tile::ParamInfo &p) {
  if (p.isPointer)
    return "tile::Arg::pointer(" + p.name + ")";
  if (p.kind == tile::ScalarKind::F32)
    return "tile::Arg::real(" + p.name + ")";
  return "tile::Arg::integer(" + p.name + ")";
}

std::string bytesLiteral(const std::string &data) {
  std::string out;
  for (size_t i = 0; i < data.size(); ++i) {
    out += fmt::format("{}{}", unsigned((unsigned char)data[i]), i + 1 < data.size() ? "," : "");
    if (i % 24 == 23)
      out += "\n";
  }
  return out;
}

struct Built {
  std::string target, assumptions, image;
  unsigned threads;
  /// The tunable parameters' values it was built with (GPUBinary::config).
  tile::TuneConfig config;
  bool waitsOnPriorGrid;
  unsigned programsPerCta;
};

/// One tuned configuration to embed.
struct TunedEntry {
  std::string target, key, config;
};

std::string cString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

/// Reads a tuned-configs file: `KERNEL TARGET [KEY] CONFIG` lines (what
/// `tilec tune` prints), '#' comments, blank lines. Keeps the lines of
/// `kernel` for `targets`, checked against `tuned`; later lines win.
std::string readTunedFile(const std::string &path, const std::string &kernel,
                          const std::vector<std::string> &targets,
                          const std::vector<tile::Tunable> &tuned,
                          std::map<std::pair<std::string, std::string>, std::string> &out) {
  std::ifstream in(path);
  if (!in)
    return "cannot read '" + path + "'";
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string where = path + ":" + std::to_string(number) + ": ";
    if (size_t hash = line.find('#'); hash != std::string::npos)
      line.erase(hash);
    std::istringstream is(line);
    std::string name, target;
    if (!(is >> name))
      continue;
    size_t open = line.find('['), close = line.find(']');
    if (!(is >> target) || open == std::string::npos || close == std::string::npos ||
        close < open)
      return where + "expected KERNEL TARGET [KEY] CONFIG";
    std::string key = line.substr(open + 1, close - open - 1);
    std::string config = line.substr(close + 1);
    config.erase(0, config.find_first_not_of(" \t"));
    config.erase(config.find_last_not_of(" \t\r") + 1);
    if (name != kernel ||
        std::find(targets.begin(), targets.end(), target) == targets.end())
      continue;
    tile::TuneConfig parsed;
    if (!tile::parseConfig(config, tuned, parsed))
      return where + "'" + config + "' is not a configuration of '" + kernel +
             "' (one candidate of each tuned parameter: " +
             [&] {
               std::string text;
               for (auto &t : tuned)
                 text += (text.empty() ? "" : ", ") + t.name;
               return text;
             }() +
             ")";
    out[{target, key}] = tile::configText(tuned, parsed);
  }
  return "";
}

/// The choices of the disk cache for `kernel` on `targets`: the keys its
/// tuning entries name, each looked up under the exact parts the Runtime
/// uses (so that only entries of this source, defines and warps match).
void readCache(const tilec::AotTuning &tuning, const std::string &kernel,
               const std::string &source, const tile::CompileOptions &options,
               const std::vector<std::string> &targets, const std::vector<tile::Tunable> &tuned,
               std::map<std::pair<std::string, std::string>, std::string> &out) {
  auto warn = [](const std::string &w) { fmt::print(stderr, "tilec: warning: {}\n", w); };
  tile::DiskCache cache = tile::DiskCache::open(tuning.cacheDir, tile::compilerBuildId(), 0, warn);
  std::set<std::string> keys;
  std::string prefix = "tuned " + kernel;
  for (const tile::DiskCache::Item &item : cache.list()) {
    const std::string &s = item.summary;
    if (s.rfind(prefix, 0) != 0)
      continue;
    std::string rest = s.substr(prefix.size());
    if (rest.rfind(":", 0) == 0)
      keys.insert("");
    else if (rest.rfind(" [", 0) == 0 && rest.find("]:") != std::string::npos)
      keys.insert(rest.substr(2, rest.find("]:") - 2));
  }
  tile::KernelCompiler compiler = tile::jitCompiler(tuning.cacheDir, warn);
  for (const std::string &target : targets)
    for (const std::string &key : keys) {
      if (out.count({target, key}))
        continue;
      auto text = compiler.lookupTuning(
          tile::tuningParts(target, kernel, source, options, tuned, key));
      tile::TuneConfig parsed;
      if (text && tile::parseConfig(*text, tuned, parsed))
        out[{target, key}] = tile::configText(tuned, parsed);
    }
}

} // namespace

int tilec::runAot(const std::string &file, const std::string &source, tile::CompileOptions options,
                  const std::vector<std::string> &targets, const std::vector<std::string> &variants,
                  const std::string &outDir, const AotTuning &tuning) {
  // The tunables left open and the choices to embed for them.
  tile::CompileOptions sigOptions = options;
  sigOptions.target = targets.front();
  auto sig = tile::signature(source, file, sigOptions);
  if (!sig) {
    printDiagnostics(sig.message());
    return kCompileError;
  }
  std::vector<tile::Tunable> tuned = tile::tunedParameters(sig->tunables, options.defines);
  std::map<std::pair<std::string, std::string>, std::string> choices;
  if (tuned.empty() && !tuning.file.empty())
    fmt::print(stderr, "tilec: note: --tuned {} is not used: '{}' has no tunable parameter{}\n",
               tuning.file, sig->kernel, sig->tunables.empty() ? "" : " that -D leaves open");
  if (!tuned.empty()) {
    if (!tuning.file.empty())
      if (std::string err = readTunedFile(tuning.file, sig->kernel, targets, tuned, choices);
          !err.empty()) {
        fmt::print(stderr, "tilec: error: --tuned {}\n", err);
        return kUsageError;
      }
    if (!tuning.noCache)
      readCache(tuning, sig->kernel, source, options, targets, tuned, choices);
  }
  tile::TuneConfig defaults;
  for (const tile::Tunable &t : tuned)
    defaults[t.name] = t.value;
  std::string defaultConfig = tile::configText(tuned, defaults);
  std::vector<TunedEntry> entries;
  for (const std::string &target : targets) // in --target order, then by key
    for (auto &[where, config] : choices)
      if (where.first == target)
        entries.push_back({target, where.second, config});

  std::vector<Built> built;
  tile::Signature signature;
  std::set<std::string> remarked; // each remark once, not once per variant
  // The configuration the defaults were built with on each target: the
  // defaults, or what they were shrunk to to fit the shared memory budget.
  std::map<std::string, std::string> targetDefaults;
  for (const std::string &target : targets) {
    // The defaults first, then every configuration tuned for this target,
    // each as a generic build and one build per variant. The first build
    // leaves the tuned parameters free to shrink to fit the shared memory
    // budget; the defaults' variants use the values it was built with.
    // (configuration, variant); "" is the defaults, free to shrink.
    std::vector<std::pair<std::string, std::string>> builds = {{"", ""}};
    for (size_t i = 0; i < builds.size(); ++i) {
      auto [config, variant] = builds[i];
      tile::CompileOptions o = options;
      o.target = target;
      tile::TuneConfig values;
      if (!config.empty() && tile::parseConfig(config, tuned, values))
        for (auto &[name, value] : values)
          o.defines[name] = value;
      std::stringstream ss(variant);
      std::string item;
      while (std::getline(ss, item, ',')) {
        size_t eq = item.find('=');
        long long div = eq == std::string::npos ? 0 : std::atoll(item.c_str() + eq + 1);
        if (div <= 0) {
          fmt::print(stderr, "tilec: error: --variant {}: expected NAME=DIV[,NAME=DIV...]\n",
                     variant);
          return kUsageError;
        }
        o.divisibility[item.substr(0, eq)] = div;
      }
      auto binary = tile::compileForGPU(source, file, o);
      if (!binary) {
        printDiagnostics(binary.message());
        return kCompileError;
      }
      for (const std::string &remark : binary->remarks)
        if (remarked.insert(remark).second)
          fmt::print(stderr, "{}\n", remark);
      signature = {binary->kernel, binary->params};
      // PTX text for NVIDIA targets, the code object for AMD ones.
      built.push_back({target, variant, binary->binary.empty() ? binary->ptx : binary->binary,
                       binary->threads, binary->config, binary->waitsOnPriorGrid,
                       binary->programsPerCta});
      if (i)
        continue;
      std::vector<std::string> configs = {targetDefaults[target] =
                                              tile::configText(tuned, binary->config)};
      for (const TunedEntry &e : entries)
        if (e.target == target &&
            std::find(configs.begin(), configs.end(), e.config) == configs.end())
          configs.push_back(e.config);
      for (size_t c = 0; c < configs.size(); ++c) {
        if (c)
          builds.push_back({configs[c], ""});
        for (const std::string &v : variants)
          builds.push_back({configs[c], v});
      }
    }
  }
  // What keys without a tuned configuration run: "BLOCK=256", or one
  // configuration per target when the budget shrank them differently.
  std::string otherKeys = targetDefaults[targets.front()];
  if (std::any_of(targets.begin(), targets.end(),
                  [&](const std::string &t) { return targetDefaults[t] != otherKeys; })) {
    otherKeys.clear();
    for (const std::string &t : targets)
      otherKeys += (otherKeys.empty() ? "" : ", ") + targetDefaults[t] + " on " + t;
  }
  if (!tuned.empty() && entries.empty())
    fmt::print(stderr,
               "tilec: note: no tuned configuration of '{}' for {} (`tilec tune` stores them, "
               "--tuned FILE reads them): the launcher uses {}\n",
               sig->kernel, options.target, otherKeys);
  // The targets whose defaults were shrunk: their images of the defaults
  // are the ones their untuned keys run.
  std::vector<std::string> shrunk;
  for (const std::string &target : targets)
    if (targetDefaults[target] != defaultConfig)
      shrunk.push_back(target);
  if (entries.empty() && shrunk.empty())
    tuned.clear(); // nothing to dispatch on: the defaults only, as without tunables
  // The signature the launcher's runtime sees: the tuned parameters with the
  // values their images use as candidates, and the key.
  for (tile::Tunable t : tuned) {
    std::set<std::string> used = {t.value};
    for (const Built &b : built)
      used.insert(b.config.at(t.name));
    std::vector<std::string> candidates;
    for (const std::string &c : t.candidates)
      if (used.erase(c))
        candidates.push_back(c);
    // Then the values that are no candidate (a default, or what it shrank to).
    candidates.insert(candidates.end(), used.begin(), used.end());
    t.candidates = candidates;
    signature.tunables.push_back(t);
  }
  if (!tuned.empty())
    signature.tuneKey = sig->tuneKey;
  for (auto &p : signature.params) {
    if (cppType(p).empty()) {
      fmt::print(stderr,
                 "tilec: error: aot launchers take f32, integer and pointer parameters; '{}' is "
                 "a {} scalar\n",
                 p.name, kindName(p.kind));
      return kUsageError;
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(outDir, ec);
  const std::string &k = signature.kernel;
  std::string params;
  for (auto &p : signature.params)
    params += ", " + cppType(p) + (p.isPointer ? "" : " ") + p.name;
  std::string defines;
  for (auto &[name, value] : options.defines)
    defines += (defines.empty() ? "" : ", ") + name + "=" + value;

  std::ofstream header(outDir + "/" + k + ".h");
  header << "// Generated by `tilec aot` from " << file << "; do not edit.\n"
         << "#pragma once\n\n#include \"tile/Runtime.h\"\n\n#include <array>\n#include <cstdint>\n#include <string>\n\n"
         << "namespace tile_aot {\n\n"
         << "/// Launches " << k << (defines.empty() ? "" : " (" + defines + ")")
         << " on the first CUDA or HIP device\n/// and returns \"\" or the error.\n"
         << "std::string " << k << "(std::array<uint32_t, 3> grid" << params
         << ", void *stream = nullptr);\n\n";
  if (!tuned.empty()) {
    std::string keyNames;
    for (auto &name : signature.tuneKey)
      keyNames += (keyNames.empty() ? "" : ", ") + name;
    header << "/// The same with the grid a function of the configuration the launch runs\n";
    if (entries.empty())
      header << "/// with: " << otherKeys << " (the defaults, shrunk to fit shared memory).\n";
    else
      header << "/// with. Tuned (dispatch on " << (keyNames.empty() ? "no key" : keyNames)
             << "; other keys run " << otherKeys << "):\n";
    for (const TunedEntry &e : entries)
      header << "///   " << e.target << " [" << e.key << "]: " << e.config << "\n";
    header << "std::string " << k << "(const tile::GridFn &grid" << params
           << ", void *stream = nullptr);\n\n";
  }
  header << "/// The device the launcher uses, or the error that prevents it.\n"
         << "std::string " << k << "_device();\n\n"
         << "/// The runtime the launcher uses (device memory, synchronisation), or null.\n"
         << "tile::Runtime *" << k << "_runtime();\n\n} // namespace tile_aot\n";

  std::ofstream src(outDir + "/" + k + ".cpp");
  src << "// Generated by `tilec aot` from " << file << "; do not edit.\n"
      << "#include \"" << k << ".h\"\n\n#include \"tile/Aot.h\"\n\nnamespace {\n\n";
  // Each image's configuration: the values it was built with.
  std::vector<std::string> imageConfigs;
  for (const Built &b : built)
    imageConfigs.push_back(tile::configText(tuned, b.config));
  for (size_t i = 0; i < built.size(); ++i)
    src << "// " << built[i].target << (built[i].assumptions.empty() ? ", generic" : ", " + built[i].assumptions)
        << (imageConfigs[i].empty() ? "" : ", " + imageConfigs[i])
        << "\nconst unsigned char kImage" << i << "[] = {\n" << bytesLiteral(built[i].image + '\0')
        << "};\n\n";
  src << "const tile::aot::Image kImages[] = {\n";
  for (size_t i = 0; i < built.size(); ++i) {
    // Trailing fields at their defaults are left out.
    bool packed = built[i].programsPerCta > 1;
    bool waits = built[i].waitsOnPriorGrid || packed;
    src << "    {\"" << built[i].target << "\", \"" << built[i].assumptions << "\", kImage" << i
        << ", sizeof(kImage" << i << ") - 1, " << built[i].threads
        << (!imageConfigs[i].empty() ? ", " + cString(imageConfigs[i]) : waits ? ", nullptr" : "")
        << (waits ? built[i].waitsOnPriorGrid ? ", true" : ", false" : "")
        << (packed ? ", " + std::to_string(built[i].programsPerCta) : "") << "},\n";
  }
  src << "};\n\n";
  if (!tuned.empty()) {
    src << "const tile::aot::Tuned kTuned[] = {\n";
    for (const TunedEntry &e : entries)
      src << "    {" << cString(e.target) << ", " << cString(e.key) << ", " << cString(e.config)
          << "},\n";
    for (const std::string &target : shrunk)
      src << "    {" << cString(target) << ", nullptr, " << cString(targetDefaults[target])
          << "},\n";
    src << "};\n\n";
  }
  src << "struct State {\n  std::unique_ptr<tile::Runtime> runtime;\n"
      << "  tile::Kernel *kernel = nullptr;\n  std::string error;\n};\n\n"
      << "State &state() {\n  static State s = [] {\n    State s;\n"
      << "    tile::Signature signature{\"" << k << "\", {\n";
  for (auto &p : signature.params)
    src << "        {\"" << p.name << "\", tile::ScalarKind::" << kindName(p.kind) << ", "
        << (p.isPointer ? "true" : "false") << "},\n";
  src << "    }";
  if (!tuned.empty()) {
    src << ", {\n";
    for (const tile::Tunable &t : signature.tunables) {
      src << "        {" << cString(t.name) << ", " << cString(t.value) << ", {";
      for (size_t i = 0; i < t.candidates.size(); ++i)
        src << (i ? ", " : "") << cString(t.candidates[i]);
      src << "}},\n";
    }
    src << "    }, {";
    for (size_t i = 0; i < signature.tuneKey.size(); ++i)
      src << (i ? ", " : "") << cString(signature.tuneKey[i]);
    src << "}";
  }
  src << "};\n"
      << "    auto runtime = tile::Runtime::create(\n"
      << "        {}, tile::aot::embeddedCompiler(signature, kImages, sizeof(kImages) / sizeof(kImages[0])"
      << (tuned.empty() ? "" : ",\n                                        kTuned, sizeof(kTuned) / sizeof(kTuned[0])")
      << "));\n"
      << "    if (!runtime) {\n      s.error = runtime.message();\n      return s;\n    }\n"
      << "    s.runtime = std::move(*runtime);\n"
      << "    auto kernel = s.runtime->loadSource(\"\", \"" << k << "\", {});\n"
      << "    if (!kernel)\n      s.error = kernel.message();\n    else\n      s.kernel = *kernel;\n"
      << "    return s;\n  }();\n  return s;\n}\n\n} // namespace\n\n"
      ;
  std::string argList;
  for (size_t i = 0; i < signature.params.size(); ++i)
    argList += (i ? ", " : "") + argExpr(signature.params[i]);
  for (const char *gridType : {"std::array<uint32_t, 3> ", "const tile::GridFn &"}) {
    if (tuned.empty() && std::string(gridType)[0] == 'c')
      continue;
    src << "std::string tile_aot::" << k << "(" << gridType << "grid" << params
        << ", void *stream) {\n  State &s = state();\n  if (!s.error.empty())\n    return s.error;\n"
        << "  return s.runtime->launch(s.kernel, grid, {" << argList << "}, stream);\n}\n\n";
  }
  src << "std::string tile_aot::" << k << "_device() {\n  State &s = state();\n"
      << "  return s.error.empty() ? s.runtime->deviceName() + \" (\" + s.runtime->target() + \")\" : s.error;\n}\n\n"
      << "tile::Runtime *tile_aot::" << k << "_runtime() { return state().runtime.get(); }\n";
  if (!header || !src) {
    fmt::print(stderr, "tilec: error: cannot write into '{}'\n", outDir);
    return kUsageError;
  }
  fmt::print("wrote {0}/{1}.h and {0}/{1}.cpp ({2} images{3})\n", outDir, k, built.size(),
             entries.empty() ? ""
                             : fmt::format(", {} tuned configuration{}", entries.size(),
                                           entries.size() == 1 ? "" : "s"));
  return kOk;
}
