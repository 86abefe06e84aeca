//===- AotTuneTest.cpp - AOT launchers dispatch on the tuning key ---------===//
//
// What `tilec aot` generates for a kernel with tuned configurations, driven
// through tile::Runtime on the host backend: images embedded per target,
// specialisation and configuration, and a table of tuned configurations per
// (target, key). The images here are labels, and a wrapper around the
// embedded compiler records which one each launch runs.
//
//===----------------------------------------------------------------------===//
#include "tile/Aot.h"

#include <gtest/gtest.h>

using namespace tile;

namespace {

const unsigned char kDefault[] = "default";
const unsigned char kDefaultAligned[] = "default aligned";
const unsigned char kBig[] = "big";
const unsigned char kBigAligned[] = "big aligned";
const unsigned char kSmall[] = "small";
const unsigned char kOther[] = "other target";

const aot::Image kImages[] = {
    {"host", "", kDefault, sizeof(kDefault) - 1, 128, "BLOCK=256 num_warps=4"},
    {"host", "x=16,y=16", kDefaultAligned, sizeof(kDefaultAligned) - 1, 128,
     "BLOCK=256 num_warps=4"},
    {"host", "", kBig, sizeof(kBig) - 1, 256, "BLOCK=1024 num_warps=8"},
    {"host", "x=16,y=16", kBigAligned, sizeof(kBigAligned) - 1, 256, "BLOCK=1024 num_warps=8"},
    {"host", "", kSmall, sizeof(kSmall) - 1, 64, "BLOCK=64 num_warps=2"},
    {"sm_90a", "", kOther, sizeof(kOther) - 1, 128, "BLOCK=256 num_warps=4"},
};

const aot::Tuned kTuned[] = {
    {"host", "n=4096", "BLOCK=1024 num_warps=8"},
    {"host", "n=100", "BLOCK=64 num_warps=2"},
    {"sm_90a", "n=4096", "BLOCK=256 num_warps=4"},
};

Signature scaleSignature() {
  return {"scale",
          {{"x", ScalarKind::F32, true}, {"y", ScalarKind::F32, true}, {"n", ScalarKind::I32, false}},
          {{"BLOCK", "256", {"64", "256", "1024"}}, {"num_warps", "4", {"2", "4", "8"}}},
          {"n"}};
}

/// The embedded compiler, its binaries made launchable on the host: a
/// launch appends the image it would run and its grid to `ran`.
KernelCompiler recording(KernelCompiler inner,
                         std::shared_ptr<std::vector<std::string>> ran) {
  KernelCompiler c = inner;
  c.compile = [inner, ran](const std::string &source, const std::string &fileName,
                           const CompileOptions &options) -> Result<KernelBinary> {
    auto b = inner.compile(source, fileName, options);
    if (!b)
      return b;
    std::string label = b->image + " (" + std::to_string(b->threads) + " threads)";
    b->hostLaunch = [ran, label](std::array<uint32_t, 3> grid, const std::vector<Arg> &) {
      ran->push_back(label + " grid " + std::to_string(grid[0]));
      return std::string();
    };
    return b;
  };
  return c;
}

struct Launcher {
  std::shared_ptr<std::vector<std::string>> ran = std::make_shared<std::vector<std::string>>();
  std::unique_ptr<Runtime> rt;
  Kernel *kernel = nullptr;
  alignas(16) float x[64], y[64];

  explicit Launcher(const aot::Tuned *tuned = kTuned, size_t tunedCount = std::size(kTuned)) {
    RuntimeOptions options;
    options.backend = "host";
    auto compiler = recording(
        aot::embeddedCompiler(scaleSignature(), kImages, std::size(kImages), tuned, tunedCount),
        ran);
    auto r = Runtime::create(options, compiler);
    EXPECT_TRUE(bool(r)) << r.message();
    rt = std::move(*r);
    auto k = rt->loadSource("", "scale", {});
    EXPECT_TRUE(bool(k)) << k.message();
    kernel = *k;
  }

  /// Launches with n and a grid of cdiv(n, BLOCK); returns what ran.
  std::string launch(int64_t n, bool aligned = true) {
    const float *px = aligned ? x : x + 1;
    GridFn grid = [n](const TuneConfig &c) -> std::array<uint32_t, 3> {
      int64_t block = std::stoll(c.at("BLOCK"));
      return {uint32_t((n + block - 1) / block), 1, 1};
    };
    std::string err = rt->launch(kernel, grid, {Arg::pointer(px), Arg::pointer(y), Arg::integer(n)});
    if (!err.empty())
      return "error: " + err;
    return ran->empty() ? "nothing" : ran->back();
  }
};

TEST(AotTune, LookupByTargetAndKey) {
  Signature sig = scaleSignature();
  KernelCompiler c = aot::embeddedCompiler(sig, kImages, std::size(kImages), kTuned,
                                           std::size(kTuned));
  ASSERT_TRUE(bool(c.lookupTuning));
  CompileOptions options;
  auto lookup = [&](const std::string &target, const std::string &key) {
    return c.lookupTuning(tuningParts(target, "scale", "", options, sig.tunables, key));
  };
  EXPECT_EQ(lookup("host", "n=4096"), "BLOCK=1024 num_warps=8");
  EXPECT_EQ(lookup("host", "n=100"), "BLOCK=64 num_warps=2");
  EXPECT_EQ(lookup("sm_90a", "n=4096"), "BLOCK=256 num_warps=4");
  // Keys and targets that were not tuned get the defaults.
  EXPECT_EQ(lookup("host", "n=77"), "BLOCK=256 num_warps=4");
  EXPECT_EQ(lookup("sm_90a", "n=100"), "BLOCK=256 num_warps=4");
}

TEST(AotTune, LaunchesDispatchOnTheKey) {
  Launcher l;
  // Tuned keys run their configuration (the grid function sees it) and the
  // most specialised image the arguments allow.
  EXPECT_EQ(l.launch(4096), "big aligned (256 threads) grid 4");
  EXPECT_EQ(l.launch(4096, /*aligned=*/false), "big (256 threads) grid 4");
  EXPECT_EQ(l.launch(100), "small (64 threads) grid 2");
  // Any other key runs the defaults.
  EXPECT_EQ(l.launch(1000), "default aligned (128 threads) grid 4");
  EXPECT_EQ(l.launch(1000, false), "default (128 threads) grid 4");
  auto chosen = l.kernel->tunedConfigs();
  EXPECT_EQ(chosen.size(), 3u);
  EXPECT_EQ(chosen["n=4096"]["BLOCK"], "1024");
  EXPECT_EQ(chosen["n=1000"]["BLOCK"], "256");
  // The same key again: the same choice, no new lookup needed.
  EXPECT_EQ(l.launch(4096), "big aligned (256 threads) grid 4");
}

TEST(AotTune, UntunedKeysRunTheirTargetsDefaultsAsBuilt) {
  // What `tilec aot` generates when the shared memory budget shrank the
  // defaults on a target: an entry with a null key gives the configuration
  // its images of the defaults were built with, for every key not tuned.
  const aot::Tuned tuned[] = {
      {"host", "n=4096", "BLOCK=1024 num_warps=8"},
      {"host", nullptr, "BLOCK=64 num_warps=2"},
  };
  Signature sig = scaleSignature();
  KernelCompiler c = aot::embeddedCompiler(sig, kImages, std::size(kImages), tuned,
                                           std::size(tuned));
  CompileOptions options;
  auto lookup = [&](const std::string &target, const std::string &key) {
    return c.lookupTuning(tuningParts(target, "scale", "", options, sig.tunables, key));
  };
  EXPECT_EQ(lookup("host", "n=4096"), "BLOCK=1024 num_warps=8");
  EXPECT_EQ(lookup("host", "n=77"), "BLOCK=64 num_warps=2");
  EXPECT_EQ(lookup("sm_90a", "n=77"), "BLOCK=256 num_warps=4");
  // The grid function sees the values the image was built with.
  Launcher l(tuned, std::size(tuned));
  EXPECT_EQ(l.launch(1000), "small (64 threads) grid 16");
  EXPECT_EQ(l.launch(4096), "big aligned (256 threads) grid 4");
}

TEST(AotTune, AConfigurationWithoutItsImageIsAnError) {
  Signature sig = scaleSignature();
  KernelCompiler c = aot::embeddedCompiler(sig, kImages, std::size(kImages), kTuned,
                                           std::size(kTuned));
  CompileOptions options;
  options.target = "host";
  options.defines = {{"BLOCK", "64"}, {"num_warps", "8"}};
  auto b = c.compile("", "scale", options);
  ASSERT_FALSE(bool(b));
  EXPECT_EQ(b.message(), "kernel 'scale' was not built with BLOCK=64 num_warps=8 for host");
  options.target = "gfx942";
  b = c.compile("", "scale", options);
  ASSERT_FALSE(bool(b));
  EXPECT_EQ(b.message(), "kernel 'scale' was not built for gfx942 (built for: host, sm_90a)");
}

TEST(AotTune, WithoutTunablesImagesIgnoreConfigurations) {
  // What `tilec aot` generates for a kernel without tuning: no table, no
  // lookup, images chosen by target and assumptions alone.
  Signature sig{"scale", scaleSignature().params, {}, {}};
  const aot::Image images[] = {{"host", "", kDefault, sizeof(kDefault) - 1, 128}};
  KernelCompiler c = aot::embeddedCompiler(sig, images, 1);
  EXPECT_FALSE(bool(c.lookupTuning));
  CompileOptions options;
  options.target = "host";
  auto b = c.compile("", "scale", options);
  ASSERT_TRUE(bool(b)) << b.message();
  EXPECT_EQ(b->image, "default");
  EXPECT_FALSE(b->waitsOnPriorGrid);
}

TEST(AotTune, ImagesOfKernelsThatWaitLaunchOverlapping) {
  // An image of a kernel that calls gdc_wait() (`tilec aot` writes `nullptr,
  // true` after its threads) gives a binary the runtime launches with
  // programmatic dependent launch.
  Signature sig{"scale", scaleSignature().params, {}, {}};
  const aot::Image images[] = {{"sm_90a", "", kOther, sizeof(kOther) - 1, 128, nullptr, true},
                               {"host", "", kDefault, sizeof(kDefault) - 1, 128}};
  KernelCompiler c = aot::embeddedCompiler(sig, images, 2);
  CompileOptions options;
  for (const char *target : {"sm_90a", "host"}) {
    options.target = target;
    auto b = c.compile("", "scale", options);
    ASSERT_TRUE(bool(b)) << b.message();
    EXPECT_EQ(b->waitsOnPriorGrid, options.target == "sm_90a") << target;
  }
}

} // namespace
