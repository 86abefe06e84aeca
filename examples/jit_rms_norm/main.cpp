// rms_norm (f32) through the JIT runtime: compiled on first use for the
// device found (CUDA, HIP), or for the host CPU when there is no GPU, then
// checked against a float64 reference.
//
//   jit-rms-norm KERNELS_DIR [M N]
#include "tile/Runtime.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 2)
    return std::fprintf(stderr, "usage: jit-rms-norm KERNELS_DIR [M N]\n"), 2;
  int m = argc > 3 ? std::atoi(argv[2]) : 256, n = argc > 3 ? std::atoi(argv[3]) : 4096;
  auto rt = tile::Runtime::create({}, tile::jitCompiler("", [](const std::string &w) {
                                    std::fprintf(stderr, "warning: %s\n", w.c_str());
                                  }));
  if (!rt)
    return std::printf("%s\n", rt.message().c_str()), 2;
  std::printf("device: %s (%s)\n", (*rt)->deviceName().c_str(), (*rt)->target().c_str());
  tile::CompileOptions options;
  options.defines = {{"T", "f32"}, {"BLOCK", "4096"}};
  options.numWarps = 8;
  auto kernel = (*rt)->loadFile(std::string(argv[1]) + "/norms/rms_norm.tile", options);
  if (!kernel)
    return std::printf("%s\n", kernel.message().c_str()), 1;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> x(size_t(m) * n), w(n), y(size_t(m) * n, NAN);
  for (float &v : x)
    v = normal(rng);
  for (float &v : w)
    v = 0.5f + std::abs(normal(rng));
  void *dx, *dw, *dy;
  size_t bytes = x.size() * 4;
  if (!(*rt)->alloc(bytes, &dx).empty() || !(*rt)->alloc(n * 4, &dw).empty() ||
      !(*rt)->alloc(bytes, &dy).empty())
    return std::printf("allocation failed\n"), 2;
  (*rt)->copyToDevice(dx, x.data(), bytes);
  (*rt)->copyToDevice(dw, w.data(), n * 4);
  (*rt)->copyToDevice(dy, y.data(), bytes);
  std::string err = (*rt)->launch(*kernel, {uint32_t(m), 1, 1},
                                  {tile::Arg::pointer(dx), tile::Arg::pointer(dw),
                                   tile::Arg::pointer(dy), tile::Arg::integer(n),
                                   tile::Arg::integer(n), tile::Arg::integer(n),
                                   tile::Arg::real(1e-6)});
  if (err.empty())
    err = (*rt)->synchronize();
  if (!err.empty())
    return std::printf("launch failed: %s\n", err.c_str()), 1;
  (*rt)->copyToHost(y.data(), dy, bytes);
  double worst = 0;
  for (int i = 0; i < m; ++i) {
    double ss = 0;
    for (int j = 0; j < n; ++j)
      ss += double(x[size_t(i) * n + j]) * x[size_t(i) * n + j];
    double r = 1.0 / std::sqrt(ss / n + 1e-6);
    for (int j = 0; j < n; ++j) {
      double ref = double(x[size_t(i) * n + j]) * r * w[j];
      double got = y[size_t(i) * n + j];
      worst = std::isnan(got) ? INFINITY
                              : std::max(worst, std::abs(got - ref) / std::max(std::abs(ref), 1e-30));
    }
  }
  for (void *p : {dx, dw, dy})
    (*rt)->free(p);
  std::printf("rms_norm %dx%d: max relative error %.3g (%s)\n", m, n, worst,
              worst < 1e-5 ? "pass" : "FAIL");
  return worst < 1e-5 ? 0 : 1;
}
