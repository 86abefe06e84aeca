//===- DiskCache.cpp - on-disk cache of compiled kernels ------------------===//
//
// Every file operation goes through a descriptor of the cache directory
// (openat, fstatat, renameat, unlinkat), so a directory renamed or replaced
// under a running process cannot redirect it. Entries are opened with
// O_NOFOLLOW | O_NONBLOCK (no symlinks, no hanging on a planted FIFO), and
// written to a fresh O_EXCL temp file that rename() puts in place: rename
// replaces a planted symlink instead of writing through it, and readers see
// either the old file or the new one, never a partial one. No fsync: a file
// cut short by a crash fails its checksum and is a miss.
//
//===----------------------------------------------------------------------===//
#include "tile/DiskCache.h"

#include "EntryFormat.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <random>

using namespace tile;
using namespace tile::cache;
using llvm::StringRef;

namespace {

constexpr StringRef kEntrySuffix = ".tilecache";
constexpr StringRef kTempSuffix = ".tmp";
/// Temp files older than this are leftovers of a crashed writer.
constexpr int64_t kStaleTempSeconds = 3600;

std::string errnoText(int err) { return std::strerror(err); }

bool isLowerHex(StringRef s) {
  return llvm::all_of(s, [](char c) { return llvm::isDigit(c) || (c >= 'a' && c <= 'f'); });
}

/// Keys that name files directly: 16-128 lowercase hex digits.
bool isFileKey(StringRef key) { return key.size() >= 16 && key.size() <= 128 && isLowerHex(key); }

std::string normalizeKey(const std::string &key) {
  return isFileKey(key) ? key : sha256Hex(key);
}

std::string entryName(StringRef key) { return (key + kEntrySuffix).str(); }

/// The key of an entry file name, or "" when `name` is not one.
StringRef entryKeyOf(StringRef name) {
  if (!name.consume_back(kEntrySuffix) || !isFileKey(name))
    return "";
  return name;
}

/// ".<stem>.<pid>.<16 hex>.tmp", stem being a key or "probe".
bool isTempName(StringRef name) {
  if (!name.consume_front(".") || !name.consume_back(kTempSuffix))
    return false;
  auto [rest, random] = name.rsplit('.');
  auto [stem, pid] = rest.rsplit('.');
  return random.size() == 16 && isLowerHex(random) && !pid.empty() &&
         llvm::all_of(pid, llvm::isDigit) && (stem == "probe" || isFileKey(stem));
}

std::string tempName(StringRef stem) {
  std::random_device rd;
  unsigned long long r = (uint64_t(rd()) << 32) ^ rd();
  char random[17];
  std::snprintf(random, sizeof random, "%016llx", r);
  return "." + stem.str() + "." + std::to_string(::getpid()) + "." + random + kTempSuffix.str();
}

timespec nowTime() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts;
}

/// Sets both times of `fd` to now, from the fine-grained clock (the kernel's
/// own stamp is only as fine as a scheduler tick, too coarse to order entries
/// stored one after another).
void touch(int fd) {
  timespec ts[2] = {nowTime(), nowTime()};
  ::futimens(fd, ts);
}

int64_t mtimeNanos(const struct stat &st) {
  return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

bool writeAll(int fd, StringRef data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data = data.drop_front(size_t(n));
  }
  return true;
}

/// Reads up to `limit` bytes from `offset`; false on a read error.
bool readAt(int fd, uint64_t offset, uint64_t limit, std::string &out) {
  out.resize(limit);
  size_t got = 0;
  while (got < limit) {
    ssize_t n = ::pread(fd, out.data() + got, limit - got, off_t(offset + got));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return false;
    if (n == 0)
      break;
    got += size_t(n);
  }
  out.resize(got);
  return true;
}

/// A file descriptor closed at scope exit.
struct FileDesc {
  int fd = -1;
  explicit FileDesc(int fd) : fd(fd) {}
  FileDesc(const FileDesc &) = delete;
  FileDesc &operator=(const FileDesc &) = delete;
  ~FileDesc() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// One file of the directory that looks like an entry.
struct DirFile {
  std::string name;
  std::string key;
  struct stat st;
  /// A regular file of this user (anything else is ignored by lookups).
  bool usable;
};

/// The size cap from $TILEC_CACHE_MAX_BYTES ("1073741824", "512M", "2G").
std::optional<uint64_t> envMaxBytes(std::string &error) {
  std::optional<std::string> text = llvm::sys::Process::GetEnv("TILEC_CACHE_MAX_BYTES");
  if (!text || text->empty())
    return std::nullopt;
  StringRef s = *text;
  uint64_t scale = 1;
  if (s.consume_back("K") || s.consume_back("k"))
    scale = uint64_t(1) << 10;
  else if (s.consume_back("M") || s.consume_back("m"))
    scale = uint64_t(1) << 20;
  else if (s.consume_back("G") || s.consume_back("g"))
    scale = uint64_t(1) << 30;
  uint64_t value = 0;
  if (s.getAsInteger(10, value) || value == 0 || value > (uint64_t(1) << 50) / scale) {
    error = "TILEC_CACHE_MAX_BYTES='" + *text +
            "' is not a size (bytes, or a number with K, M or G); using 1 GiB";
    return std::nullopt;
  }
  return value * scale;
}

/// $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else ~/.cache/tilec.
std::string defaultDir() {
  if (auto dir = llvm::sys::Process::GetEnv("TILEC_CACHE_DIR"); dir && !dir->empty())
    return *dir;
  // The XDG spec says to ignore a relative XDG_CACHE_HOME.
  if (auto xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && llvm::sys::path::is_absolute(*xdg))
    return (*xdg + "/tilec");
  llvm::SmallString<128> home;
  if (!llvm::sys::path::home_directory(home))
    return "";
  llvm::sys::path::append(home, ".cache", "tilec");
  return std::string(home);
}

} // namespace

namespace tile {

class DiskCacheImpl {
public:
  std::string dir;
  /// The open cache directory; -1 when there is none to read.
  int dirFd = -1;
  /// Set by probeWritable(), which the first store() or info() runs: a hit
  /// (the JIT's common case) then costs no file creation in the directory.
  bool writable = false;
  std::once_flag probeOnce;
  std::string buildId;
  uint64_t maxBytes = DiskCache::kDefaultMaxBytes;
  DiskCache::Warn warn;

  /// Entries kept in this process only: on a memory-only cache, or when a
  /// store failed. Evicted least recently used first, under the same cap.
  struct MemoryEntry {
    CacheEntry entry;
    uint64_t lastUse;
  };
  std::mutex memoryMutex;
  std::map<std::string, MemoryEntry> memory;
  uint64_t memoryBytes = 0;
  uint64_t useCounter = 0;

  ~DiskCacheImpl() {
    if (dirFd >= 0)
      ::close(dirFd);
  }

  std::string pathOf(StringRef name) const { return dir + "/" + name.str(); }

  /// Opens or creates the directory; one warning when it is unusable.
  void openDirectory();
  /// Whether new entries can be written to the directory (probed once, with
  /// one warning when they cannot).
  bool probeWritable();
  std::vector<DirFile> scan(std::string *error) const;
  void evict(StringRef keepName);
  /// Removes `name` if it is still the file `st` describes; "" or the error.
  std::string removeIfSame(StringRef name, const struct stat &st);

  void storeInMemory(const std::string &key, const CacheEntry &entry);
  std::optional<CacheEntry> lookupInMemory(const std::string &key);
};

} // namespace tile

void DiskCacheImpl::openDirectory() {
  if (dir.empty()) {
    warn("no cache directory: $TILEC_CACHE_DIR, $XDG_CACHE_HOME and $HOME are unset; "
         "compiled kernels are cached in memory only");
    return;
  }
  llvm::SmallString<256> abs(dir);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  dir = std::string(abs);
  StringRef parent = llvm::sys::path::parent_path(dir);
  std::error_code ec;
  if (!parent.empty())
    ec = llvm::sys::fs::create_directories(parent);
  if (!ec && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    ec = std::error_code(errno, std::generic_category());
  if (!ec) {
    dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd < 0)
      ec = std::error_code(errno, std::generic_category());
  }
  if (ec) {
    warn("cannot create or open the cache directory " + dir + ": " + ec.message() +
         "; compiled kernels are cached in memory only");
    return;
  }
  struct stat st;
  if (::fstat(dirFd, &st) != 0) {
    warn("cannot open the cache directory " + dir + ": " + errnoText(errno) +
         "; compiled kernels are cached in memory only");
    ::close(dirFd);
    dirFd = -1;
    return;
  }
  if (st.st_uid != ::geteuid()) {
    warn("the cache directory " + dir + " belongs to uid " + std::to_string(st.st_uid) +
         ", not to this user (uid " + std::to_string(::geteuid()) +
         "); compiled kernels are cached in memory only");
    ::close(dirFd);
    dirFd = -1;
    return;
  }
}

bool DiskCacheImpl::probeWritable() {
  std::call_once(probeOnce, [&] {
    if (dirFd < 0)
      return;
    // Write access is what a store needs; probe it with a real file (access()
    // misses read-only mounts for some users and ACLs).
    std::string probe = tempName("probe");
    int fd = ::openat(dirFd, probe.c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
      warn("the cache directory " + dir + " is not writable (" + errnoText(errno) +
           "); new kernels are cached in memory only");
      return;
    }
    ::close(fd);
    ::unlinkat(dirFd, probe.c_str(), 0);
    writable = true;
  });
  return writable;
}

std::vector<DirFile> DiskCacheImpl::scan(std::string *error) const {
  std::vector<DirFile> files;
  if (dirFd < 0)
    return files;
  // A descriptor of its own: readdir's position is per open file.
  int fd = ::openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd < 0 ? nullptr : ::fdopendir(fd);
  if (!d) {
    if (error)
      *error = "cannot read the cache directory " + dir + ": " + errnoText(errno);
    if (fd >= 0)
      ::close(fd);
    return files;
  }
  uid_t uid = ::geteuid();
  while (dirent *e = ::readdir(d)) {
    StringRef name(e->d_name);
    StringRef key = entryKeyOf(name);
    bool temp = key.empty() && isTempName(name);
    if (key.empty() && !temp)
      continue;
    DirFile f{name.str(), key.str(), {}, false};
    if (::fstatat(dirFd, e->d_name, &f.st, AT_SYMLINK_NOFOLLOW) != 0)
      continue; // Removed meanwhile.
    f.usable = S_ISREG(f.st.st_mode) && f.st.st_uid == uid;
    files.push_back(std::move(f));
  }
  ::closedir(d);
  llvm::sort(files, [](const DirFile &a, const DirFile &b) { return a.name < b.name; });
  return files;
}

std::string DiskCacheImpl::removeIfSame(StringRef name, const struct stat &st) {
  struct stat now;
  std::string n = name.str();
  if (::fstatat(dirFd, n.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? "" : errnoText(errno);
  // Another process may have renamed a fresh entry into place meanwhile.
  if (now.st_dev != st.st_dev || now.st_ino != st.st_ino)
    return "";
  if (::unlinkat(dirFd, n.c_str(), 0) != 0 && errno != ENOENT)
    return errnoText(errno);
  return "";
}

void DiskCacheImpl::evict(StringRef keepName) {
  std::vector<DirFile> files = scan(nullptr);
  int64_t staleBefore = (int64_t(nowTime().tv_sec) - kStaleTempSeconds) * 1000000000;
  uint64_t total = 0;
  std::vector<DirFile *> entries;
  for (DirFile &f : files) {
    if (!f.usable)
      continue;
    if (f.key.empty()) {
      if (mtimeNanos(f.st) < staleBefore)
        ::unlinkat(dirFd, f.name.c_str(), 0);
      continue;
    }
    total += uint64_t(f.st.st_size);
    entries.push_back(&f);
  }
  if (total <= maxBytes)
    return;
  // Oldest use first; the name breaks ties so every process agrees.
  llvm::sort(entries, [](const DirFile *a, const DirFile *b) {
    int64_t ta = mtimeNanos(a->st), tb = mtimeNanos(b->st);
    return ta != tb ? ta < tb : a->name < b->name;
  });
  for (DirFile *f : entries) {
    if (total <= maxBytes)
      break;
    if (f->name == keepName)
      continue;
    if (::unlinkat(dirFd, f->name.c_str(), 0) != 0 && errno != ENOENT) {
      warn("cannot evict " + pathOf(f->name) + ": " + errnoText(errno));
      continue;
    }
    total -= uint64_t(f->st.st_size);
  }
}

void DiskCacheImpl::storeInMemory(const std::string &key, const CacheEntry &entry) {
  std::lock_guard<std::mutex> lock(memoryMutex);
  if (auto it = memory.find(key); it != memory.end()) {
    memoryBytes -= it->second.entry.metadata.size() + it->second.entry.binary.size();
    memory.erase(it);
  }
  memory[key] = {entry, ++useCounter};
  memoryBytes += entry.metadata.size() + entry.binary.size();
  while (memoryBytes > maxBytes && memory.size() > 1) {
    auto oldest = memory.end();
    for (auto it = memory.begin(); it != memory.end(); ++it)
      if (it->first != key && (oldest == memory.end() || it->second.lastUse < oldest->second.lastUse))
        oldest = it;
    memoryBytes -= oldest->second.entry.metadata.size() + oldest->second.entry.binary.size();
    memory.erase(oldest);
  }
}

std::optional<CacheEntry> DiskCacheImpl::lookupInMemory(const std::string &key) {
  std::lock_guard<std::mutex> lock(memoryMutex);
  auto it = memory.find(key);
  if (it == memory.end())
    return std::nullopt;
  it->second.lastUse = ++useCounter;
  return it->second.entry;
}

DiskCache::DiskCache(std::unique_ptr<DiskCacheImpl> impl) : impl(std::move(impl)) {}
DiskCache::~DiskCache() = default;
DiskCache::DiskCache(DiskCache &&) noexcept = default;
DiskCache &DiskCache::operator=(DiskCache &&) noexcept = default;

DiskCache DiskCache::open(std::string dir, std::string buildId, uint64_t maxBytes, Warn warn) {
  auto impl = std::make_unique<DiskCacheImpl>();
  if (!warn)
    warn = [](const std::string &message) {
      llvm::errs() << "tilec: warning: " << message << "\n";
    };
  impl->warn = std::move(warn);
  // The build id goes into every header as one token.
  bool token = !buildId.empty() && buildId.size() <= kMaxBuildIdBytes &&
               llvm::all_of(buildId, [](char c) { return c > ' ' && c < 127; });
  impl->buildId = token ? buildId : sha256Hex(buildId);
  if (maxBytes == 0) {
    std::string error;
    maxBytes = envMaxBytes(error).value_or(kDefaultMaxBytes);
    if (!error.empty())
      impl->warn(error);
  }
  impl->maxBytes = maxBytes;
  impl->dir = dir.empty() ? defaultDir() : std::move(dir);
  impl->openDirectory();
  return DiskCache(std::move(impl));
}

std::optional<CacheEntry> DiskCache::lookup(const std::string &key) {
  std::string k = normalizeKey(key);
  if (auto hit = impl->lookupInMemory(k))
    return hit;
  if (impl->dirFd < 0)
    return std::nullopt;
  std::string name = entryName(k);
  std::string path = impl->pathOf(name);
  FileDesc fd(::openat(impl->dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.fd < 0) {
    if (errno == ENOENT)
      return std::nullopt;
    if (errno == ELOOP)
      impl->warn("ignoring the cache entry " + path + ": it is a symbolic link");
    else
      impl->warn("cannot read the cache entry " + path + ": " + errnoText(errno));
    return std::nullopt;
  }
  struct stat st;
  if (::fstat(fd.fd, &st) != 0) {
    impl->warn("cannot read the cache entry " + path + ": " + errnoText(errno));
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    impl->warn("ignoring the cache entry " + path + ": not a regular file");
    return std::nullopt;
  }
  if (st.st_uid != ::geteuid()) {
    impl->warn("ignoring the cache entry " + path + ": it belongs to uid " +
               std::to_string(st.st_uid) + ", not to this user (uid " +
               std::to_string(::geteuid()) + ")");
    return std::nullopt;
  }
  if (uint64_t(st.st_size) > impl->maxBytes) {
    impl->warn("ignoring the cache entry " + path + ": " + std::to_string(st.st_size) +
               " bytes, over the cache cap of " + std::to_string(impl->maxBytes));
    return std::nullopt;
  }
  std::string data;
  if (!readAt(fd.fd, 0, uint64_t(st.st_size), data)) {
    impl->warn("cannot read the cache entry " + path + ": " + errnoText(errno));
    return std::nullopt;
  }
  Header header;
  CacheEntry entry;
  std::string error = decodeEntry(data, header, entry);
  if (error.empty() && header.key != k)
    error = "it holds key " + header.key;
  if (!error.empty()) {
    std::string removed = impl->removeIfSame(name, st);
    impl->warn("ignoring the corrupt cache entry " + path + " (" + error + "); " +
               (removed.empty() ? "removed it" : "could not remove it: " + removed));
    return std::nullopt;
  }
  if (header.buildId != impl->buildId) {
    impl->warn("ignoring the cache entry " + path + ": written by compiler build " +
               header.buildId.substr(0, 16) + ", this is build " +
               impl->buildId.substr(0, 16));
    return std::nullopt;
  }
  touch(fd.fd);
  return entry;
}

void DiskCache::store(const std::string &key, const CacheEntry &entry) {
  std::string k = normalizeKey(key);
  if (!impl->probeWritable())
    return impl->storeInMemory(k, entry);
  std::string data = encodeEntry(impl->buildId, k, entry);
  std::string name = entryName(k);
  if (data.size() > impl->maxBytes) {
    impl->warn("the cache entry " + impl->pathOf(name) + " would be " +
               std::to_string(data.size()) + " bytes, over the cache cap of " +
               std::to_string(impl->maxBytes) + "; kept in memory only");
    return impl->storeInMemory(k, entry);
  }
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 4 && fd < 0; ++attempt) {
    temp = tempName(k);
    fd = ::openat(impl->dirFd, temp.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  auto fail = [&](const std::string &what, int err) {
    if (fd >= 0)
      ::close(fd);
    ::unlinkat(impl->dirFd, temp.c_str(), 0);
    impl->warn("cannot " + what + " " + impl->pathOf(name) + ": " + errnoText(err) +
               "; kept in memory only");
    impl->storeInMemory(k, entry);
  };
  if (fd < 0)
    return fail("create a temp file for", errno);
  if (!writeAll(fd, data))
    return fail("write", errno ? errno : EIO);
  touch(fd);
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0)
    return fail("write", errno);
  // rename() replaces whatever is at `name`, a planted symlink included,
  // without following it.
  if (::renameat(impl->dirFd, temp.c_str(), impl->dirFd, name.c_str()) != 0)
    return fail("rename a temp file to", errno);
  impl->evict(name);
}

DiskCache::Info DiskCache::info() const {
  Info info;
  info.dir = impl->dir;
  info.writable = impl->probeWritable();
  info.maxBytes = impl->maxBytes;
  for (const DirFile &f : impl->scan(nullptr)) {
    if (f.key.empty())
      continue;
    ++info.entries;
    if (f.usable)
      info.bytes += uint64_t(f.st.st_size);
  }
  return info;
}

std::vector<DiskCache::Item> DiskCache::list() const {
  std::vector<Item> items;
  uid_t uid = ::geteuid();
  for (const DirFile &f : impl->scan(nullptr)) {
    if (f.key.empty())
      continue;
    Item item{f.key, uint64_t(f.st.st_size), int64_t(f.st.st_mtim.tv_sec), ""};
    if (S_ISLNK(f.st.st_mode)) {
      item.summary = "[ignored: a symbolic link]";
    } else if (!S_ISREG(f.st.st_mode)) {
      item.summary = "[ignored: not a regular file]";
    } else if (f.st.st_uid != uid) {
      item.summary = "[ignored: belongs to uid " + std::to_string(f.st.st_uid) + "]";
    } else {
      FileDesc fd(::openat(impl->dirFd, f.name.c_str(),
                           O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
      std::string head, meta;
      Header header;
      std::string error = fd.fd < 0 ? errnoText(errno)
                          : !readAt(fd.fd, 0, kMaxHeaderBytes, head)
                              ? errnoText(errno)
                              : parseHeader(head, header);
      if (error.empty() && header.key != f.key)
        error = "holds key " + header.key;
      if (!error.empty()) {
        item.summary = "[invalid: " + error + "]";
      } else {
        readAt(fd.fd, header.headerBytes, std::min<uint64_t>(header.metadataBytes, 200), meta);
        item.summary = StringRef(meta).split('\n').first.str();
        if (header.buildId != impl->buildId)
          item.summary = "[other compiler build] " + item.summary;
      }
    }
    items.push_back(std::move(item));
  }
  llvm::sort(items, [](const Item &a, const Item &b) { return a.key < b.key; });
  return items;
}

std::string DiskCache::clear() {
  {
    std::lock_guard<std::mutex> lock(impl->memoryMutex);
    impl->memory.clear();
    impl->memoryBytes = 0;
  }
  if (impl->dirFd < 0)
    return impl->dir.empty() ? "" : "cannot clear " + impl->dir + ": the directory cannot be opened";
  std::string error;
  std::vector<DirFile> files = impl->scan(&error);
  for (const DirFile &f : files) {
    if (S_ISDIR(f.st.st_mode))
      continue;
    if (::unlinkat(impl->dirFd, f.name.c_str(), 0) != 0 && errno != ENOENT && error.empty())
      error = "cannot remove " + impl->pathOf(f.name) + ": " + errnoText(errno);
  }
  return error;
}

std::string DiskCache::entryPath(const std::string &key) const {
  if (impl->dir.empty())
    return "";
  return impl->pathOf(entryName(normalizeKey(key)));
}
