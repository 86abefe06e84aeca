//===- Parser.h - recursive-descent parser for .tile sources ----*- C++ -*-===//
#ifndef TILE_FRONTEND_PARSER_H
#define TILE_FRONTEND_PARSER_H

#include "tile/Frontend/AST.h"
#include "tile/Frontend/Diagnostics.h"

#include <memory>

namespace tile {

/// Parses the main buffer of `diags`' SourceMgr. Returns null after reporting
/// the first syntax error (later errors would mostly be noise).
std::unique_ptr<ast::Module> parseModule(Diagnostics &diags);

} // namespace tile

#endif // TILE_FRONTEND_PARSER_H
