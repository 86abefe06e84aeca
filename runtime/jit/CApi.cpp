//===- CApi.cpp - C API over tile::Runtime --------------------------------===//
#include "tile/tile.h"

#include "tile/Runtime.h"

#include <cstring>
#include <mutex>
#include <vector>

struct tile_kernel {
  tile::Kernel *kernel;
};

/// Owns the runtime and the handles tile_kernel_load gave out: both live until
/// tile_runtime_destroy.
struct tile_runtime {
  std::unique_ptr<tile::Runtime> runtime;
  std::mutex mutex;
  std::vector<std::unique_ptr<tile_kernel>> kernels;
};

namespace {
int fail(const std::string &message, char *error, size_t size) {
  if (error && size) {
    size_t n = std::min(size - 1, message.size());
    std::memcpy(error, message.data(), n);
    error[n] = '\0';
  }
  return -1;
}
} // namespace

extern "C" {

int tile_runtime_create(const char *backend, const char *cacheDir, tile_runtime **out,
                        char *error, size_t errorSize) {
  if (!out)
    return fail("tile_runtime_create: out is null", error, errorSize);
  *out = nullptr;
  tile::RuntimeOptions options;
  if (backend)
    options.backend = backend;
  auto rt = tile::Runtime::create(options, tile::jitCompiler(cacheDir ? cacheDir : "", nullptr));
  if (!rt)
    return fail(rt.message(), error, errorSize);
  *out = new tile_runtime{std::move(*rt)};
  return 0;
}

void tile_runtime_destroy(tile_runtime *runtime) { delete runtime; }

const char *tile_runtime_target(const tile_runtime *runtime) {
  return runtime ? runtime->runtime->target().c_str() : "";
}

int tile_kernel_load(tile_runtime *runtime, const char *source, const char *fileName,
                     const char *kernel, const char *const *defines, size_t numDefines,
                     tile_kernel **out, char *error, size_t errorSize) {
  if (!runtime || !source || !out)
    return fail("tile_kernel_load: runtime, source and out must not be null", error, errorSize);
  *out = nullptr;
  tile::CompileOptions options;
  if (kernel)
    options.kernel = kernel;
  for (size_t i = 0; i < numDefines; ++i) {
    const char *eq = defines && defines[i] ? std::strchr(defines[i], '=') : nullptr;
    if (!eq || eq == defines[i])
      return fail("tile_kernel_load: define " + std::to_string(i) + " is not NAME=VALUE", error,
                  errorSize);
    options.defines[std::string(defines[i], eq)] = eq + 1;
  }
  auto k = runtime->runtime->loadSource(source, fileName ? fileName : "<source>", options);
  if (!k)
    return fail(k.message(), error, errorSize);
  std::lock_guard<std::mutex> lock(runtime->mutex);
  runtime->kernels.push_back(std::make_unique<tile_kernel>(tile_kernel{*k}));
  *out = runtime->kernels.back().get();
  return 0;
}

int tile_launch(tile_runtime *runtime, tile_kernel *kernel, const uint32_t grid[3],
                const tile_arg *args, size_t numArgs, void *stream, char *error,
                size_t errorSize) {
  if (!runtime || !kernel || !grid || (numArgs && !args))
    return fail("tile_launch: runtime, kernel, grid and args must not be null", error, errorSize);
  std::vector<tile::Arg> values;
  for (size_t i = 0; i < numArgs; ++i) {
    const tile_arg &a = args[i];
    // A C caller may store any integer in `kind`; in C++ reading a value
    // outside the enumerators' range as tile_arg_kind is undefined, so the
    // raw integer is read and checked first.
    int kind;
    static_assert(sizeof kind == sizeof a.kind);
    std::memcpy(&kind, &a.kind, sizeof kind);
    if (kind == TILE_ARG_POINTER)
      values.push_back(tile::Arg::pointer(a.ptr));
    else if (kind == TILE_ARG_INT)
      values.push_back(tile::Arg::integer(a.i));
    else if (kind == TILE_ARG_FLOAT)
      values.push_back(tile::Arg::real(a.f));
    else
      return fail("tile_launch: argument " + std::to_string(i) + " has an unknown kind (" +
                      std::to_string(kind) + ")",
                  error, errorSize);
  }
  std::string err =
      runtime->runtime->launch(kernel->kernel, {grid[0], grid[1], grid[2]}, values, stream);
  return err.empty() ? 0 : fail(err, error, errorSize);
}

int tile_synchronize(tile_runtime *runtime, char *error, size_t errorSize) {
  if (!runtime)
    return fail("tile_synchronize: runtime is null", error, errorSize);
  std::string err = runtime->runtime->synchronize();
  return err.empty() ? 0 : fail(err, error, errorSize);
}

} // extern "C"
