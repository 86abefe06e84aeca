//===- CacheFuzzer.cpp - fuzz target: cache entry bytes to an entry -------===//
//
// Input: the bytes of a cache entry file (tile/DiskCache.h documents the
// layout; corpus/cache holds valid and broken ones). Each input is tried as it
// is and "repaired": its last 32 bytes replaced by the SHA-256 of the rest, so
// that the fuzzer gets past the checksum into the header and the lengths.
//
// What must hold for both (a violation calls abort()):
//   - decodeEntry returns an entry or a reason; an accepted file is canonical:
//     encodeEntry(build, key, entry) gives back exactly its bytes, and its
//     header alone parses the same;
//   - written to <dir>/<key>.tilecache, DiskCache::lookup returns exactly that
//     entry when the file is valid, of this build and of this key, and
//     otherwise no entry with exactly one warning; list() shows the file
//     without reading past it. Nothing throws, crashes, hangs or leaks.
//
//===----------------------------------------------------------------------===//
#include "EntryFormat.h"
#include "tile/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tile;
using namespace tile::cache;

namespace {

/// The key and build id of the corpus's valid entries.
constexpr const char *kKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
constexpr const char *kBuild = "fuzz-build";
/// Files above the cap are refused before they are read.
constexpr uint64_t kMaxBytes = uint64_t(1) << 20;

[[noreturn]] void fail(const std::string &what, llvm::StringRef file) {
  std::fprintf(stderr, "fuzz-cache: %s\n(input: %zu bytes)\n", what.c_str(), file.size());
  std::abort();
}

struct State {
  std::string dir;
  std::vector<std::string> warnings;
  DiskCache cache;

  explicit State(std::string dir)
      : dir(dir), cache(DiskCache::open(dir, kBuild, kMaxBytes, [this](const std::string &w) {
          warnings.push_back(w);
        })) {}
  ~State() {
    cache.clear();
    ::rmdir(dir.c_str());
  }
};

State &state() {
  static State *s = [] {
    char templ[] = "/tmp/tile-fuzz-cache.XXXXXX";
    if (!::mkdtemp(templ)) {
      std::perror("fuzz-cache: mkdtemp");
      std::abort();
    }
    auto *st = new State(templ);
    if (!st->cache.info().writable || !st->warnings.empty())
      fail("cannot use the cache directory " + st->dir, "");
    std::atexit([] { delete s; });
    return st;
  }();
  return *s;
}

void writeFile(const std::string &path, llvm::StringRef data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    fail("cannot write " + path, data);
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n <= 0)
      fail("cannot write " + path, data);
    data = data.drop_front(size_t(n));
  }
  ::close(fd);
}

void checkFile(llvm::StringRef file) {
  // The decoder.
  Header header;
  CacheEntry entry;
  std::string error = decodeEntry(file, header, entry);
  if (error.empty()) {
    if (encodeEntry(header.buildId, header.key, entry) != file)
      fail("decodeEntry accepted a file that does not re-encode to the same bytes", file);
    Header prefix;
    if (!parseHeader(file.take_front(kMaxHeaderBytes), prefix).empty() ||
        prefix.key != header.key || prefix.buildId != header.buildId ||
        prefix.headerBytes != header.headerBytes)
      fail("the header of an accepted file does not parse alone", file);
  } else if (error.find('\n') != std::string::npos) {
    fail("a rejection reason spans lines: " + error, file);
  }

  // The same bytes on disk.
  State &s = state();
  std::string path = s.cache.entryPath(kKey);
  writeFile(path, file);
  s.warnings.clear();
  std::vector<DiskCache::Item> items = s.cache.list();
  if (items.size() != 1 || items[0].key != kKey || items[0].bytes != file.size())
    fail("list() does not show the one entry file", file);
  std::optional<CacheEntry> hit = s.cache.lookup(kKey);
  bool valid = error.empty() && header.key == kKey && header.buildId == kBuild &&
               file.size() <= kMaxBytes;
  if (hit.has_value() != valid)
    fail(std::string("lookup ") + (hit ? "accepted" : "rejected") + " a file that decodeEntry " +
             (error.empty() ? "accepts (key " + header.key + ", build " + header.buildId + ")"
                            : "rejects (" + error + ")"),
         file);
  if (hit && !(*hit == entry))
    fail("lookup returned another entry than decodeEntry", file);
  if (s.warnings.size() != (hit ? 0u : 1u))
    fail("lookup gave " + std::to_string(s.warnings.size()) + " warnings for one " +
             (hit ? "hit" : "rejection"),
         file);
  ::unlink(path.c_str());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef file(reinterpret_cast<const char *>(data), size);
  checkFile(file);
  if (size >= kChecksumBytes) {
    std::string repaired = file.drop_back(kChecksumBytes).str();
    std::array<uint8_t, 32> sum = llvm::SHA256::hash(llvm::arrayRefFromStringRef(repaired));
    repaired.append(reinterpret_cast<const char *>(sum.data()), sum.size());
    if (repaired != file)
      checkFile(repaired);
  }
  return 0;
}
