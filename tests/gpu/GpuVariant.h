//===- GpuVariant.h - load tilec's PTX builds and launch them via the driver -*- C++ -*-===//
//
// What the GPU test programs share: a build that `tilec compile` wrote
// (DIR/NAME.ptx and its .meta) and a launcher that copies host buffers to
// the device, launches, and copies them back (a norms::Launcher).
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TESTS_GPUVARIANT_H
#define TILE_TESTS_GPUVARIANT_H

#include "tile/CudaDriver.h"
#include "tile/Tile.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tile::test {

struct Variant {
  std::string kernel, ptx;
  std::vector<ParamInfo> params;
  /// Threads a CTA and its programs ('programs_per_cta K' in the .meta).
  unsigned threads = 0, sharedBytes = 0, programsPerCta = 1;
  /// The build calls gdc_wait() ('prior_grid_wait 1' in its .meta): it is
  /// launched with programmatic dependent launch.
  bool waitsOnPriorGrid = false;
  void *function = nullptr;
};

inline std::string readVariant(const std::string &path, Variant &v) {
  std::ifstream ptx(path), meta(path + ".meta");
  if (!ptx || !meta)
    return "cannot read " + path + " or its .meta";
  std::stringstream ss;
  ss << ptx.rdbuf();
  v.ptx = ss.str();
  std::string key;
  while (meta >> key) {
    if (key == "kernel")
      meta >> v.kernel;
    else if (key == "threads")
      meta >> v.threads;
    else if (key == "shared_bytes")
      meta >> v.sharedBytes;
    else if (key == "prior_grid_wait")
      meta >> v.waitsOnPriorGrid;
    else if (key == "programs_per_cta")
      meta >> v.programsPerCta;
    else if (key == "param") {
      std::string name, type;
      meta >> name >> type;
      bool isPtr = type.rfind("ptr<", 0) == 0;
      if (isPtr)
        type = type.substr(4, type.size() - 5);
      v.params.push_back({name, parseScalarKind(type).value_or(ScalarKind::I64), isPtr});
    } else {
      std::string rest;
      std::getline(meta, rest);
    }
  }
  return "";
}

/// Packs one argument for cuLaunchKernel.
struct ArgSlot {
  alignas(8) unsigned char bytes[8] = {};
};

inline void packScalar(const ParamInfo &p, const Arg &a, ArgSlot &slot) {
  if (p.kind == ScalarKind::F32) {
    float f = float(a.kind == Arg::Kind::Float ? a.f : double(a.i));
    std::memcpy(slot.bytes, &f, 4);
    return;
  }
  std::memcpy(slot.bytes, &a.i, 8);
}

class GpuRunner {
public:
  explicit GpuRunner(cuda::Driver &driver) : driver(driver) {}

  /// A norms::Launcher over device copies of the host buffers.
  std::string launch(Variant &v, std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                     const std::vector<size_t> &bytes) {
    std::vector<cuda::DevicePtr> device(args.size(), 0);
    std::vector<ArgSlot> slots(args.size());
    std::vector<void *> pointers(args.size());
    std::string err;
    for (size_t i = 0; i < args.size() && err.empty(); ++i) {
      pointers[i] = slots[i].bytes;
      if (!v.params[i].isPointer) {
        packScalar(v.params[i], args[i], slots[i]);
        continue;
      }
      err = driver.alloc(std::max<size_t>(bytes[i], 1), device[i]);
      if (err.empty())
        err = driver.copyToDevice(device[i], args[i].ptr, bytes[i]);
      std::memcpy(slots[i].bytes, &device[i], 8);
    }
    unsigned g[3];
    if (err.empty())
      err = ctaGrid(grid, v.programsPerCta, g);
    if (err.empty())
      err = driver.launch(v.function, g, v.threads, v.sharedBytes, pointers, nullptr,
                          v.waitsOnPriorGrid);
    if (err.empty())
      err = driver.synchronize();
    for (size_t i = 0; i < args.size(); ++i) {
      if (!device[i])
        continue;
      if (err.empty())
        err = driver.copyToHost(const_cast<void *>(args[i].ptr), device[i], bytes[i]);
      driver.free(device[i]);
    }
    return err;
  }

private:
  cuda::Driver &driver;
};

} // namespace tile::test

#endif // TILE_TESTS_GPUVARIANT_H
