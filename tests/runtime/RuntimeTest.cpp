//===- RuntimeTest.cpp - the JIT runtime on the host backend --------------===//
#include "NormCheck.h"
#include "tile/Runtime.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tile/DiskCache.h"
#include <vector>

using namespace tile;

namespace {

const char *kAdd = R"(
kernel add<T: dtype = f32, BLOCK: int = 256>(x: ptr<T>, y: ptr<T>, out: ptr<T>, n: i32) {
  let offs = program_id(0) * BLOCK + arange(0, BLOCK);
  let m = offs < n;
  store(out + offs, load(x + offs, mask=m, other=0) + load(y + offs, mask=m, other=0), mask=m);
}
)";

std::unique_ptr<Runtime> hostRuntime() {
  RuntimeOptions options;
  options.backend = "host";
  auto rt = Runtime::create(options, jitCompiler("", nullptr));
  EXPECT_TRUE(bool(rt)) << rt.message();
  return std::move(*rt);
}

TEST(Runtime, AutoFallsBackToHostWithoutGpu) {
  setenv("LD_LIBRARY_PATH", "/nonexistent", 1);
  auto rt = Runtime::create({}, jitCompiler("", nullptr));
  ASSERT_TRUE(bool(rt)) << rt.message();
  if ((*rt)->backend() != Backend::Host)
    GTEST_SKIP() << "a GPU is present: " << (*rt)->deviceName();
  EXPECT_EQ((*rt)->target(), "host");
}

TEST(Runtime, ExplicitGpuBackendWithoutDriverSaysWhatWasTried) {
  RuntimeOptions options;
  options.backend = "hip";
  auto rt = Runtime::create(options, jitCompiler("", nullptr));
  if (rt)
    GTEST_SKIP() << "a HIP device is present";
  EXPECT_NE(rt.message().find("no hip device: HIP: no HIP runtime: dlopen of libamdhip64.so"),
            std::string::npos)
      << rt.message();
  options.backend = "cuda";
  auto rt2 = Runtime::create(options, jitCompiler("", nullptr));
  if (!rt2)
    EXPECT_NE(rt2.message().find("no cuda device: CUDA: "), std::string::npos) << rt2.message();
  options.backend = "tpu";
  auto rt3 = Runtime::create(options, jitCompiler("", nullptr));
  ASSERT_FALSE(bool(rt3));
  EXPECT_EQ(rt3.message(), "unknown backend 'tpu' (expected auto, cuda, hip or host)");
}

TEST(Runtime, LaunchComputesAndSpecialisesOnce) {
  auto rt = hostRuntime();
  auto kernel = rt->loadSource(kAdd, "add.tile", {});
  ASSERT_TRUE(bool(kernel)) << kernel.message();
  EXPECT_EQ((*kernel)->name(), "add");
  ASSERT_EQ((*kernel)->params().size(), 4u);
  const int n = 1000;
  std::vector<float> x(n + 4), y(n + 4), out(n + 4, -7.0f);
  for (int i = 0; i < n + 4; ++i) {
    x[i] = 0.25f * i - 3.0f;
    y[i] = 1.5f - 0.125f * i;
  }
  std::array<uint32_t, 3> grid = {(n + 255) / 256, 1, 1};
  // 16-byte aligned pointers and n = 1000 (not divisible by 16).
  ASSERT_EQ(rt->launch(*kernel, grid,
                       {Arg::pointer(x.data()), Arg::pointer(y.data()), Arg::pointer(out.data()),
                        Arg::integer(n)}),
            "");
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], x[i] + y[i]) << i;
  EXPECT_EQ(out[n], -7.0f);
  EXPECT_EQ((*kernel)->numVariants(), 1u);
  ASSERT_EQ(rt->launch(*kernel, grid,
                       {Arg::pointer(x.data()), Arg::pointer(y.data()), Arg::pointer(out.data()),
                        Arg::integer(n)}),
            "");
  EXPECT_EQ((*kernel)->numVariants(), 1u);
  // x + 1 is 4 bytes past a 16-byte boundary: another variant, compiled once.
  ASSERT_EQ(rt->launch(*kernel, grid,
                       {Arg::pointer(x.data() + 1), Arg::pointer(y.data()),
                        Arg::pointer(out.data()), Arg::integer(n)}),
            "");
  EXPECT_EQ(out[0], x[1] + y[0]);
  EXPECT_EQ((*kernel)->numVariants(), 2u);
  ASSERT_EQ(rt->launch(*kernel, grid,
                       {Arg::pointer(x.data() + 1), Arg::pointer(y.data()),
                        Arg::pointer(out.data()), Arg::integer(n)}),
            "");
  EXPECT_EQ((*kernel)->numVariants(), 2u);
}

TEST(Runtime, MisuseComesBackAsErrors) {
  auto rt = hostRuntime();
  auto kernel = rt->loadSource(kAdd, "add.tile", {});
  ASSERT_TRUE(bool(kernel)) << kernel.message();
  std::vector<float> buf(256);
  Arg p = Arg::pointer(buf.data());
  EXPECT_EQ(rt->launch(*kernel, {1, 1, 1}, {p, p, p}), "kernel 'add' takes 4 arguments, got 3");
  EXPECT_EQ(rt->launch(*kernel, {1, 1, 1}, {p, p, Arg::integer(3), Arg::integer(3)}),
            "argument 2 ('out', ptr<f32>) needs a pointer");
  EXPECT_EQ(rt->launch(*kernel, {1, 1, 1}, {p, p, Arg::pointer(nullptr), Arg::integer(3)}),
            "argument 2 ('out', ptr<f32>) is a null pointer");
  EXPECT_EQ(rt->launch(*kernel, {1, 1, 1}, {p, p, p, p}),
            "argument 3 ('n', i32) needs a scalar, got a pointer");
  EXPECT_EQ(rt->launch(*kernel, {1, 1, 1}, {p, p, p, Arg::real(2.5)}),
            "argument 3 ('n', i32) needs an integer, got a float");
  EXPECT_EQ(rt->launch(*kernel, {1, 0, 1}, {p, p, p, Arg::integer(3)}), "grid dimension 1 is 0");
  EXPECT_EQ(rt->launch(nullptr, {1, 1, 1}, {}), "launch of a null kernel");

  CompileOptions unknown;
  unknown.kernel = "nope";
  auto missing = rt->loadSource(kAdd, "add.tile", unknown);
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(missing.message().find("no kernel named 'nope' (the file defines: add)"),
            std::string::npos)
      << missing.message();

  auto bad = rt->loadSource("kernel k(x: ptr<f32>) {\n  let a = undefined_name;\n}\n", "bad.tile",
                            {});
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(bad.message().find("bad.tile:2:11: error: unknown name 'undefined_name'"),
            std::string::npos)
      << bad.message();
  auto missingFile = rt->loadFile("/nonexistent/k.tile", {});
  ASSERT_FALSE(bool(missingFile));
  EXPECT_EQ(missingFile.message(), "cannot read '/nonexistent/k.tile'");
}

TEST(Runtime, NormThroughTheRuntimeMatchesTheReference) {
  auto rt = hostRuntime();
  CompileOptions options;
  options.defines["T"] = "bf16";
  auto kernel = rt->loadFile(std::string(TILEC_KERNELS_DIR) + "/norms/rms_norm.tile", options);
  ASSERT_TRUE(bool(kernel)) << kernel.message();
  norms::Launcher launch = [&](std::array<uint32_t, 3> grid, const std::vector<Arg> &args,
                               const std::vector<size_t> &) {
    return rt->launch(*kernel, grid, args);
  };
  for (int64_t n : {7, 769, 4096}) {
    norms::NormCase c{"rms_norm", test::Dtype::BF16, 5, n, n == 769};
    auto r = norms::runNormCase((*kernel)->params(), launch, c, 99 + n);
    EXPECT_TRUE(r.pass) << "N=" << n << ": " << r.error;
  }
}

} // namespace

namespace {

TEST(JitCompiler, GpuVariantsGoThroughTheDiskCache) {
  std::string dir = ::testing::TempDir() + "/tilec-jit-cache-" + std::to_string(getpid());
  std::vector<std::string> warnings;
  auto compiler = jitCompiler(dir, [&](const std::string &w) { warnings.push_back(w); });
  CompileOptions options;
  options.target = "sm_90a";
  options.divisibility = {{"x", 16}};
  auto cold = compiler.compile(kAdd, "add.tile", options);
  ASSERT_TRUE(bool(cold)) << cold.message();
  EXPECT_NE(cold->image.find(".entry add("), std::string::npos);
  EXPECT_EQ(cold->threads, 128u);

  // A second process (here: a second compiler over the same directory) hits.
  auto again = jitCompiler(dir, [&](const std::string &w) { warnings.push_back(w); });
  auto start = std::chrono::steady_clock::now();
  auto hit = again.compile(kAdd, "add.tile", options);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                  .count();
  ASSERT_TRUE(bool(hit)) << hit.message();
  EXPECT_EQ(hit->image, cold->image);
  EXPECT_EQ(hit->kernel, "add");
  ASSERT_EQ(hit->params.size(), 4u);
  EXPECT_EQ(hit->params[3].name, "n");
  EXPECT_TRUE(warnings.empty());
  std::printf("disk cache hit: %.3f ms\n", ms);

  // Another specialisation is another entry; corrupting an entry recompiles.
  options.divisibility = {};
  ASSERT_TRUE(bool(again.compile(kAdd, "add.tile", options)));
  auto entries = DiskCache::open(dir, compilerBuildId(), 0, nullptr).list();
  ASSERT_EQ(entries.size(), 2u);
  std::string path = DiskCache::open(dir, compilerBuildId(), 0, nullptr).entryPath(entries[0].key);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-40, std::ios::end);
    f.put('#');
  }
  auto third = jitCompiler(dir, [&](const std::string &w) { warnings.push_back(w); });
  for (auto divisibility : {std::map<std::string, int64_t>{{"x", 16}}, std::map<std::string, int64_t>{}}) {
    options.divisibility = divisibility;
    auto r = third.compile(kAdd, "add.tile", options);
    ASSERT_TRUE(bool(r)) << r.message();
    EXPECT_NE(r->image.find(".entry add("), std::string::npos);
  }
  EXPECT_EQ(warnings.size(), 1u);
  std::filesystem::remove_all(dir);
}

TEST(JitCompiler, GridDependencyWaitSurvivesTheDiskCache) {
  std::string dir = ::testing::TempDir() + "/tilec-jit-gdc-" + std::to_string(getpid());
  const char *waits = R"(kernel twice(x: ptr<f32>, y: ptr<f32>) {
  let i = program_id(0) * 128 + arange(0, 128);
  gdc_wait();
  store(y + i, load(x + i) * 2.0);
}
)";
  CompileOptions options;
  options.target = "sm_90a";
  for (int pass = 0; pass < 2; ++pass) { // cold, then a hit in a second compiler
    auto compiler = jitCompiler(dir, [](const std::string &w) { ADD_FAILURE() << w; });
    auto waiting = compiler.compile(waits, "twice.tile", options);
    ASSERT_TRUE(bool(waiting)) << waiting.message();
    EXPECT_TRUE(waiting->waitsOnPriorGrid) << "pass " << pass;
    EXPECT_NE(waiting->image.find("griddepcontrol.wait;"), std::string::npos);
    auto plain = compiler.compile(kAdd, "add.tile", options);
    ASSERT_TRUE(bool(plain)) << plain.message();
    EXPECT_FALSE(plain->waitsOnPriorGrid) << "pass " << pass;
  }
  std::filesystem::remove_all(dir);
}

TEST(JitCompiler, RegisterLimitIsPartOfTheKey) {
  std::string dir = ::testing::TempDir() + "/tilec-jit-maxnreg-" + std::to_string(getpid());
  auto compiler = jitCompiler(dir, [](const std::string &w) { ADD_FAILURE() << w; });
  CompileOptions options;
  options.target = "sm_90a";
  auto free = compiler.compile(kAdd, "add.tile", options);
  ASSERT_TRUE(bool(free)) << free.message();
  EXPECT_EQ(free->image.find(".maxnreg"), std::string::npos);
  options.maxRegisters = 64;
  auto capped = compiler.compile(kAdd, "add.tile", options);
  ASSERT_TRUE(bool(capped)) << capped.message();
  EXPECT_NE(capped->image.find(".maxnreg 64"), std::string::npos);
  EXPECT_EQ(DiskCache::open(dir, compilerBuildId(), 0, nullptr).list().size(), 2u);
  options.target = "gfx942";
  auto amd = compiler.compile(kAdd, "add.tile", options);
  ASSERT_FALSE(bool(amd));
  EXPECT_NE(amd.message().find("--max-registers applies to NVIDIA targets only"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(JitCompiler, ProgramsPerCtaSurviveTheDiskCacheAndAreInTheKey) {
  std::string dir = ::testing::TempDir() + "/tilec-jit-pack-" + std::to_string(getpid());
  CompileOptions options;
  options.target = "sm_90a";
  options.numWarps = 1;
  for (int pass = 0; pass < 2; ++pass) { // cold, then a hit in a second compiler
    auto compiler = jitCompiler(dir, [](const std::string &w) { ADD_FAILURE() << w; });
    options.programsPerCta = 4;
    auto packed = compiler.compile(kAdd, "add.tile", options);
    ASSERT_TRUE(bool(packed)) << packed.message();
    EXPECT_EQ(packed->programsPerCta, 4u) << "pass " << pass;
    EXPECT_EQ(packed->threads, 128u) << "pass " << pass;
    EXPECT_NE(packed->image.find(".maxntid 128, 1, 1"), std::string::npos);
    options.programsPerCta = 1;
    auto plain = compiler.compile(kAdd, "add.tile", options);
    ASSERT_TRUE(bool(plain)) << plain.message();
    EXPECT_EQ(plain->programsPerCta, 1u) << "pass " << pass;
    EXPECT_EQ(plain->threads, 32u) << "pass " << pass;
  }
  EXPECT_EQ(DiskCache::open(dir, compilerBuildId(), 0, nullptr).list().size(), 2u);
  std::filesystem::remove_all(dir);
}

TEST(CtaGrid, DividesYByTheProgramsACta) {
  unsigned out[3] = {};
  std::array<uint32_t, 3> grid = {5, 24, 3};
  EXPECT_EQ(ctaGrid(grid, 8, out), "");
  EXPECT_EQ(out[0], 5u);
  EXPECT_EQ(out[1], 3u);
  EXPECT_EQ(out[2], 3u);
  EXPECT_EQ(ctaGrid(grid, 1, out), "");
  EXPECT_EQ(out[1], 24u);
  std::array<uint32_t, 3> odd = {1, 12, 1};
  EXPECT_EQ(ctaGrid(odd, 8, out), "grid dimension 1 is 12, not a multiple of the 8 programs a "
                                  "CTA of this build (--programs-per-cta)");
  EXPECT_NE(ctaGrid(odd, 0, out), "");
}

} // namespace

namespace {

TEST(Runtime, IntegerOneIsItsOwnVariant) {
  auto rt = hostRuntime();
  const char *source = R"(
kernel gather(x: ptr<f32>, y: ptr<f32>, s: i32, n: i32) {
  let c = arange(0, 64);
  let m = c < n;
  store(y + c, load(x + c * s, mask=m, other=0), mask=m);
}
)";
  auto kernel = rt->loadSource(source, "gather.tile", {});
  ASSERT_TRUE(bool(kernel)) << kernel.message();
  std::vector<float> x(256), y(64);
  for (int i = 0; i < 256; ++i)
    x[i] = float(i) * 0.5f;
  for (int s : {1, 3}) {
    std::fill(y.begin(), y.end(), -1.0f);
    ASSERT_EQ(rt->launch(*kernel, {1, 1, 1},
                         {Arg::pointer(x.data()), Arg::pointer(y.data()), Arg::integer(s),
                          Arg::integer(60)}),
              "");
    for (int i = 0; i < 60; ++i)
      ASSERT_EQ(y[i], x[i * s]) << "s=" << s << " i=" << i;
    EXPECT_EQ(y[60], -1.0f);
  }
  EXPECT_EQ((*kernel)->numVariants(), 2u);
}

TEST(Runtime, HostRunsPackedProgramsOneByOne) {
  // --programs-per-cta is an NVIDIA launch shape: the host target runs every
  // program, whatever the grid's y, with the same program ids.
  auto rt = hostRuntime();
  const char *source = R"(
kernel ids(out: ptr<i32>) {
  let p = program_id(0) * num_programs(1) + program_id(1);
  store(out + p, p * 10 + num_programs(1));
}
)";
  CompileOptions options;
  options.programsPerCta = 4;
  auto kernel = rt->loadSource(source, "ids.tile", options);
  ASSERT_TRUE(bool(kernel)) << kernel.message();
  std::vector<int32_t> out(6, -1);
  ASSERT_EQ(rt->launch(*kernel, {2, 3, 1}, {Arg::pointer(out.data())}), "");
  for (int p = 0; p < 6; ++p)
    EXPECT_EQ(out[p], p * 10 + 3) << p;
}

} // namespace
