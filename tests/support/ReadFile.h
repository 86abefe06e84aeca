//===- ReadFile.h - A test's input file as a string -------------*- C++ -*-===//
//
// The host tests read their kernels' .tile sources with this; an unreadable
// file is an error the test reports, not an empty source.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_TEST_READFILE_H
#define TILE_TEST_READFILE_H

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace tile::test {

/// The bytes of the file at `path`, or nullopt where it cannot be opened.
inline std::optional<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace tile::test

#endif // TILE_TEST_READFILE_H
