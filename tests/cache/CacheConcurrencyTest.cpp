//===- CacheConcurrencyTest.cpp - many processes, one cache ---------------===//
//
// The test binary runs itself as helper processes (`--cache-helper ...`, see
// main below) that store and look up entries in one directory at once, the
// way several JIT processes compiling the same kernels would.
//
//===----------------------------------------------------------------------===//
#include "CacheTestUtil.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

extern char **environ;

using namespace tile;
using namespace tile::testing;
namespace fs = std::filesystem;

namespace {

/// Helper exit codes.
enum HelperExit { kHelperOk = 0, kHelperWarned = 10, kHelperMissed = 11, kHelperWrong = 12,
                  kHelperUsage = 13 };

constexpr unsigned kSharedSeed = 1u << 20; // Far from the helpers' own seeds.
constexpr size_t kSharedSize = 256 * 1024;

/// One helper process: waits for DIR/go, then ITERATIONS times stores and
/// looks up the shared entry and an entry of its own. MODE "keep": every
/// lookup after a store must hit; "evict": the cap is small, so lookups may
/// miss, but a hit must hold the right bytes. Any warning fails.
int runHelper(int argc, char **argv) {
  if (argc != 7)
    return kHelperUsage;
  std::string dir = argv[2];
  unsigned id = unsigned(std::stoul(argv[3]));
  unsigned iterations = unsigned(std::stoul(argv[4]));
  uint64_t maxBytes = std::stoull(argv[5]);
  bool keep = std::string(argv[6]) == "keep";
  int status = kHelperOk;
  auto fail = [&](int code, const std::string &why) {
    std::fprintf(stderr, "helper %u: %s\n", id, why.c_str());
    if (status == kHelperOk)
      status = code;
  };
  DiskCache cache = DiskCache::open(dir, "build-a", maxBytes, [&](const std::string &m) {
    fail(kHelperWarned, "warning: " + m);
  });
  for (int spins = 0; !fs::exists(dir + "/go") && spins < 20000; ++spins)
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  std::string shared = keyFor(kSharedSeed);
  CacheEntry sharedEntry = makeEntry(kSharedSeed, kSharedSize);
  for (unsigned i = 0; i < iterations; ++i) {
    cache.store(shared, sharedEntry);
    auto hit = cache.lookup(shared);
    if (!hit && keep)
      fail(kHelperMissed, "shared entry missing");
    if (hit && *hit != sharedEntry)
      fail(kHelperWrong, "shared entry has the wrong bytes");
    unsigned seed = id * 1000 + i % 5;
    CacheEntry own = makeEntry(seed, 2000 + 97 * id);
    cache.store(keyFor(seed), own);
    auto ownHit = cache.lookup(keyFor(seed));
    if (!ownHit && keep)
      fail(kHelperMissed, "own entry missing");
    if (ownHit && *ownHit != own)
      fail(kHelperWrong, "own entry has the wrong bytes");
  }
  return status;
}

/// Runs `count` helpers at once and returns their exit codes.
std::vector<int> runHelpers(const std::string &dir, unsigned count, unsigned iterations,
                            uint64_t maxBytes, const char *mode) {
  std::vector<pid_t> pids;
  for (unsigned id = 0; id < count; ++id) {
    std::vector<std::string> args = {"tile-cache-test", "--cache-helper", dir,
                                     std::to_string(id), std::to_string(iterations),
                                     std::to_string(maxBytes), mode};
    std::vector<char *> argv;
    for (auto &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) != 0) {
      ADD_FAILURE() << "posix_spawn failed: " << std::strerror(errno);
      break;
    }
    pids.push_back(pid);
  }
  writeFile(dir + "/go", "");
  std::vector<int> codes(pids.size(), -1);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (size_t i = 0; i < pids.size(); ++i) {
    int status = 0;
    while (waitpid(pids[i], &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        for (size_t j = i; j < pids.size(); ++j)
          kill(pids[j], SIGKILL);
        waitpid(pids[i], &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    codes[i] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  fs::remove(dir + "/go");
  return codes;
}

TEST_F(CacheTest, ManyProcessesStoreTheSameAndDifferentKeys) {
  Warnings w;
  open(w); // Creates the directory.
  constexpr unsigned kProcesses = 12;
  std::vector<int> codes = runHelpers(dir, kProcesses, 25, 0, "keep");
  ASSERT_EQ(codes.size(), kProcesses);
  for (unsigned i = 0; i < kProcesses; ++i)
    EXPECT_EQ(codes[i], kHelperOk) << "helper " << i;
  // The final entries verify, and no temp file is left behind.
  DiskCache cache = open(w);
  auto shared = cache.lookup(keyFor(kSharedSeed));
  ASSERT_TRUE(shared);
  EXPECT_EQ(*shared, makeEntry(kSharedSeed, kSharedSize));
  for (unsigned id = 0; id < kProcesses; ++id)
    for (unsigned s = 0; s < 5; ++s)
      EXPECT_EQ(cache.lookup(keyFor(id * 1000 + s)), makeEntry(id * 1000 + s, 2000 + 97 * id));
  EXPECT_EQ(cache.info().entries, 1u + kProcesses * 5);
  for (auto &p : fs::directory_iterator(dir))
    EXPECT_EQ(p.path().extension(), ".tilecache") << p.path();
  EXPECT_EQ(w.size(), 0u) << w.all();
}

TEST_F(CacheTest, ManyProcessesEvictingAtOnce) {
  Warnings w;
  open(w);
  // Room for the shared entry and a handful of small ones: every store evicts.
  uint64_t cap = kSharedSize + 20000;
  std::vector<int> codes = runHelpers(dir, 10, 20, cap, "evict");
  for (size_t i = 0; i < codes.size(); ++i)
    EXPECT_EQ(codes[i], kHelperOk) << "helper " << i;
  DiskCache cache = open(w, cap);
  EXPECT_LE(cache.info().bytes, cap);
  for (const DiskCache::Item &item : cache.list())
    EXPECT_EQ(item.summary.rfind("kernel k", 0), 0u) << item.summary;
  EXPECT_EQ(w.size(), 0u) << w.all();
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--cache-helper") == 0)
    return runHelper(argc, argv);
  // The tests choose their caps; the environment must not.
  unsetenv("TILEC_CACHE_MAX_BYTES");
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
