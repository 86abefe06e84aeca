//===- DiskCache.h - on-disk cache of compiled kernels ----------*- C++ -*-===//
//
// The cache the JIT runtime keeps between processes: one file per kernel
// variant holding its metadata and binary together, a checksum on every entry,
// atomic writes, and a size cap with least-recently-used eviction.
//
// Location: $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec (when absolute),
// else ~/.cache/tilec. The last directory is created with mode 0700.
//
// Files in the directory:
//   <key>.tilecache          one entry (key: 16-128 lowercase hex digits;
//                            cacheKey() gives 64)
//   .<key>.<pid>.<rand>.tmp  an entry being written; renamed into place
//
// Entry layout (format version 1):
//   "TILECACHE 1\n"
//   "build <compiler build id>\n"
//   "key <key>\n"
//   "metadata <byte count>\n"
//   "binary <byte count>\n"
//   "\n"
//   <metadata bytes> <binary bytes>
//   <SHA-256 of every byte before it, 32 raw bytes>
//
// Nothing here throws or aborts. A truncated or corrupt entry, a symbolic
// link, a file of another user or an entry of another compiler build is
// reported through the Warn callback and is a miss (corrupt entries are also
// removed). A directory that cannot be created or written makes the cache keep
// new entries in memory only, with one warning; existing entries of a
// read-only directory are still read. All methods may be called from several
// threads and several processes at once.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_DISKCACHE_H
#define TILE_DISKCACHE_H

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tile {

/// What the cache keeps for one kernel variant. The cache does not look
/// inside: metadata is text the caller defines (its first line is what
/// `tilec cache list` shows), binary is the code object (PTX, cubin, hsaco).
struct CacheEntry {
  std::string metadata;
  std::string binary;

  bool operator==(const CacheEntry &) const = default;
};

class DiskCacheImpl;

class DiskCache {
public:
  /// Receives one human-readable warning (no trailing newline).
  using Warn = std::function<void(const std::string &)>;

  /// Default size cap: 1 GiB.
  static constexpr uint64_t kDefaultMaxBytes = uint64_t(1) << 30;

  /// Opens (creating it if needed) the cache in `dir`, or in the default
  /// location when `dir` is empty. `buildId` identifies the compiler (see
  /// compilerBuildId()); entries written by another build are ignored.
  /// `maxBytes` 0 takes $TILEC_CACHE_MAX_BYTES, else kDefaultMaxBytes.
  /// `warn` empty writes "tilec: warning: ..." lines to stderr.
  /// Never fails: an unusable directory gives a memory-only cache.
  static DiskCache open(std::string dir, std::string buildId, uint64_t maxBytes,
                        Warn warn);

  ~DiskCache();
  /// Move-only; a moved-from cache may only be assigned to or destroyed.
  DiskCache(DiskCache &&) noexcept;
  DiskCache &operator=(DiskCache &&) noexcept;

  /// The entry of `key`, verified against its checksum, build id and key; on
  /// a hit the entry becomes the most recently used one.
  std::optional<CacheEntry> lookup(const std::string &key);

  /// Stores `entry` under `key` (temp file in the cache directory, then
  /// rename), then evicts least recently used entries while the directory
  /// holds more than the cap. Failures are warnings; the entry is then kept
  /// in memory for this process.
  void store(const std::string &key, const CacheEntry &entry);

  struct Info {
    /// The directory, absolute; empty when no location could be found.
    std::string dir;
    /// False when new entries stay in memory only.
    bool writable = false;
    /// Entry files in the directory and their bytes (memory entries are not
    /// counted).
    uint64_t entries = 0, bytes = 0, maxBytes = 0;
  };
  Info info() const;

  struct Item {
    std::string key;
    uint64_t bytes = 0;
    int64_t lastUseUnixSeconds = 0;
    /// The first line of the metadata, or why the entry would be ignored,
    /// in brackets ("[other compiler build] ...", "[invalid: ...]").
    std::string summary;
  };
  /// One item per entry file, sorted by key. Reads headers only; the
  /// checksum is checked by lookup().
  std::vector<Item> list() const;

  /// Removes every entry file (and every leftover temp file) of the
  /// directory, and the memory entries; other files are left alone. Returns
  /// "" or the first error.
  std::string clear();

  /// The path an entry of `key` has (whether or not it exists); empty for a
  /// memory-only cache without a directory.
  std::string entryPath(const std::string &key) const;

private:
  explicit DiskCache(std::unique_ptr<DiskCacheImpl> impl);
  std::unique_ptr<DiskCacheImpl> impl;
};

/// The cache key of a kernel variant: SHA-256, as 64 lowercase hex digits, of
/// a canonical serialisation of `parts` (name, value) — sorted, each length-
/// prefixed, so the order of `parts` does not matter and no two different
/// sets of parts serialise alike. The caller passes every input that changes
/// the output, e.g. {"build", compilerBuildId()}, {"target", "sm_90"},
/// {"options", ...}, {"source", text}, one {"define:T", "f16"} per
/// compile-time parameter and one {"assume:x", "16"} per specialisation.
/// A key that is not 16-128 lowercase hex digits is hashed by the cache before
/// it names a file.
std::string cacheKey(const std::vector<std::pair<std::string, std::string>> &parts);

/// Identifies this compiler build: SHA-256 (hex) of the tilec version, the
/// LLVM version it was built against and the one it runs with, and a hash of
/// the compiler's sources taken at build time.
const std::string &compilerBuildId();

} // namespace tile

#endif // TILE_DISKCACHE_H
