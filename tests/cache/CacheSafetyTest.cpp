//===- CacheSafetyTest.cpp - corrupt entries, planted files, no access ----===//
#include "CacheTestUtil.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

using namespace tile;
using namespace tile::testing;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

//===----------------------------------------------------------------------===//
// Corrupt entries: one warning, a miss, the file removed, and a new store works
//===----------------------------------------------------------------------===//

struct Corruption {
  const char *name;
  /// Changes the bytes of a valid entry file.
  std::function<void(std::string &)> apply;
  /// A part of the warning.
  const char *reason;
};

class CorruptEntryTest : public CacheTest, public ::testing::WithParamInterface<Corruption> {};

TEST_P(CorruptEntryTest, WarnsMissesAndRemoves) {
  const Corruption &c = GetParam();
  Warnings w;
  DiskCache cache = open(w);
  std::string key = keyFor(1);
  CacheEntry entry = makeEntry(1, 3000);
  cache.store(key, entry);
  std::string path = cache.entryPath(key);
  std::string bytes = readFile(path);
  c.apply(bytes);
  writeFile(path, bytes);

  // A fresh process: nothing in memory.
  DiskCache reader = open(w);
  EXPECT_FALSE(reader.lookup(key));
  ASSERT_EQ(w.size(), 1u) << w.all();
  EXPECT_TRUE(contains(w.all(), "ignoring the corrupt cache entry " + path)) << w.all();
  EXPECT_TRUE(contains(w.all(), c.reason)) << w.all();
  EXPECT_TRUE(contains(w.all(), "removed it")) << w.all();
  EXPECT_FALSE(fs::exists(path));
  // The next lookup is a plain miss; a store brings the entry back.
  EXPECT_FALSE(reader.lookup(key));
  reader.store(key, entry);
  auto hit = open(w).lookup(key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(*hit, entry);
  EXPECT_EQ(w.size(), 1u) << w.all();
}

/// The offset of the first metadata byte.
size_t bodyStart(const std::string &bytes) { return bytes.find("\n\n") + 2; }

INSTANTIATE_TEST_SUITE_P(
    Cases, CorruptEntryTest,
    ::testing::Values(
        Corruption{"ZeroLength", [](std::string &b) { b.clear(); }, "empty file"},
        Corruption{"TruncatedBody", [](std::string &b) { b.resize(b.size() / 2); },
                   "truncated"},
        Corruption{"TruncatedChecksum", [](std::string &b) { b.pop_back(); }, "truncated"},
        Corruption{"TruncatedHeader", [](std::string &b) { b.resize(20); },
                   "truncated header"},
        Corruption{"TrailingBytes", [](std::string &b) { b += "x"; }, "the header promises"},
        Corruption{"FlippedBinaryByte", [](std::string &b) { b[b.size() - 100] ^= 0x01; },
                   "checksum mismatch"},
        Corruption{"FlippedMetadataByte", [](std::string &b) { b[bodyStart(b) + 3] ^= 0x20; },
                   "checksum mismatch"},
        Corruption{"FlippedChecksumByte", [](std::string &b) { b.back() ^= 0x80; },
                   "checksum mismatch"},
        // "TILECACHE 1\nbuild build-a\n": byte 19 is in the build id.
        Corruption{"FlippedHeaderByte", [](std::string &b) { b[19] ^= 0x01; },
                   "checksum mismatch"},
        Corruption{"FlippedHeaderLength",
                   [](std::string &b) { b[b.find("binary ") + 7] ^= 0x01; }, "promises"},
        Corruption{"HeaderNewlineFlipped",
                   [](std::string &b) { b[b.find("\nkey")] = ' '; },
                   "header has 4 lines, expected 5"},
        Corruption{"WrongMagic", [](std::string &b) { b[0] = 'X'; }, "no TILECACHE magic"},
        Corruption{"FutureFormatVersion", [](std::string &b) { b[10] = '2'; },
                   "format version 2 (this build reads 1)"},
        Corruption{"HugeLength",
                   [](std::string &b) {
                     size_t at = b.find("binary ") + 7;
                     b.replace(at, b.find('\n', at) - at, "999999999999999999");
                   },
                   "truncated"},
        Corruption{"Garbage", [](std::string &b) { b.assign(5000, '\xff'); }, "magic"}),
    [](const ::testing::TestParamInfo<Corruption> &info) { return info.param.name; });

TEST_F(CacheTest, EntryOfAnotherKeyIsCorrupt) {
  Warnings w;
  DiskCache cache = open(w);
  cache.store(keyFor(1), makeEntry(1));
  fs::copy_file(cache.entryPath(keyFor(1)), cache.entryPath(keyFor(2)));
  EXPECT_FALSE(cache.lookup(keyFor(2)));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w.all(), "holds key " + keyFor(1))) << w.all();
  EXPECT_TRUE(cache.lookup(keyFor(1)));
}

TEST_F(CacheTest, EntryOfAnotherBuildIsIgnored) {
  Warnings w;
  open(w, 0, "build-old").store(keyFor(1), makeEntry(1));
  DiskCache cache = open(w, 0, "build-new");
  EXPECT_FALSE(cache.lookup(keyFor(1)));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w.all(), "written by compiler build build-old, this is build build-new"))
      << w.all();
  // This build's store replaces it.
  cache.store(keyFor(1), makeEntry(2));
  EXPECT_EQ(*open(w, 0, "build-new").lookup(keyFor(1)), makeEntry(2));
  EXPECT_EQ(w.size(), 1u) << w.all();
}

//===----------------------------------------------------------------------===//
// Planted files
//===----------------------------------------------------------------------===//

TEST_F(CacheTest, PlantedSymlinkIsIgnoredAndNotFollowedOnWrite) {
  Warnings w;
  DiskCache cache = open(w);
  std::string key = keyFor(1);
  // A perfectly valid entry for the key, elsewhere, and a plain victim file.
  std::string elsewhere = root + "/elsewhere";
  DiskCache other = DiskCache::open(elsewhere, "build-a", 0, w.callback());
  other.store(key, makeEntry(666));
  std::string victim = root + "/victim";
  writeFile(victim, "precious");
  std::string path = cache.entryPath(key);

  for (const std::string &target : {other.entryPath(key), victim}) {
    fs::remove(path);
    fs::create_symlink(target, path);
    w.clear();
    EXPECT_FALSE(cache.lookup(key)) << target;
    ASSERT_EQ(w.size(), 1u) << w.all();
    EXPECT_TRUE(contains(w.all(), "ignoring the cache entry " + path + ": it is a symbolic link"))
        << w.all();
    EXPECT_TRUE(fs::is_symlink(path)); // Ignored, not touched.
    cache.store(key, makeEntry(1));
    EXPECT_FALSE(fs::is_symlink(path));
    EXPECT_TRUE(fs::is_regular_file(path));
    EXPECT_EQ(*cache.lookup(key), makeEntry(1));
    EXPECT_EQ(w.size(), 1u) << w.all();
  }
  EXPECT_EQ(readFile(victim), "precious");
  EXPECT_EQ(*other.lookup(key), makeEntry(666));
}

TEST_F(CacheTest, PlantedFifoDoesNotHang) {
  Warnings w;
  DiskCache cache = open(w);
  std::string path = cache.entryPath(keyFor(1));
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_FALSE(cache.lookup(keyFor(1)));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w.all(), "not a regular file")) << w.all();
  cache.store(keyFor(1), makeEntry(1));
  EXPECT_EQ(*cache.lookup(keyFor(1)), makeEntry(1));
  EXPECT_EQ(cache.clear(), "");
}

TEST_F(CacheTest, EntryOfAnotherUserIsIgnored) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to give an entry to another user (chown)";
  Warnings w;
  DiskCache cache = open(w);
  cache.store(keyFor(1), makeEntry(1));
  std::string path = cache.entryPath(keyFor(1));
  ASSERT_EQ(chown(path.c_str(), 12345, 12345), 0);
  EXPECT_FALSE(open(w).lookup(keyFor(1)));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w.all(), "belongs to uid 12345, not to this user (uid 0)")) << w.all();
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(cache.list().at(0).summary, "[ignored: belongs to uid 12345]");
}

//===----------------------------------------------------------------------===//
// Unusable directories: memory only, exactly one warning
//===----------------------------------------------------------------------===//

/// Stores and looks up a few entries; all must come back from memory.
void expectMemoryOnly(DiskCache &cache, const std::string &dir) {
  DiskCache::Info info = cache.info();
  EXPECT_FALSE(info.writable);
  for (unsigned i = 10; i < 14; ++i)
    cache.store(keyFor(i), makeEntry(i));
  for (unsigned i = 10; i < 14; ++i) {
    auto hit = cache.lookup(keyFor(i));
    ASSERT_TRUE(hit) << i;
    EXPECT_EQ(*hit, makeEntry(i));
    EXPECT_FALSE(fs::exists(dir + "/" + keyFor(i) + ".tilecache"));
  }
}

TEST_F(CacheTest, UncreatableDirectoryIsMemoryOnlyWithOneWarning) {
  writeFile(root + "/file", "a regular file");
  dir = root + "/file/sub/cache";
  Warnings w;
  DiskCache cache = open(w);
  expectMemoryOnly(cache, dir);
  ASSERT_EQ(w.size(), 1u) << w.all();
  EXPECT_TRUE(contains(w.all(), "cannot create or open the cache directory " + dir)) << w.all();
  EXPECT_TRUE(contains(w.all(), "cached in memory only")) << w.all();
  EXPECT_EQ(cache.info().entries, 0u);
  EXPECT_TRUE(cache.list().empty());
  EXPECT_NE(cache.clear(), "");
  EXPECT_FALSE(cache.lookup(keyFor(10)));
  EXPECT_EQ(w.size(), 1u) << w.all();
}

TEST_F(CacheTest, ReadOnlyDirectoryIsMemoryOnlyWithOneWarning) {
  if (geteuid() == 0)
    GTEST_SKIP() << "running as root, which may write into a 0500 directory; "
                    "UncreatableDirectoryIsMemoryOnlyWithOneWarning covers the memory-only path";
  Warnings w;
  open(w).store(keyFor(1), makeEntry(1));
  ASSERT_EQ(chmod(dir.c_str(), 0500), 0);
  DiskCache cache = open(w);
  expectMemoryOnly(cache, dir);
  ASSERT_EQ(w.size(), 1u) << w.all();
  EXPECT_TRUE(contains(w.all(), "is not writable")) << w.all();
  // Existing entries are still read.
  EXPECT_EQ(*cache.lookup(keyFor(1)), makeEntry(1));
  EXPECT_EQ(cache.info().entries, 1u);
  EXPECT_EQ(w.size(), 1u) << w.all();
}

TEST_F(CacheTest, DirectoryOfAnotherUserIsNotUsed) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to give the directory to another user (chown)";
  Warnings w;
  open(w).store(keyFor(1), makeEntry(1));
  ASSERT_EQ(chown(dir.c_str(), 12345, 12345), 0);
  DiskCache cache = open(w);
  ASSERT_EQ(w.size(), 1u) << w.all();
  EXPECT_TRUE(contains(w.all(), "belongs to uid 12345, not to this user")) << w.all();
  EXPECT_FALSE(cache.lookup(keyFor(1)));
  expectMemoryOnly(cache, dir);
  EXPECT_EQ(w.size(), 1u) << w.all();
}

TEST_F(CacheTest, MemoryOnlyCacheKeepsItsCap) {
  writeFile(root + "/file", "");
  dir = root + "/file/cache";
  Warnings w;
  DiskCache cache = open(w, 2000);
  for (unsigned i = 0; i < 4; ++i)
    cache.store(keyFor(i), makeEntry(i, 600));
  ASSERT_TRUE(cache.lookup(keyFor(1)));
  cache.store(keyFor(4), makeEntry(4, 600));
  // 5 x ~650 bytes under 2000: three stay, the most recently used ones.
  EXPECT_FALSE(cache.lookup(keyFor(0)));
  EXPECT_FALSE(cache.lookup(keyFor(2)));
  EXPECT_TRUE(cache.lookup(keyFor(1)));
  EXPECT_TRUE(cache.lookup(keyFor(3)));
  EXPECT_TRUE(cache.lookup(keyFor(4)));
  EXPECT_EQ(w.size(), 1u) << w.all();
}

} // namespace
