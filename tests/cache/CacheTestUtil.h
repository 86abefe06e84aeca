//===- CacheTestUtil.h - fixtures of the disk cache tests -------*- C++ -*-===//
#ifndef TILE_TESTS_CACHE_CACHETESTUTIL_H
#define TILE_TESTS_CACHE_CACHETESTUTIL_H

#include "ReadFile.h"
#include "tile/DiskCache.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace tile::testing {

/// Collects the warnings a cache gives.
struct Warnings {
  std::shared_ptr<std::vector<std::string>> list =
      std::make_shared<std::vector<std::string>>();
  DiskCache::Warn callback() const {
    auto l = list;
    return [l](const std::string &m) { l->push_back(m); };
  }
  size_t size() const { return list->size(); }
  std::string all() const {
    std::string out;
    for (auto &w : *list)
      out += w + "\n";
    return out;
  }
  void clear() const { list->clear(); }
};

/// An entry whose bytes depend on `seed`, `size` bytes of binary (every byte
/// value appears, NULs included).
inline CacheEntry makeEntry(unsigned seed, size_t size = 256) {
  CacheEntry e;
  e.metadata = "kernel k" + std::to_string(seed) + " target sm_90\nthreads 128\n";
  e.binary.resize(size);
  for (size_t i = 0; i < size; ++i)
    e.binary[i] = char((i * 131 + seed * 7) & 0xff);
  return e;
}

inline std::string keyFor(unsigned seed) {
  return cacheKey({{"source", "kernel " + std::to_string(seed)}, {"target", "sm_90"}});
}

/// The file's bytes, "" where it cannot be opened.
inline std::string readFile(const std::string &path) {
  return test::readFile(path).value_or("");
}

inline void writeFile(const std::string &path, const std::string &data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

/// A fresh directory for each test, removed afterwards.
class CacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string base = std::filesystem::temp_directory_path() / "tilec-cache-test-XXXXXX";
    std::vector<char> tmpl(base.begin(), base.end());
    tmpl.push_back('\0');
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root = tmpl.data();
    dir = root + "/cache";
  }
  void TearDown() override {
    std::error_code ec;
    for (auto &p : std::filesystem::recursive_directory_iterator(root, ec))
      if (p.is_directory(ec) && !p.is_symlink(ec))
        chmod(p.path().c_str(), 0700);
    std::filesystem::remove_all(root, ec);
  }
  DiskCache open(const Warnings &w, uint64_t maxBytes = 0, const std::string &build = "build-a") {
    return DiskCache::open(dir, build, maxBytes, w.callback());
  }
  std::string root, dir;
};

} // namespace tile::testing

#endif // TILE_TESTS_CACHE_CACHETESTUTIL_H
