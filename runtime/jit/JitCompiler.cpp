//===- JitCompiler.cpp - the runtime's compiler: this build of tilec ------===//
//
// Compiles variants with this build's compiler; GPU variants go through the
// disk cache, keyed by everything that determines the binary.
//
//===----------------------------------------------------------------------===//
#include "tile/DiskCache.h"
#include "tile/Runtime.h"

#include <mutex>
#include <sstream>

namespace tile {

namespace {


/// The cache key of one variant.
std::string variantKey(const std::string &source, const CompileOptions &options) {
  std::vector<std::pair<std::string, std::string>> parts = {
      {"build", compilerBuildId()},
      {"target", options.target},
      {"kernel", options.kernel},
      {"num_warps", std::to_string(options.numWarps)},
      {"opt", std::to_string(options.optLevel)},
      {"code_object", std::to_string(options.codeObjectVersion)},
      {"cubin", options.cubin ? "1" : "0"},
      {"occupancy", std::to_string(options.occupancy)}, // the shared memory budget
      {"max_registers", std::to_string(options.maxRegisters)},
      {"scalarize", options.scalarize ? "1" : "0"},
      {"programs_per_cta", std::to_string(options.programsPerCta)},
      {"source", source}};
  for (auto &[name, value] : options.defines)
    parts.push_back({"define:" + name, value});
  for (auto &[name, divisor] : options.divisibility)
    parts.push_back({"assume:" + name, std::to_string(divisor)});
  return cacheKey(parts);
}

/// The file name in a remark ("FILE:LINE:COL: remark: ...") is the one of the
/// compile that made the entry: an entry stores it as "@" and a lookup puts
/// back the name it was asked with (the key holds the source, not its name).
std::string serialize(const KernelBinary &b, const std::string &fileName) {
  std::ostringstream os;
  os << "kernel " << b.kernel << "\nthreads " << b.threads << "\nshared_bytes " << b.sharedBytes
     << "\n";
  if (b.waitsOnPriorGrid)
    os << "prior_grid_wait 1\n";
  if (b.programsPerCta > 1)
    os << "programs_per_cta " << b.programsPerCta << "\n";
  for (auto &p : b.params)
    os << "param " << p.name << " " << int(p.kind) << " " << (p.isPointer ? 1 : 0) << "\n";
  for (auto &[name, value] : b.config)
    os << "tunable " << name << " " << value << "\n";
  for (const std::string &remark : b.remarks) {
    if (remark.find('\n') != std::string::npos)
      continue; // one line each
    bool located = !fileName.empty() && remark.rfind(fileName + ":", 0) == 0;
    os << "remark " << (located ? "@" + remark.substr(fileName.size()) : "=" + remark) << "\n";
  }
  return os.str();
}

/// Reads what serialize() wrote; false on anything unexpected.
bool deserialize(const CacheEntry &entry, const std::string &fileName, KernelBinary &b) {
  std::istringstream is(entry.metadata);
  std::string key;
  while (is >> key) {
    if (key == "kernel") {
      is >> b.kernel;
    } else if (key == "threads") {
      is >> b.threads;
    } else if (key == "shared_bytes") {
      is >> b.sharedBytes;
    } else if (key == "prior_grid_wait") {
      is >> b.waitsOnPriorGrid;
    } else if (key == "programs_per_cta") {
      is >> b.programsPerCta;
    } else if (key == "param") {
      ParamInfo p;
      int kind = -1, isPointer = 0;
      is >> p.name >> kind >> isPointer;
      if (kind < 0 || kind > int(ScalarKind::I64))
        return false;
      p.kind = ScalarKind(kind);
      p.isPointer = isPointer != 0;
      b.params.push_back(p);
    } else if (key == "tunable") {
      std::string name;
      is >> name >> b.config[name];
    } else if (key == "remark") {
      std::string text;
      std::getline(is, text);
      if (text.size() < 2 || (text[1] != '@' && text[1] != '='))
        return false;
      b.remarks.push_back(text[1] == '@' ? fileName + text.substr(2) : text.substr(2));
    } else {
      return false;
    }
    if (!is)
      return false;
  }
  b.image = entry.binary;
  return !b.kernel.empty() && b.threads > 0 && b.programsPerCta > 0 && !b.image.empty();
}

} // namespace

KernelBinary kernelBinary(GPUBinary gpu) {
  KernelBinary b;
  b.kernel = std::move(gpu.kernel);
  b.params = std::move(gpu.params);
  b.image = gpu.binary.empty() ? std::move(gpu.ptx) : std::move(gpu.binary);
  b.threads = gpu.threads;
  b.programsPerCta = gpu.programsPerCta;
  b.sharedBytes = gpu.sharedBytes;
  b.waitsOnPriorGrid = gpu.waitsOnPriorGrid;
  b.config = std::move(gpu.config);
  b.remarks = std::move(gpu.remarks);
  b.phaseMs = std::move(gpu.phaseMs);
  return b;
}

KernelCompiler jitCompiler(const std::string &cacheDir,
                           std::function<void(const std::string &)> warn) {
  struct Shared {
    explicit Shared(DiskCache cache) : cache(std::move(cache)) {}
    std::mutex mutex;
    DiskCache cache;
  };
  auto shared =
      std::make_shared<Shared>(DiskCache::open(cacheDir, compilerBuildId(), 0, std::move(warn)));
  KernelCompiler c;
  c.signature = [](const std::string &source, const std::string &fileName,
                   const CompileOptions &options) {
    return tile::signature(source, fileName, options);
  };
  c.compile = [shared](const std::string &source, const std::string &fileName,
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
    std::string key = variantKey(source, options);
    {
      std::lock_guard<std::mutex> lock(shared->mutex);
      if (auto entry = shared->cache.lookup(key))
        if (deserialize(*entry, fileName, binary))
          return binary;
    }
    auto gpu = compileForGPU(source, fileName, options);
    if (!gpu)
      return Result<KernelBinary>::failure(gpu.message());
    binary = kernelBinary(std::move(*gpu));
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->cache.store(key, {serialize(binary, fileName), binary.image});
    return binary;
  };
  // A tuning result is a small entry: its metadata's first line says what it
  // is (`tilec cache list`), its binary is the configuration's text.
  auto tuningKey = [](std::vector<std::pair<std::string, std::string>> parts) {
    parts.push_back({"build", compilerBuildId()});
    return cacheKey(parts);
  };
  c.lookupTuning = [shared, tuningKey](const std::vector<std::pair<std::string, std::string>>
                                           &parts) -> std::optional<std::string> {
    std::string key = tuningKey(parts);
    std::lock_guard<std::mutex> lock(shared->mutex);
    auto entry = shared->cache.lookup(key);
    if (!entry || entry->metadata.rfind("tuned ", 0) != 0)
      return std::nullopt;
    return entry->binary;
  };
  c.storeTuning = [shared, tuningKey](const std::vector<std::pair<std::string, std::string>> &parts,
                                      const std::string &config) {
    std::string kernel, key;
    for (auto &[name, value] : parts) {
      if (name == "kernel")
        kernel = value;
      else if (name == "key")
        key = value;
    }
    std::string metadata = "tuned " + kernel + (key.empty() ? "" : " [" + key + "]") + ": " +
                           config + "\n";
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->cache.store(tuningKey(parts), {metadata, config});
  };
  return c;
}

} // namespace tile
