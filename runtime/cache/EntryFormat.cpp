//===- EntryFormat.cpp - the bytes of one cache entry file ----------------===//
#include "EntryFormat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

using namespace tile;
using namespace tile::cache;
using llvm::StringRef;

std::string cache::sha256Hex(StringRef data) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(data)),
                     /*LowerCase=*/true);
}

std::string cache::encodeEntry(StringRef buildId, StringRef key, const CacheEntry &entry) {
  std::string out;
  out.reserve(128 + buildId.size() + key.size() + entry.metadata.size() +
              entry.binary.size() + kChecksumBytes);
  out += kMagic;
  out += " " + std::to_string(kFormatVersion) + "\n";
  out += "build " + buildId.str() + "\n";
  out += "key " + key.str() + "\n";
  out += "metadata " + std::to_string(entry.metadata.size()) + "\n";
  out += "binary " + std::to_string(entry.binary.size()) + "\n\n";
  out += entry.metadata;
  out += entry.binary;
  std::array<uint8_t, 32> sum = llvm::SHA256::hash(llvm::arrayRefFromStringRef(out));
  out.append(reinterpret_cast<const char *>(sum.data()), sum.size());
  return out;
}

namespace {

/// A header field value: printable ASCII, no spaces, not empty.
bool isToken(StringRef s) {
  if (s.empty() || s.size() > kMaxBuildIdBytes)
    return false;
  return llvm::all_of(s, [](char c) { return c > ' ' && c < 127; });
}

/// A decimal count without sign or leading zeros that fits 63 bits.
bool parseCount(StringRef s, uint64_t &value) {
  if (s.empty() || s.size() > 18 || (s.size() > 1 && s[0] == '0') ||
      !llvm::all_of(s, llvm::isDigit))
    return false;
  value = 0;
  for (char c : s)
    value = value * 10 + uint64_t(c - '0');
  return true;
}

/// Splits "NAME VALUE" and checks NAME; returns the value or "" on mismatch.
std::optional<StringRef> field(StringRef line, StringRef name) {
  auto [head, value] = line.split(' ');
  if (head != name || line.size() <= name.size())
    return std::nullopt;
  return value;
}

} // namespace

std::string cache::parseHeader(StringRef data, Header &header) {
  if (data.empty())
    return "empty file";
  if (!data.starts_with(kMagic))
    return "no TILECACHE magic (not a tilec cache entry)";
  size_t end = data.substr(0, kMaxHeaderBytes).find("\n\n");
  if (end == StringRef::npos)
    return data.size() < kMaxHeaderBytes ? "truncated header"
                                         : "header longer than 1024 bytes";
  header.headerBytes = end + 2;
  llvm::SmallVector<StringRef, 6> lines;
  data.substr(0, end).split(lines, '\n');
  if (lines.size() != 5)
    return "header has " + std::to_string(lines.size()) + " lines, expected 5";
  auto version = field(lines[0], kMagic);
  uint64_t v = 0;
  if (!version || !parseCount(*version, v))
    return "malformed first line";
  if (v != kFormatVersion)
    return "format version " + std::to_string(v) + " (this build reads " +
           std::to_string(kFormatVersion) + ")";
  header.version = unsigned(v);
  auto build = field(lines[1], "build");
  if (!build || !isToken(*build))
    return "malformed build line";
  header.buildId = build->str();
  auto key = field(lines[2], "key");
  if (!key || !isToken(*key))
    return "malformed key line";
  header.key = key->str();
  auto metadata = field(lines[3], "metadata");
  if (!metadata || !parseCount(*metadata, header.metadataBytes))
    return "malformed metadata length";
  auto binary = field(lines[4], "binary");
  if (!binary || !parseCount(*binary, header.binaryBytes))
    return "malformed binary length";
  return "";
}

std::string cache::decodeEntry(StringRef file, Header &header, CacheEntry &entry) {
  if (std::string err = parseHeader(file, header); !err.empty())
    return err;
  // Each count is below 2^60, so the sum cannot overflow.
  uint64_t expected =
      header.headerBytes + header.metadataBytes + header.binaryBytes + kChecksumBytes;
  if (file.size() < expected)
    return "truncated: " + std::to_string(file.size()) + " bytes, the header promises " +
           std::to_string(expected);
  if (file.size() > expected)
    return std::to_string(file.size()) + " bytes, the header promises " +
           std::to_string(expected);
  StringRef body = file.drop_back(kChecksumBytes);
  std::array<uint8_t, 32> sum = llvm::SHA256::hash(llvm::arrayRefFromStringRef(body));
  if (file.take_back(kChecksumBytes) != StringRef(reinterpret_cast<const char *>(sum.data()),
                                                  sum.size()))
    return "checksum mismatch";
  entry.metadata = body.substr(header.headerBytes, header.metadataBytes).str();
  entry.binary = body.substr(header.headerBytes + header.metadataBytes).str();
  return "";
}
