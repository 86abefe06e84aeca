//===- HipDriver.h - the HIP runtime, loaded at run time --------*- C++ -*-===//
//
// libamdhip64 is opened with dlopen and its entry points are looked up from a
// table kept as data, like CudaDriver.h. No AMD GPU exists on the machines
// this project is tested on: only the driver-absent path is exercised.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_HIPDRIVER_H
#define TILE_HIPDRIVER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tile::hip {

class Driver {
public:
  /// Opens libamdhip64 and selects device `ordinal`; null with `error`
  /// (listing the libraries tried) when there is no runtime or device.
  static std::unique_ptr<Driver> open(int ordinal, std::string &error);
  ~Driver();

  const std::string &deviceName() const { return name; }
  /// The gfx target of the device, e.g. "gfx942" (features stripped).
  const std::string &arch() const { return gfx; }

  std::string alloc(size_t bytes, void **out);
  std::string free(void *ptr);
  std::string copyToDevice(void *dst, const void *src, size_t bytes);
  std::string copyToHost(void *dst, const void *src, size_t bytes);
  std::string synchronize();
  std::string loadKernel(const std::string &image, const std::string &kernel, void *&function);
  std::string launch(void *function, const unsigned grid[3], unsigned threads,
                     unsigned sharedBytes, void *stream, std::vector<void *> &args);

  struct Api;

private:
  Driver() = default;
  std::string check(int status, const char *what) const;
  std::unique_ptr<Api> api;
  void *library = nullptr;
  std::vector<void *> modules;
  std::string name, gfx;
};

} // namespace tile::hip

#endif // TILE_HIPDRIVER_H
