// rms_norm (f32) through the `tilec aot` launcher, checked against a float64
// reference: y = (x * r) * w with r = 1 / sqrt(mean(x^2) + eps).
#include "rms_norm.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char **argv) {
  int m = argc > 1 ? std::atoi(argv[1]) : 1024, n = argc > 2 ? std::atoi(argv[2]) : 4096;
  std::printf("device: %s\n", tile_aot::rms_norm_device().c_str());
  tile::Runtime *rt = tile_aot::rms_norm_runtime();
  if (!rt)
    return 2;
  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  std::vector<float> x(size_t(m) * n), w(n), y(size_t(m) * n, NAN);
  for (float &v : x)
    v = normal(rng);
  for (float &v : w)
    v = 0.5f + std::abs(normal(rng));
  void *dx, *dw, *dy;
  size_t bytes = x.size() * 4;
  if (!rt->alloc(bytes, &dx).empty() || !rt->alloc(n * 4, &dw).empty() ||
      !rt->alloc(bytes, &dy).empty())
    return std::printf("allocation failed\n"), 2;
  rt->copyToDevice(dx, x.data(), bytes);
  rt->copyToDevice(dw, w.data(), n * 4);
  rt->copyToDevice(dy, y.data(), bytes);
  std::string err = tile_aot::rms_norm({uint32_t(m), 1, 1}, dx, dw, dy, n, n, n, 1e-6f);
  if (err.empty())
    err = rt->synchronize();
  if (!err.empty())
    return std::printf("launch failed: %s\n", err.c_str()), 1;
  rt->copyToHost(y.data(), dy, bytes);
  double worst = 0;
  for (int i = 0; i < m; ++i) {
    double ss = 0;
    for (int j = 0; j < n; ++j)
      ss += double(x[size_t(i) * n + j]) * x[size_t(i) * n + j];
    double r = 1.0 / std::sqrt(ss / n + 1e-6);
    for (int j = 0; j < n; ++j) {
      double ref = double(x[size_t(i) * n + j]) * r * w[j];
      double got = y[size_t(i) * n + j];
      double rel = std::abs(got - ref) / std::max(std::abs(ref), 1e-30);
      worst = std::isnan(got) ? INFINITY : std::max(worst, rel);
    }
  }
  std::printf("rms_norm %dx%d: max relative error %.3g (%s)\n", m, n, worst,
              worst < 1e-5 ? "pass" : "FAIL");
  return worst < 1e-5 ? 0 : 1;
}
