//===- TuneTest.cpp - autotuning in tile::Runtime on the host backend -----===//
#include "tile/DiskCache.h"
#include "tile/Runtime.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <regex>
#include <unistd.h>

using namespace tile;

namespace {

const char *kScale = R"(
kernel scale<BLOCK: int = 256 in [64, 1024], num_warps: int = 4 in {2, 4, 8}>(
    x: ptr<f32>, y: ptr<f32>, n: i32) key(n) {
  let c = program_id(0) * BLOCK + arange(0, BLOCK);
  store(y + c, load(x + c, mask=c < n, other=0) * 2.0, mask=c < n);
}
)";

/// A cache directory of its own per test, removed at the end.
struct TempDir {
  std::string path;
  explicit TempDir(const std::string &name)
      : path(::testing::TempDir() + "/tilec-tune-" + name + "-" + std::to_string(getpid())) {
    std::filesystem::remove_all(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

/// The JIT compiler, counting its compiles (which run on several threads).
KernelCompiler countingCompiler(const std::string &dir, std::shared_ptr<std::atomic<int>> count) {
  KernelCompiler inner = jitCompiler(dir, nullptr);
  KernelCompiler c = inner;
  c.compile = [inner, count](const std::string &source, const std::string &fileName,
                             const CompileOptions &options) {
    ++*count;
    return inner.compile(source, fileName, options);
  };
  return c;
}

struct Tuning {
  std::shared_ptr<std::atomic<int>> compiles = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::vector<std::string>> lines = std::make_shared<std::vector<std::string>>();
  std::unique_ptr<Runtime> rt;

  explicit Tuning(const std::string &dir) {
    RuntimeOptions options;
    options.backend = "host";
    auto out = lines;
    options.tuneProgress = [out](const std::string &line) { out->push_back(line); };
    auto r = Runtime::create(options, countingCompiler(dir, compiles));
    EXPECT_TRUE(bool(r)) << r.message();
    rt = std::move(*r);
  }
  bool saw(const std::string &text) const {
    for (auto &l : *lines)
      if (l.find(text) != std::string::npos)
        return true;
    return false;
  }
  std::string all() const {
    std::string s;
    for (auto &l : *lines)
      s += l + "\n";
    return s;
  }
};

GridFn blocks(int64_t n) {
  return [n](const TuneConfig &c) -> std::array<uint32_t, 3> {
    int64_t block = std::stoll(c.at("BLOCK"));
    return {uint32_t((n + block - 1) / block), 1, 1};
  };
}

/// Launches scale over n elements and checks y = 2x (and nothing past n).
void runScale(Tuning &t, Kernel *k, int n) {
  std::vector<float> x(n + 1024), y(n + 1024, -1.0f);
  for (int i = 0; i < n; ++i)
    x[i] = 0.5f * i - 7.0f;
  ASSERT_EQ(t.rt->launch(k, blocks(n),
                         {Arg::pointer(x.data()), Arg::pointer(y.data()), Arg::integer(n)}),
            "");
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(y[i], 2 * x[i]) << "n=" << n << " i=" << i;
  for (int i = n; i < n + 1024; ++i)
    ASSERT_EQ(y[i], -1.0f) << "n=" << n << " i=" << i;
}

bool isCandidate(const Kernel *k, const std::string &name, const std::string &value) {
  for (auto &t : k->tunables())
    if (t.name == name)
      return std::find(t.candidates.begin(), t.candidates.end(), value) != t.candidates.end();
  return false;
}

TEST(Tune, FirstLaunchTunesOncePerKey) {
  TempDir dir("once");
  Tuning t(dir.path);
  auto k = t.rt->loadSource(kScale, "scale.tile", {});
  ASSERT_TRUE(bool(k)) << k.message();
  ASSERT_EQ((*k)->tunables().size(), 2u);
  runScale(t, *k, 1000);
  // BLOCK in [64, 1024] is 64..1024 (5 powers of two), times 3 num_warps.
  EXPECT_EQ(*t.compiles, 15);
  auto chosen = (*k)->tunedConfigs();
  ASSERT_EQ(chosen.size(), 1u);
  ASSERT_TRUE(chosen.count("n=1000"));
  TuneConfig c = chosen["n=1000"];
  EXPECT_TRUE(isCandidate(*k, "BLOCK", c["BLOCK"])) << c["BLOCK"];
  EXPECT_TRUE(isCandidate(*k, "num_warps", c["num_warps"])) << c["num_warps"];
  EXPECT_TRUE(t.saw("tuning scale [n=1000]: 15/15 configs compiled")) << t.all();
  ASSERT_FALSE(t.lines->empty());
  EXPECT_TRUE(std::regex_match(
      t.lines->back(),
      std::regex("tuning scale \\[n=1000\\]: BLOCK=" + c["BLOCK"] + " num_warps=" +
                 c["num_warps"] + " best \\([0-9.]+ ms\\) of 15")))
      << t.lines->back();

  std::printf("%s", t.all().c_str());

  // The same key again: no tuning, no compile.
  size_t lines = t.lines->size();
  runScale(t, *k, 1000);
  EXPECT_EQ(*t.compiles, 15);
  EXPECT_EQ(t.lines->size(), lines);

  // Another key value tunes again.
  runScale(t, *k, 777);
  EXPECT_EQ(*t.compiles, 30);
  EXPECT_EQ((*k)->tunedConfigs().size(), 2u);
  EXPECT_TRUE(t.saw("tuning scale [n=777]: 15/15 configs compiled")) << t.all();
}

TEST(Tune, AFreshRuntimeReusesThePersistedChoice) {
  TempDir dir("persist");
  TuneConfig first;
  {
    Tuning t(dir.path);
    auto k = t.rt->loadSource(kScale, "scale.tile", {});
    ASSERT_TRUE(bool(k)) << k.message();
    runScale(t, *k, 1000);
    EXPECT_EQ(*t.compiles, 15);
    first = (*k)->tunedConfigs()["n=1000"];
  }
  auto items = DiskCache::open(dir.path, compilerBuildId(), 0, nullptr).list();
  ASSERT_EQ(items.size(), 1u); // host variants are not cached; the choice is
  EXPECT_EQ(items[0].summary, "tuned scale [n=1000]: BLOCK=" + first["BLOCK"] +
                                  " num_warps=" + first["num_warps"]);

  Tuning t(dir.path); // as a second process would
  auto k = t.rt->loadSource(kScale, "scale.tile", {});
  ASSERT_TRUE(bool(k)) << k.message();
  runScale(t, *k, 1000);
  EXPECT_EQ(*t.compiles, 1); // only the chosen configuration
  EXPECT_EQ((*k)->tunedConfigs()["n=1000"], first);
  EXPECT_TRUE(t.saw("(from the cache)")) << t.all();

  // Other defines (here a different source) are another key.
  Tuning other(dir.path);
  std::string changed = std::string(kScale) + "\n";
  auto k2 = other.rt->loadSource(changed, "scale.tile", {});
  ASSERT_TRUE(bool(k2)) << k2.message();
  runScale(other, *k2, 1000);
  EXPECT_EQ(*other.compiles, 15);
}

TEST(Tune, CandidatesThatDoNotCompileAreSkipped) {
  TempDir dir("skip");
  Tuning t(dir.path);
  const char *source = R"(
kernel scale<BLOCK: int = 64 in [64, 1024], num_warps: int = 4 in {2, 4}>(
    x: ptr<f32>, y: ptr<f32>, n: i32) key(n) {
  static_assert(BLOCK <= 256, "BLOCK too large");
  let c = program_id(0) * BLOCK + arange(0, BLOCK);
  store(y + c, load(x + c, mask=c < n, other=0) * 2.0, mask=c < n);
}
)";
  auto k = t.rt->loadSource(source, "scale.tile", {});
  ASSERT_TRUE(bool(k)) << k.message();
  runScale(t, *k, 1000);
  EXPECT_EQ(*t.compiles, 10);
  EXPECT_TRUE(t.saw("tuning scale [n=1000]: BLOCK=1024 num_warps=2 skipped, it does not "
                    "compile: "))
      << t.all();
  EXPECT_TRUE(t.saw("BLOCK too large")) << t.all();
  EXPECT_NE(t.lines->back().find(" of 10"), std::string::npos) << t.lines->back();
  int64_t block = std::stoll((*k)->tunedConfigs()["n=1000"]["BLOCK"]);
  EXPECT_LE(block, 256);
  std::printf("%s", t.all().c_str());

  // No candidate compiles (the default does, as loading checks it): the
  // launch fails with the first error.
  const char *never = R"(
kernel never<BLOCK: int = 64 in [256, 512]>(x: ptr<f32>, n: i32) key(n) {
  static_assert(BLOCK < 128, "no BLOCK fits");
  let c = arange(0, BLOCK);
  store(x + c, 1.0, mask=c < n);
}
)";
  auto k2 = t.rt->loadSource(never, "never.tile", {});
  ASSERT_TRUE(bool(k2)) << k2.message();
  std::vector<float> x(64);
  std::string err = t.rt->launch(*k2, {1, 1, 1}, {Arg::pointer(x.data()), Arg::integer(64)});
  EXPECT_NE(err.find("no BLOCK fits"), std::string::npos) << err;
  EXPECT_TRUE((*k2)->tunedConfigs().empty());
}

TEST(Tune, ExplicitDefinesDisableTuning) {
  TempDir dir("defines");
  Tuning t(dir.path);
  CompileOptions options;
  options.defines = {{"BLOCK", "128"}, {"num_warps", "2"}};
  auto k = t.rt->loadSource(kScale, "scale.tile", options);
  ASSERT_TRUE(bool(k)) << k.message();
  EXPECT_TRUE((*k)->tunables().empty());
  runScale(t, *k, 1000); // the grid function sees BLOCK=128
  EXPECT_EQ(*t.compiles, 1);
  EXPECT_TRUE(t.lines->empty()) << t.all();
  EXPECT_TRUE((*k)->tunedConfigs().empty());

  // Fixing one of them tunes the other only.
  options.defines = {{"BLOCK", "256"}};
  auto k2 = t.rt->loadSource(kScale, "scale.tile", options);
  ASSERT_TRUE(bool(k2)) << k2.message();
  ASSERT_EQ((*k2)->tunables().size(), 1u);
  runScale(t, *k2, 1000);
  EXPECT_EQ(*t.compiles, 4);
  EXPECT_EQ((*k2)->tunedConfigs()["n=1000"].count("BLOCK"), 0u);
  EXPECT_NE(t.lines->back().find(" of 3"), std::string::npos) << t.lines->back();
}

} // namespace
