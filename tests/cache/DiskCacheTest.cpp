//===- DiskCacheTest.cpp - keys, round trips, LRU, info/list/clear --------===//
#include "CacheTestUtil.h"

#include <sys/stat.h>
#include <sys/time.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

using namespace tile;
using namespace tile::testing;
namespace fs = std::filesystem;

namespace {

bool isHex64(const std::string &s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::set<std::string> entryFiles(const std::string &dir) {
  std::set<std::string> names;
  for (auto &p : fs::directory_iterator(dir))
    names.insert(p.path().filename().string());
  return names;
}

//===----------------------------------------------------------------------===//
// Keys and the build id
//===----------------------------------------------------------------------===//

TEST(CacheKey, IsSha256HexAndIndependentOfPartOrder) {
  std::vector<std::pair<std::string, std::string>> parts = {
      {"build", "b1"}, {"target", "sm_90"}, {"options", "warps=4"},
      {"source", "kernel k() {}"}, {"define:T", "f16"}, {"assume:x", "16"}};
  std::string key = cacheKey(parts);
  EXPECT_TRUE(isHex64(key)) << key;
  std::reverse(parts.begin(), parts.end());
  EXPECT_EQ(cacheKey(parts), key);
  std::swap(parts[1], parts[4]);
  EXPECT_EQ(cacheKey(parts), key);
}

TEST(CacheKey, EveryPartChangesTheKey) {
  std::vector<std::pair<std::string, std::string>> base = {
      {"build", "b1"}, {"target", "sm_90"}, {"source", "kernel k() {}"}, {"define:T", "f16"}};
  std::string key = cacheKey(base);
  std::set<std::string> seen = {key};
  for (size_t i = 0; i < base.size(); ++i) {
    auto changed = base;
    changed[i].second += " ";
    EXPECT_TRUE(seen.insert(cacheKey(changed)).second) << "part " << base[i].first;
  }
  // A different source gives a different key.
  auto other = base;
  other[2].second = "kernel k() { return }";
  EXPECT_NE(cacheKey(other), key);
  // Dropping a part or adding one changes it too.
  EXPECT_NE(cacheKey({base.begin(), base.end() - 1}), key);
  auto more = base;
  more.push_back({"assume:x", "16"});
  EXPECT_NE(cacheKey(more), key);
}

TEST(CacheKey, SerialisationIsUnambiguous) {
  EXPECT_NE(cacheKey({{"a", "bc"}}), cacheKey({{"ab", "c"}}));
  EXPECT_NE(cacheKey({{"a", "b\n1:c=1:d"}}), cacheKey({{"a", "b"}, {"c", "d"}}));
  EXPECT_NE(cacheKey({}), cacheKey({{"", ""}}));
  EXPECT_EQ(cacheKey({{"x", std::string("\0\1", 2)}}), cacheKey({{"x", std::string("\0\1", 2)}}));
}

TEST(CompilerBuildId, IsStableHex) {
  EXPECT_TRUE(isHex64(compilerBuildId())) << compilerBuildId();
  EXPECT_EQ(&compilerBuildId(), &compilerBuildId());
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST_F(CacheTest, MissThenStoreThenHit) {
  Warnings w;
  DiskCache cache = open(w);
  std::string key = keyFor(1);
  EXPECT_FALSE(cache.lookup(key));
  CacheEntry entry = makeEntry(1, 5000);
  cache.store(key, entry);
  auto hit = cache.lookup(key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(*hit, entry);
  // Another process (a fresh open) sees the same entry.
  DiskCache again = open(w);
  auto hit2 = again.lookup(key);
  ASSERT_TRUE(hit2);
  EXPECT_EQ(*hit2, entry);
  EXPECT_EQ(w.size(), 0u) << w.all();
  // One file, named after the key, mode 0600, in a 0700 directory; no temps.
  EXPECT_EQ(entryFiles(dir), std::set<std::string>{key + ".tilecache"});
  EXPECT_EQ(cache.entryPath(key), dir + "/" + key + ".tilecache");
  struct stat st;
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat(cache.entryPath(key).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string bytes = readFile(cache.entryPath(key));
  EXPECT_EQ(bytes.rfind("TILECACHE 1\nbuild build-a\nkey " + key + "\n", 0), 0u);
}

TEST_F(CacheTest, EmptyPartsAndOverwrite) {
  Warnings w;
  DiskCache cache = open(w);
  cache.store(keyFor(2), CacheEntry{});
  auto empty = cache.lookup(keyFor(2));
  ASSERT_TRUE(empty);
  EXPECT_EQ(*empty, CacheEntry{});
  cache.store(keyFor(2), makeEntry(3));
  EXPECT_EQ(*cache.lookup(keyFor(2)), makeEntry(3));
  EXPECT_EQ(w.size(), 0u) << w.all();
}

TEST_F(CacheTest, KeysThatAreNotHexAreHashed) {
  Warnings w;
  DiskCache cache = open(w);
  std::string key = "../../etc/passwd\nkey x";
  cache.store(key, makeEntry(4));
  EXPECT_EQ(*cache.lookup(key), makeEntry(4));
  std::string path = cache.entryPath(key);
  EXPECT_EQ(fs::path(path).parent_path(), fs::path(dir));
  EXPECT_TRUE(isHex64(fs::path(path).stem().string())) << path;
  EXPECT_FALSE(cache.lookup("../../etc/passwd"));
  EXPECT_EQ(w.size(), 0u) << w.all();
}

TEST_F(CacheTest, BuildIdsThatAreNotTokensAreHashed) {
  Warnings w;
  DiskCache cache = DiskCache::open(dir, "tilec 0.1\nLLVM 22", 0, w.callback());
  cache.store(keyFor(5), makeEntry(5));
  EXPECT_EQ(*cache.lookup(keyFor(5)), makeEntry(5));
  DiskCache same = DiskCache::open(dir, "tilec 0.1\nLLVM 22", 0, w.callback());
  EXPECT_TRUE(same.lookup(keyFor(5)));
  EXPECT_EQ(w.size(), 0u) << w.all();
}

//===----------------------------------------------------------------------===//
// Size cap and LRU eviction
//===----------------------------------------------------------------------===//

TEST_F(CacheTest, EvictsLeastRecentlyUsedOverTheCap) {
  Warnings w;
  // Each entry is a little over 1000 bytes; three fit under 3500.
  DiskCache cache = open(w, 3500);
  for (unsigned i = 0; i < 3; ++i)
    cache.store(keyFor(i), makeEntry(i, 900));
  EXPECT_EQ(cache.info().entries, 3u);
  // Use 0, so 1 becomes the least recently used.
  ASSERT_TRUE(cache.lookup(keyFor(0)));
  cache.store(keyFor(3), makeEntry(3, 900));
  EXPECT_TRUE(fs::exists(cache.entryPath(keyFor(0))));
  EXPECT_FALSE(fs::exists(cache.entryPath(keyFor(1))));
  EXPECT_TRUE(fs::exists(cache.entryPath(keyFor(2))));
  EXPECT_TRUE(fs::exists(cache.entryPath(keyFor(3))));
  // Use 2 and 0; the next store drops 3, the oldest now.
  ASSERT_TRUE(cache.lookup(keyFor(2)));
  ASSERT_TRUE(cache.lookup(keyFor(0)));
  cache.store(keyFor(4), makeEntry(4, 900));
  EXPECT_FALSE(fs::exists(cache.entryPath(keyFor(3))));
  for (unsigned i : {0u, 2u, 4u})
    EXPECT_EQ(*cache.lookup(keyFor(i)), makeEntry(i, 900)) << i;
  DiskCache::Info info = cache.info();
  EXPECT_EQ(info.entries, 3u);
  EXPECT_LE(info.bytes, 3500u);
  EXPECT_EQ(info.maxBytes, 3500u);
  EXPECT_EQ(w.size(), 0u) << w.all();
}

TEST_F(CacheTest, EntryOverTheCapStaysInMemory) {
  Warnings w;
  DiskCache cache = open(w, 2000);
  cache.store(keyFor(1), makeEntry(1, 4000));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w.all().find("over the cache cap of 2000"), std::string::npos) << w.all();
  EXPECT_FALSE(fs::exists(cache.entryPath(keyFor(1))));
  EXPECT_EQ(*cache.lookup(keyFor(1)), makeEntry(1, 4000));
}

TEST_F(CacheTest, StaleTempFilesAreRemovedFreshOnesKept) {
  Warnings w;
  DiskCache cache = open(w);
  std::string stale = dir + "/." + keyFor(1) + ".123.0123456789abcdef.tmp";
  std::string fresh = dir + "/." + keyFor(2) + ".124.0123456789abcdef.tmp";
  writeFile(stale, "partial");
  writeFile(fresh, "partial");
  timeval old[2] = {{time(nullptr) - 7200, 0}, {time(nullptr) - 7200, 0}};
  ASSERT_EQ(utimes(stale.c_str(), old), 0);
  cache.store(keyFor(3), makeEntry(3));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));
}

//===----------------------------------------------------------------------===//
// info, list, clear
//===----------------------------------------------------------------------===//

TEST_F(CacheTest, InfoListClear) {
  Warnings w;
  DiskCache cache = open(w);
  DiskCache::Info info = cache.info();
  EXPECT_EQ(info.dir, dir);
  EXPECT_TRUE(info.writable);
  EXPECT_EQ(info.entries, 0u);
  EXPECT_EQ(info.maxBytes, DiskCache::kDefaultMaxBytes);
  uint64_t bytes = 0;
  for (unsigned i = 0; i < 4; ++i) {
    cache.store(keyFor(i), makeEntry(i));
    bytes += fs::file_size(cache.entryPath(keyFor(i)));
  }
  // An entry of another build is listed, marked.
  DiskCache::open(dir, "build-b", 0, w.callback()).store(keyFor(9), makeEntry(9));
  bytes += fs::file_size(cache.entryPath(keyFor(9)));
  writeFile(dir + "/notes.txt", "not an entry");
  writeFile(dir + "/." + keyFor(7) + ".1.0123456789abcdef.tmp", "left over");
  info = cache.info();
  EXPECT_EQ(info.entries, 5u);
  EXPECT_EQ(info.bytes, bytes);

  std::vector<DiskCache::Item> items = cache.list();
  ASSERT_EQ(items.size(), 5u);
  for (size_t i = 1; i < items.size(); ++i)
    EXPECT_LT(items[i - 1].key, items[i].key);
  int64_t now = time(nullptr);
  for (auto &item : items) {
    EXPECT_GT(item.bytes, 256u);
    EXPECT_LE(std::abs(item.lastUseUnixSeconds - now), 60);
    if (item.key == keyFor(9))
      EXPECT_EQ(item.summary, "[other compiler build] kernel k9 target sm_90");
    else
      EXPECT_EQ(item.summary.rfind("kernel k", 0), 0u) << item.summary;
  }
  EXPECT_EQ(cache.list().size(), items.size()); // Deterministic.

  EXPECT_EQ(cache.clear(), "");
  EXPECT_EQ(cache.info().entries, 0u);
  EXPECT_TRUE(cache.list().empty());
  EXPECT_EQ(entryFiles(dir), std::set<std::string>{"notes.txt"});
  EXPECT_FALSE(cache.lookup(keyFor(1)));
  EXPECT_EQ(w.size(), 0u) << w.all();
}

TEST_F(CacheTest, ListMarksInvalidEntries) {
  Warnings w;
  DiskCache cache = open(w);
  writeFile(cache.entryPath(keyFor(1)), "garbage");
  auto items = cache.list();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].summary, "[invalid: no TILECACHE magic (not a tilec cache entry)]");
}

//===----------------------------------------------------------------------===//
// The default location
//===----------------------------------------------------------------------===//

/// Sets or unsets environment variables, restoring them afterwards.
class EnvGuard {
public:
  void set(const char *name, const char *value) {
    if (!saved.count(name)) {
      const char *old = getenv(name);
      saved[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~EnvGuard() {
    for (auto &[name, value] : saved)
      value ? setenv(name.c_str(), value->c_str(), 1) : unsetenv(name.c_str());
  }

private:
  std::map<std::string, std::optional<std::string>> saved;
};

TEST_F(CacheTest, DefaultLocationFollowsTheEnvironment) {
  Warnings w;
  EnvGuard env;
  env.set("TILEC_CACHE_DIR", (root + "/explicit").c_str());
  env.set("XDG_CACHE_HOME", (root + "/xdg").c_str());
  env.set("HOME", (root + "/home").c_str());
  EXPECT_EQ(DiskCache::open("", "b", 0, w.callback()).info().dir, root + "/explicit");
  env.set("TILEC_CACHE_DIR", "");
  EXPECT_EQ(DiskCache::open("", "b", 0, w.callback()).info().dir, root + "/xdg/tilec");
  // A relative XDG_CACHE_HOME is ignored, as the XDG spec says.
  env.set("XDG_CACHE_HOME", "relative");
  EXPECT_EQ(DiskCache::open("", "b", 0, w.callback()).info().dir, root + "/home/.cache/tilec");
  env.set("XDG_CACHE_HOME", nullptr);
  DiskCache home = DiskCache::open("", "b", 0, w.callback());
  EXPECT_EQ(home.info().dir, root + "/home/.cache/tilec");
  EXPECT_TRUE(home.info().writable);
  // Only the last directory is private.
  struct stat st;
  ASSERT_EQ(stat((root + "/home/.cache/tilec").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(w.size(), 0u) << w.all();
  // An explicit dir wins over the environment, and is made absolute.
  fs::path cwd = fs::current_path();
  fs::current_path(root);
  EXPECT_EQ(DiskCache::open("rel/./x", "b", 0, w.callback()).info().dir, root + "/rel/x");
  fs::current_path(cwd);
}

TEST_F(CacheTest, MaxBytesFromTheEnvironment) {
  Warnings w;
  EnvGuard env;
  env.set("TILEC_CACHE_MAX_BYTES", "2M");
  EXPECT_EQ(open(w).info().maxBytes, 2u << 20);
  EXPECT_EQ(open(w, 1234).info().maxBytes, 1234u); // An explicit cap wins.
  env.set("TILEC_CACHE_MAX_BYTES", "12345");
  EXPECT_EQ(open(w).info().maxBytes, 12345u);
  EXPECT_EQ(w.size(), 0u) << w.all();
  env.set("TILEC_CACHE_MAX_BYTES", "lots");
  EXPECT_EQ(open(w).info().maxBytes, DiskCache::kDefaultMaxBytes);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w.all().find("TILEC_CACHE_MAX_BYTES='lots'"), std::string::npos) << w.all();
}

} // namespace
