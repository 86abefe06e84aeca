//===- HipDriver.cpp - the HIP runtime, loaded at run time ----------------===//
#include "tile/HipDriver.h"

#include <cstring>
#include <dlfcn.h>

namespace tile::hip {

struct Driver::Api {
  int (*hipInit)(unsigned);
  int (*hipGetDeviceCount)(int *);
  int (*hipSetDevice)(int);
  int (*hipGetDeviceProperties)(void *, int);
  int (*hipModuleLoadData)(void **, const void *);
  int (*hipModuleUnload)(void *);
  int (*hipModuleGetFunction)(void **, void *, const char *);
  int (*hipModuleLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned, void *, void **, void **);
  int (*hipMalloc)(void **, size_t);
  int (*hipFree)(void *);
  int (*hipMemcpyHtoD)(void *, const void *, size_t);
  int (*hipMemcpyDtoH)(void *, const void *, size_t);
  int (*hipDeviceSynchronize)();
  const char *(*hipGetErrorString)(int);
};

namespace {
struct Symbol {
  const char *name;
  size_t offset;
};
} // namespace

std::string Driver::check(int status, const char *what) const {
  if (status == 0)
    return "";
  const char *text = api && api->hipGetErrorString ? api->hipGetErrorString(status) : nullptr;
  return std::string(what) + " failed: HIP error " + std::to_string(status) +
         (text ? std::string(" (") + text + ")" : "");
}

std::unique_ptr<Driver> Driver::open(int ordinal, std::string &error) {
  static const char *libraries[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
  std::unique_ptr<Driver> d(new Driver());
  for (const char *lib : libraries)
    if ((d->library = dlopen(lib, RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!d->library) {
    error = "no HIP runtime: dlopen of libamdhip64.so, libamdhip64.so.6 and libamdhip64.so.5 "
            "failed";
    return nullptr;
  }
#define TILE_SYM(field, symbol) {symbol, offsetof(Driver::Api, field)}
  static const Symbol symbols[] = {
      TILE_SYM(hipInit, "hipInit"),
      TILE_SYM(hipGetDeviceCount, "hipGetDeviceCount"),
      TILE_SYM(hipSetDevice, "hipSetDevice"),
      TILE_SYM(hipGetDeviceProperties, "hipGetDevicePropertiesR0600"),
      TILE_SYM(hipModuleLoadData, "hipModuleLoadData"),
      TILE_SYM(hipModuleUnload, "hipModuleUnload"),
      TILE_SYM(hipModuleGetFunction, "hipModuleGetFunction"),
      TILE_SYM(hipModuleLaunchKernel, "hipModuleLaunchKernel"),
      TILE_SYM(hipMalloc, "hipMalloc"),
      TILE_SYM(hipFree, "hipFree"),
      TILE_SYM(hipMemcpyHtoD, "hipMemcpyHtoD"),
      TILE_SYM(hipMemcpyDtoH, "hipMemcpyDtoH"),
      TILE_SYM(hipDeviceSynchronize, "hipDeviceSynchronize"),
      TILE_SYM(hipGetErrorString, "hipGetErrorString"),
  };
#undef TILE_SYM
  d->api = std::make_unique<Api>();
  for (const Symbol &s : symbols) {
    void *fn = dlsym(d->library, s.name);
    if (!fn) {
      error = std::string("libamdhip64 lacks ") + s.name;
      return nullptr;
    }
    *reinterpret_cast<void **>(reinterpret_cast<char *>(d->api.get()) + s.offset) = fn;
  }
  int count = 0;
  std::string err = d->check(d->api->hipInit(0), "hipInit");
  if (err.empty())
    err = d->check(d->api->hipGetDeviceCount(&count), "hipGetDeviceCount");
  if (err.empty() && ordinal >= count)
    err = "device " + std::to_string(ordinal) + " requested, " + std::to_string(count) + " present";
  if (err.empty())
    err = d->check(d->api->hipSetDevice(ordinal), "hipSetDevice");
  if (!err.empty()) {
    error = "no usable HIP device: " + err;
    return nullptr;
  }
  // hipDeviceProp_t's layout differs between ROCm releases: take the device
  // name from its start and gcnArchName by its "gfx" prefix.
  std::vector<char> props(8192, 0);
  if (d->api->hipGetDeviceProperties(props.data(), ordinal) == 0) {
    d->name = std::string(props.data(), strnlen(props.data(), 256));
    for (size_t i = 0; i + 4 < props.size(); ++i) {
      if (std::memcmp(&props[i], "gfx", 3) != 0)
        continue;
      std::string arch(&props[i], strnlen(&props[i], 64));
      d->gfx = arch.substr(0, arch.find(':'));
      break;
    }
  }
  if (d->gfx.empty()) {
    error = "HIP device " + std::to_string(ordinal) + ": cannot read its gfx architecture";
    return nullptr;
  }
  return d;
}

Driver::~Driver() {
  if (!api)
    return;
  for (void *m : modules)
    api->hipModuleUnload(m);
}

std::string Driver::alloc(size_t bytes, void **out) {
  return check(api->hipMalloc(out, bytes), "hipMalloc");
}
std::string Driver::free(void *ptr) { return check(api->hipFree(ptr), "hipFree"); }
std::string Driver::copyToDevice(void *dst, const void *src, size_t bytes) {
  return check(api->hipMemcpyHtoD(dst, src, bytes), "hipMemcpyHtoD");
}
std::string Driver::copyToHost(void *dst, const void *src, size_t bytes) {
  return check(api->hipMemcpyDtoH(dst, src, bytes), "hipMemcpyDtoH");
}
std::string Driver::synchronize() {
  return check(api->hipDeviceSynchronize(), "hipDeviceSynchronize");
}

std::string Driver::loadKernel(const std::string &image, const std::string &kernel,
                               void *&function) {
  void *module = nullptr;
  std::string err = check(api->hipModuleLoadData(&module, image.data()), "hipModuleLoadData");
  if (!err.empty())
    return err;
  modules.push_back(module);
  return check(api->hipModuleGetFunction(&function, module, kernel.c_str()),
               "hipModuleGetFunction");
}

std::string Driver::launch(void *function, const unsigned grid[3], unsigned threads,
                           unsigned sharedBytes, void *stream, std::vector<void *> &args) {
  return check(api->hipModuleLaunchKernel(function, grid[0], grid[1], grid[2], threads, 1, 1,
                                          sharedBytes, stream, args.data(), nullptr),
               "hipModuleLaunchKernel");
}

} // namespace tile::hip
