//===- Lexer.h - tokens of .tile sources ------------------------*- C++ -*-===//
#ifndef TILE_FRONTEND_LEXER_H
#define TILE_FRONTEND_LEXER_H

#include "tile/Frontend/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

namespace tile {

enum class Tok { Eof, Error, Ident, Int, Float, Str, Punct, Keyword };

struct Token {
  Tok kind = Tok::Eof;
  llvm::StringRef text;
  int64_t intValue = 0;
  double floatValue = 0;
  std::string strValue;
  llvm::SMLoc loc() const { return llvm::SMLoc::getFromPointer(text.data()); }
  bool is(Tok k, llvm::StringRef t) const { return kind == k && text == t; }
  bool isPunct(llvm::StringRef t) const { return is(Tok::Punct, t); }
  bool isKeyword(llvm::StringRef t) const { return is(Tok::Keyword, t); }
};

/// Splits a buffer into tokens; `//` comments run to the end of the line and
/// `/* */` comments may span lines. Bad literals and stray characters are
/// reported through `diags` and yield Tok::Error.
class Lexer {
public:
  Lexer(llvm::StringRef buffer, Diagnostics &diags) : buffer(buffer), cur(buffer.begin()), diags(diags) {}
  Token next();

private:
  Token lexNumber(const char *start);
  Token lexString(const char *start);
  Token make(Tok kind, const char *start) const {
    Token t;
    t.kind = kind;
    t.text = llvm::StringRef(start, cur - start);
    return t;
  }
  bool skipSpaceAndComments();

  llvm::StringRef buffer;
  const char *cur;
  Diagnostics &diags;
};

} // namespace tile

#endif // TILE_FRONTEND_LEXER_H
