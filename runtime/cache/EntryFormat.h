//===- EntryFormat.h - the bytes of one cache entry file --------*- C++ -*-===//
//
// Encoding and strict decoding of the entry layout documented in
// tile/DiskCache.h. Decoding checks every field, the exact file size and the
// SHA-256 checksum before it returns anything.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_RUNTIME_CACHE_ENTRYFORMAT_H
#define TILE_RUNTIME_CACHE_ENTRYFORMAT_H

#include "tile/DiskCache.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace tile::cache {

constexpr llvm::StringLiteral kMagic = "TILECACHE";
constexpr unsigned kFormatVersion = 1;
constexpr size_t kChecksumBytes = 32;
/// Longest header accepted: magic line, build id, key and two lengths.
constexpr size_t kMaxHeaderBytes = 1024;
/// Longest build id written into a header; longer ones are hashed.
constexpr size_t kMaxBuildIdBytes = 128;

/// The fields of an entry header.
struct Header {
  unsigned version = 0;
  std::string buildId;
  std::string key;
  uint64_t metadataBytes = 0;
  uint64_t binaryBytes = 0;
  /// Bytes of the header itself, up to and including its empty last line.
  size_t headerBytes = 0;
};

/// SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256Hex(llvm::StringRef data);

/// The whole file for `entry`. `buildId` and `key` must be printable ASCII
/// without spaces (the cache normalises both).
std::string encodeEntry(llvm::StringRef buildId, llvm::StringRef key,
                        const CacheEntry &entry);

/// Parses the header at the start of `data`, which may be just a prefix of
/// the file. Returns "" or why it is not a valid header.
std::string parseHeader(llvm::StringRef data, Header &header);

/// Decodes a whole file: header, exact size, checksum. Returns "" or why the
/// file is corrupt. The build id and key are returned, not checked.
std::string decodeEntry(llvm::StringRef file, Header &header, CacheEntry &entry);

} // namespace tile::cache

#endif // TILE_RUNTIME_CACHE_ENTRYFORMAT_H
