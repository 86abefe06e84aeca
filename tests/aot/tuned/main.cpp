// The `tilec aot` launcher of tests/cli/Inputs/tunable.tile (y = 2x, tunable
// BLOCK and num_warps, key(n)) built with tuned.txt: each launch must run the
// configuration tuned for its n on this device's target (the defaults for any
// other n), over a grid computed from that configuration, and compute y = 2x
// for the n elements and nothing past them.
#include "scale.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::printf("device: %s\n", tile_aot::scale_device().c_str());
  tile::Runtime *rt = tile_aot::scale_runtime();
  if (!rt)
    return 2;
  // The runtime says which configuration each new key gets.
  rt->setTuneProgress([](const std::string &line) { std::printf("  %s\n", line.c_str()); });
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  int failures = 0;
  for (int n : {4096, 8192, 1000, 4096, 70000}) {
    const int pad = 1024;
    std::vector<float> x(n), y(n + pad, NAN), got(n + pad);
    for (float &v : x)
      v = uniform(rng);
    void *dx = nullptr, *dy = nullptr;
    if (!rt->alloc(n * 4, &dx).empty() || !rt->alloc((n + pad) * 4, &dy).empty())
      return std::printf("allocation failed\n"), 2;
    rt->copyToDevice(dx, x.data(), n * 4);
    rt->copyToDevice(dy, y.data(), (n + pad) * 4);
    std::string config;
    tile::GridFn grid = [&](const tile::TuneConfig &c) -> std::array<uint32_t, 3> {
      config = "BLOCK=" + c.at("BLOCK") + " num_warps=" + c.at("num_warps");
      int64_t block = std::stoll(c.at("BLOCK"));
      return {uint32_t((n + block - 1) / block), 1, 1};
    };
    std::string err = tile_aot::scale(grid, dx, dy, n);
    if (err.empty())
      err = rt->synchronize();
    if (err.empty())
      err = rt->copyToHost(got.data(), dy, (n + pad) * 4);
    rt->free(dx);
    rt->free(dy);
    if (!err.empty())
      return std::printf("scale n=%d: launch failed: %s\n", n, err.c_str()), 1;
    int bad = 0;
    for (int i = 0; i < n + pad; ++i)
      bad += i < n ? got[i] != 2 * x[i] : !std::isnan(got[i]);
    std::printf("scale n=%d: %s, %d wrong elements (%s)\n", n, config.c_str(), bad,
                bad ? "FAIL" : "pass");
    failures += bad != 0;
  }
  return failures ? 1 : 0;
}
