//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// libcuda is opened with dlopen and its entry points are looked up from a
// table kept as data: tilec builds, and its tests pass, on machines without
// the CUDA SDK or driver. Every call returns an error string ("" on success).
//
//===----------------------------------------------------------------------===//
#ifndef TILE_CUDADRIVER_H
#define TILE_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tile::cuda {

using DevicePtr = uint64_t;

class Driver {
public:
  /// Opens libcuda, initialises device `ordinal` and makes its primary
  /// context current. Returns null and sets `error` (listing what was tried)
  /// when there is no driver or no device.
  static std::unique_ptr<Driver> open(int ordinal, std::string &error);
  ~Driver();

  std::string deviceName() const { return name; }
  int computeCapability() const { return cc; }
  int multiprocessors() const { return smCount; }

  std::string alloc(size_t bytes, DevicePtr &out);
  std::string free(DevicePtr ptr);
  std::string copyToDevice(DevicePtr dst, const void *src, size_t bytes);
  std::string copyToHost(void *dst, DevicePtr src, size_t bytes);
  std::string copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes);
  std::string memset8(DevicePtr dst, uint8_t value, size_t bytes);
  std::string synchronize();

  /// Loads a PTX or cubin image and finds `kernel` in it.
  std::string loadKernel(const std::string &image, const std::string &kernel, void *&function);
  /// How many blocks of `threads` threads of a loaded kernel whose shared
  /// memory is `sharedBytes` (its tile.shared_bytes, as launch takes it) an
  /// SM holds at once, and the registers a thread of it uses (as the driver
  /// compiled it).
  std::string residency(void *function, unsigned threads, unsigned sharedBytes, int &blocksPerSM,
                        int &registers);
  /// Launches with one pointer per argument (cuLaunchKernel's convention).
  /// `sharedBytes` is the kernel's shared memory (the shared_bytes of its
  /// metadata): past 48 KiB tilec declares the array dynamic, and the launch
  /// asks for it (with the opt-in attribute set); below, it is static.
  /// `overlapPrior` (a kernel that calls gdc_wait(), on sm_90+): with
  /// programmatic dependent launch, so that it may start before the kernel
  /// launched before it on `stream` finishes.
  std::string launch(void *function, const unsigned grid[3], unsigned threads,
                     unsigned sharedBytes, std::vector<void *> &args, void *stream = nullptr,
                     bool overlapPrior = false);
  /// The largest grid the device accepts, per axis.
  const unsigned *maxGrid() const { return gridLimit; }

  /// Milliseconds taken by `body` (enqueued work only), measured with events.
  std::string time(const std::function<std::string()> &body, float &ms);

private:
  /// The dynamic shared memory a launch of a kernel with `sharedBytes` asks
  /// for (0 below 48 KiB), the opt-in attribute set for it.
  std::string dynamicShared(void *function, unsigned sharedBytes, unsigned &dynamic);

  Driver() = default;
  struct Api;
  std::string check(int status, const char *what) const;
  std::unique_ptr<Api> api;
  void *library = nullptr;
  void *context = nullptr;
  std::vector<void *> modules;
  std::string name;
  int cc = 0;
  int smCount = 0;
  int device = 0;
  unsigned gridLimit[3] = {0, 0, 0};
};

} // namespace tile::cuda

#endif // TILE_CUDADRIVER_H
