//===- CacheCommand.cpp - `tilec cache info|list|clear` -------------------===//
//
// A thin shell over tile/DiskCache.h: shows or empties the disk cache that
// the JIT runtime keeps.
//
//===----------------------------------------------------------------------===//
#include "Tilec.h"
#include "tile/DiskCache.h"

#include <fmt/core.h>

#include <cstdio>
#include <ctime>

using namespace tilec;

namespace {

const char *kCacheUsage = R"(usage: tilec cache info|list|clear [--dir DIR]

Shows or empties the disk cache of compiled kernels that the JIT runtime keeps
(one file per kernel variant, KEY.tilecache). DIR defaults to $TILEC_CACHE_DIR,
else $XDG_CACHE_HOME/tilec, else ~/.cache/tilec; it is created with mode 0700.
The size cap is $TILEC_CACHE_MAX_BYTES (bytes, or a number with K, M or G;
default 1 GiB); the least recently used entries go first.

  info    the location, entry count, bytes, size cap, writability and the
          build id of this compiler
  list    one line per entry, sorted by key: KEY BYTES LAST-USE(UTC) SUMMARY
  clear   removes the entries and leftover temp files, nothing else

Warnings about the cache (an unwritable directory, corrupt entries) go to
stderr. exit codes: 0 success, 2 bad command line or a cache directory that
cannot be opened or cleared
)";

std::string utcTime(int64_t seconds) {
  std::time_t t = std::time_t(seconds);
  std::tm tm{};
  char text[32] = "?";
  if (gmtime_r(&t, &tm))
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

} // namespace

int tilec::runCacheCommand(const std::vector<std::string> &args) {
  std::string action, dir;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--help" || a == "-h")
      return fmt::print("{}", kCacheUsage), kOk;
    if (a == "--dir") {
      if (i + 1 >= args.size())
        return usageError("option '--dir' needs a value");
      dir = args[++i];
      if (dir.empty())
        return usageError("option '--dir' needs a value");
    } else if (a.rfind("--dir=", 0) == 0) {
      dir = a.substr(6);
      if (dir.empty())
        return usageError("option '--dir' needs a value");
    } else if (!a.empty() && a[0] == '-') {
      return usageError("unknown option '" + a + "'");
    } else if (action.empty()) {
      action = a;
    } else {
      return usageError("unexpected argument '" + a + "' (one action per command)");
    }
  }
  if (action.empty())
    return usageError("cache needs an action: info, list or clear");
  if (action != "info" && action != "list" && action != "clear")
    return usageError("unknown cache action '" + action + "' (expected info, list or clear)");

  tile::DiskCache cache = tile::DiskCache::open(
      dir, tile::compilerBuildId(), 0,
      [](const std::string &m) { fmt::print(stderr, "tilec: warning: {}\n", m); });
  tile::DiskCache::Info info = cache.info();
  if (action == "info") {
    fmt::print("location: {}\n", info.dir.empty() ? "(none)" : info.dir);
    fmt::print("writable: {}\n",
               info.writable ? "yes" : "no (new kernels are cached in memory only)");
    fmt::print("entries: {}\nbytes: {}\nmax bytes: {}\n", info.entries, info.bytes,
               info.maxBytes);
    fmt::print("build id: {}\n", tile::compilerBuildId());
    return kOk;
  }
  if (action == "list") {
    for (const tile::DiskCache::Item &item : cache.list())
      fmt::print("{} {} {} {}\n", item.key, item.bytes, utcTime(item.lastUseUnixSeconds),
                 item.summary);
    return kOk;
  }
  std::string error = cache.clear();
  if (!error.empty())
    return usageError(error);
  fmt::print("removed {} entries from {}\n", info.entries, info.dir);
  return kOk;
}
