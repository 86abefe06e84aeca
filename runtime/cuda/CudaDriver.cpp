//===- CudaDriver.cpp - the CUDA driver API, loaded at run time -----------===//
#include "tile/CudaDriver.h"

#include <dlfcn.h>

namespace tile::cuda {

/// cuda.h's CUlaunchAttribute (an id padded to 8 bytes and a 64-byte union)
/// and CUlaunchConfig.
struct LaunchAttribute {
  int id;
  char pad[4];
  alignas(8) int value[16];
};
struct LaunchConfig {
  unsigned grid[3], block[3], sharedMemBytes;
  void *stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(LaunchAttribute) == 72 && sizeof(LaunchConfig) == 56,
              "CUlaunchAttribute / CUlaunchConfig layout");
/// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION.
constexpr int kProgrammaticStreamSerialization = 6;
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
constexpr int kMaxDynamicSharedSizeBytes = 8;
/// The most shared memory a kernel tilec compiled declares statically
/// (kNVPTXStaticSharedBytes); past it the array is dynamic.
constexpr unsigned kStaticSharedBytes = 48 * 1024;

/// The entry points tilec uses, with the driver's C signatures (handles as
/// opaque pointers, CUresult as int).
struct Driver::Api {
  int (*cuInit)(unsigned);
  int (*cuDeviceGet)(int *, int);
  int (*cuDeviceGetName)(char *, int, int);
  int (*cuDeviceGetAttribute)(int *, int, int);
  int (*cuDevicePrimaryCtxRetain)(void **, int);
  int (*cuDevicePrimaryCtxRelease)(int);
  int (*cuCtxSetCurrent)(void *);
  int (*cuCtxSynchronize)();
  int (*cuModuleLoadData)(void **, const void *);
  int (*cuModuleUnload)(void *);
  int (*cuModuleGetFunction)(void **, void *, const char *);
  int (*cuFuncGetAttribute)(int *, int, void *);
  int (*cuFuncSetAttribute)(void *, int, int);
  int (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, void *, int, size_t);
  int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, void *, void **, void **);
  /// Optional (null on drivers without it): launches with attributes.
  int (*cuLaunchKernelEx)(const LaunchConfig *, void *, void **, void **);
  int (*cuMemAlloc)(DevicePtr *, size_t);
  int (*cuMemFree)(DevicePtr);
  int (*cuMemcpyHtoD)(DevicePtr, const void *, size_t);
  int (*cuMemcpyDtoH)(void *, DevicePtr, size_t);
  int (*cuMemcpyDtoD)(DevicePtr, DevicePtr, size_t);
  int (*cuMemsetD8)(DevicePtr, unsigned char, size_t);
  int (*cuEventCreate)(void **, unsigned);
  int (*cuEventDestroy)(void *);
  int (*cuEventRecord)(void *, void *);
  int (*cuEventSynchronize)(void *);
  int (*cuEventElapsedTime)(float *, void *, void *);
  int (*cuGetErrorString)(int, const char **);
};

namespace {
struct Symbol {
  const char *name;
  size_t offset;
};
#define TILE_SYM(field, symbol) {symbol, offsetof(Driver::Api, field)}
} // namespace

std::string Driver::check(int status, const char *what) const {
  if (status == 0)
    return "";
  const char *text = nullptr;
  if (api && api->cuGetErrorString)
    api->cuGetErrorString(status, &text);
  return std::string(what) + " failed: CUDA error " + std::to_string(status) +
         (text ? std::string(" (") + text + ")" : "");
}

std::unique_ptr<Driver> Driver::open(int ordinal, std::string &error) {
  static const char *libraries[] = {"libcuda.so.1", "libcuda.so"};
  std::unique_ptr<Driver> d(new Driver());
  for (const char *lib : libraries)
    if ((d->library = dlopen(lib, RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!d->library) {
    error = "no CUDA driver: dlopen of libcuda.so.1 and libcuda.so failed";
    return nullptr;
  }
  static const Symbol symbols[] = {
      TILE_SYM(cuInit, "cuInit"),
      TILE_SYM(cuDeviceGet, "cuDeviceGet"),
      TILE_SYM(cuDeviceGetName, "cuDeviceGetName"),
      TILE_SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute"),
      TILE_SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
      TILE_SYM(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
      TILE_SYM(cuCtxSetCurrent, "cuCtxSetCurrent"),
      TILE_SYM(cuCtxSynchronize, "cuCtxSynchronize"),
      TILE_SYM(cuModuleLoadData, "cuModuleLoadData"),
      TILE_SYM(cuModuleUnload, "cuModuleUnload"),
      TILE_SYM(cuModuleGetFunction, "cuModuleGetFunction"),
      TILE_SYM(cuFuncGetAttribute, "cuFuncGetAttribute"),
      TILE_SYM(cuFuncSetAttribute, "cuFuncSetAttribute"),
      TILE_SYM(cuOccupancyMaxActiveBlocksPerMultiprocessor,
               "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
      TILE_SYM(cuLaunchKernel, "cuLaunchKernel"),
      TILE_SYM(cuMemAlloc, "cuMemAlloc_v2"),
      TILE_SYM(cuMemFree, "cuMemFree_v2"),
      TILE_SYM(cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
      TILE_SYM(cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
      TILE_SYM(cuMemcpyDtoD, "cuMemcpyDtoD_v2"),
      TILE_SYM(cuMemsetD8, "cuMemsetD8_v2"),
      TILE_SYM(cuEventCreate, "cuEventCreate"),
      TILE_SYM(cuEventDestroy, "cuEventDestroy_v2"),
      TILE_SYM(cuEventRecord, "cuEventRecord"),
      TILE_SYM(cuEventSynchronize, "cuEventSynchronize"),
      TILE_SYM(cuEventElapsedTime, "cuEventElapsedTime"),
      TILE_SYM(cuGetErrorString, "cuGetErrorString"),
  };
  d->api = std::make_unique<Api>();
  d->api->cuLaunchKernelEx =
      reinterpret_cast<decltype(d->api->cuLaunchKernelEx)>(dlsym(d->library, "cuLaunchKernelEx"));
  for (const Symbol &s : symbols) {
    void *fn = dlsym(d->library, s.name);
    if (!fn) {
      error = std::string("libcuda lacks ") + s.name;
      return nullptr;
    }
    *reinterpret_cast<void **>(reinterpret_cast<char *>(d->api.get()) + s.offset) = fn;
  }
  std::string err = d->check(d->api->cuInit(0), "cuInit");
  if (err.empty())
    err = d->check(d->api->cuDeviceGet(&d->device, ordinal), "cuDeviceGet");
  if (err.empty())
    err = d->check(d->api->cuDevicePrimaryCtxRetain(&d->context, d->device),
                   "cuDevicePrimaryCtxRetain");
  if (err.empty())
    err = d->check(d->api->cuCtxSetCurrent(d->context), "cuCtxSetCurrent");
  if (!err.empty()) {
    error = "no usable CUDA device " + std::to_string(ordinal) + ": " + err;
    return nullptr;
  }
  char name[256] = {};
  d->api->cuDeviceGetName(name, sizeof(name), d->device);
  d->name = name;
  int major = 0, minor = 0;
  d->api->cuDeviceGetAttribute(&major, 75, d->device); // COMPUTE_CAPABILITY_MAJOR
  d->api->cuDeviceGetAttribute(&minor, 76, d->device); // COMPUTE_CAPABILITY_MINOR
  d->api->cuDeviceGetAttribute(&d->smCount, 16, d->device); // MULTIPROCESSOR_COUNT
  d->cc = major * 10 + minor;
  for (int axis = 0; axis < 3; ++axis) { // MAX_GRID_DIM_X, _Y, _Z
    int limit = 0;
    d->api->cuDeviceGetAttribute(&limit, 5 + axis, d->device);
    d->gridLimit[axis] = unsigned(limit);
  }
  return d;
}

Driver::~Driver() {
  if (!api)
    return;
  for (void *m : modules)
    api->cuModuleUnload(m);
  if (context)
    api->cuDevicePrimaryCtxRelease(device);
}

std::string Driver::alloc(size_t bytes, DevicePtr &out) {
  return check(api->cuMemAlloc(&out, bytes), "cuMemAlloc");
}
std::string Driver::free(DevicePtr ptr) { return check(api->cuMemFree(ptr), "cuMemFree"); }
std::string Driver::copyToDevice(DevicePtr dst, const void *src, size_t bytes) {
  return check(api->cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}
std::string Driver::copyToHost(void *dst, DevicePtr src, size_t bytes) {
  return check(api->cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}
std::string Driver::copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) {
  return check(api->cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD");
}
std::string Driver::memset8(DevicePtr dst, uint8_t value, size_t bytes) {
  return check(api->cuMemsetD8(dst, value, bytes), "cuMemsetD8");
}
std::string Driver::synchronize() { return check(api->cuCtxSynchronize(), "cuCtxSynchronize"); }

std::string Driver::loadKernel(const std::string &image, const std::string &kernel,
                               void *&function) {
  void *module = nullptr;
  std::string err = check(api->cuModuleLoadData(&module, image.c_str()), "cuModuleLoadData");
  if (!err.empty())
    return err;
  modules.push_back(module);
  return check(api->cuModuleGetFunction(&function, module, kernel.c_str()),
               "cuModuleGetFunction");
}

std::string Driver::dynamicShared(void *function, unsigned sharedBytes, unsigned &dynamic) {
  dynamic = sharedBytes > kStaticSharedBytes ? sharedBytes : 0;
  if (!dynamic)
    return "";
  std::string err =
      check(api->cuFuncSetAttribute(function, kMaxDynamicSharedSizeBytes, int(dynamic)),
            "cuFuncSetAttribute");
  return err.empty()
             ? err
             : err + " (asking for " + std::to_string(dynamic) + " bytes of dynamic shared memory)";
}

std::string Driver::residency(void *function, unsigned threads, unsigned sharedBytes,
                              int &blocksPerSM, int &registers) {
  unsigned dynamic;
  std::string err = dynamicShared(function, sharedBytes, dynamic);
  if (err.empty())
    err = check(api->cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSM, function,
                                                                 int(threads), dynamic),
                "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  if (err.empty()) // CU_FUNC_ATTRIBUTE_NUM_REGS
    err = check(api->cuFuncGetAttribute(&registers, 4, function), "cuFuncGetAttribute");
  return err;
}

std::string Driver::launch(void *function, const unsigned grid[3], unsigned threads,
                           unsigned sharedBytes, std::vector<void *> &args, void *stream,
                           bool overlapPrior) {
  unsigned dynamic;
  if (std::string err = dynamicShared(function, sharedBytes, dynamic); !err.empty())
    return err;
  if (overlapPrior && cc >= 90 && api->cuLaunchKernelEx) {
    LaunchAttribute attr = {kProgrammaticStreamSerialization, {}, {1}};
    LaunchConfig config = {{grid[0], grid[1], grid[2]}, {threads, 1, 1}, dynamic, stream, &attr, 1};
    return check(api->cuLaunchKernelEx(&config, function, args.data(), nullptr),
                 "cuLaunchKernelEx");
  }
  return check(api->cuLaunchKernel(function, grid[0], grid[1], grid[2], threads, 1, 1, dynamic,
                                   stream, args.data(), nullptr),
               "cuLaunchKernel");
}

std::string Driver::time(const std::function<std::string()> &body, float &ms) {
  void *start = nullptr, *stop = nullptr;
  std::string err = check(api->cuEventCreate(&start, 0), "cuEventCreate");
  if (err.empty())
    err = check(api->cuEventCreate(&stop, 0), "cuEventCreate");
  if (err.empty())
    err = check(api->cuEventRecord(start, nullptr), "cuEventRecord");
  if (err.empty())
    err = body();
  if (err.empty())
    err = check(api->cuEventRecord(stop, nullptr), "cuEventRecord");
  if (err.empty())
    err = check(api->cuEventSynchronize(stop), "cuEventSynchronize");
  if (err.empty())
    err = check(api->cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  if (start)
    api->cuEventDestroy(start);
  if (stop)
    api->cuEventDestroy(stop);
  return err;
}

} // namespace tile::cuda
