//===- Lexer.cpp - tokens of .tile sources --------------------------------===//
#include "tile/Frontend/Lexer.h"

#include "llvm/ADT/STLExtras.h"

#include <cerrno>
#include <cstdlib>

using namespace tile;
using llvm::SMLoc;
using llvm::StringRef;

static bool isIdentStart(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool isIdentChar(char c) { return isalnum((unsigned char)c) || c == '_'; }

static bool isKeyword(StringRef s) {
  static const char *keywords[] = {"kernel", "fn",   "let",           "for",
                                   "in",     "if",   "else",          "return",
                                   "true",   "false", "static_assert", "None"};
  return llvm::is_contained(keywords, s);
}

bool Lexer::skipSpaceAndComments() {
  const char *end = buffer.end();
  while (cur < end) {
    if (isspace((unsigned char)*cur)) {
      ++cur;
      continue;
    }
    if (cur + 1 < end && cur[0] == '/' && cur[1] == '/') {
      while (cur < end && *cur != '\n')
        ++cur;
      continue;
    }
    if (cur + 1 < end && cur[0] == '/' && cur[1] == '*') {
      const char *start = cur;
      cur += 2;
      while (cur + 1 < end && !(cur[0] == '*' && cur[1] == '/'))
        ++cur;
      if (cur + 1 >= end) {
        diags.error(SMLoc::getFromPointer(start), "unterminated block comment");
        cur = end;
        return false;
      }
      cur += 2;
      continue;
    }
    break;
  }
  return true;
}

Token Lexer::next() {
  if (!skipSpaceAndComments())
    return make(Tok::Error, cur);
  const char *start = cur;
  if (cur >= buffer.end())
    return make(Tok::Eof, start);
  char c = *cur;
  if (isIdentStart(c)) {
    while (cur < buffer.end() && isIdentChar(*cur))
      ++cur;
    Token t = make(Tok::Ident, start);
    if (isKeyword(t.text))
      t.kind = Tok::Keyword;
    return t;
  }
  if (isdigit((unsigned char)c))
    return lexNumber(start);
  if (c == '"')
    return lexString(start);
  static const char *twoChar[] = {"->", "<=", ">=", "==", "!=", "&&", "||", "<<",
                                  ">>", "+=", "-=", "*=", "/="};
  StringRef rest(cur, buffer.end() - cur);
  for (const char *p : twoChar) {
    if (rest.starts_with(p)) {
      cur += 2;
      return make(Tok::Punct, start);
    }
  }
  if (StringRef("+-*/%<>=!&|^~()[]{},;:.").contains(c)) {
    ++cur;
    return make(Tok::Punct, start);
  }
  ++cur;
  diags.error(SMLoc::getFromPointer(start),
              llvm::Twine("unexpected character '") + StringRef(start, 1) + "'");
  return make(Tok::Error, start);
}

Token Lexer::lexNumber(const char *start) {
  const char *end = buffer.end();
  auto bad = [&](const llvm::Twine &why) {
    while (cur < end && (isIdentChar(*cur) || *cur == '.'))
      ++cur;
    diags.error(SMLoc::getFromPointer(start),
                "invalid numeric literal '" + StringRef(start, cur - start) + "': " + why);
    return make(Tok::Error, start);
  };
  if (cur + 1 < end && cur[0] == '0' && (cur[1] == 'x' || cur[1] == 'X')) {
    cur += 2;
    const char *digits = cur;
    while (cur < end && isxdigit((unsigned char)*cur))
      ++cur;
    if (cur == digits)
      return bad("expected hexadecimal digits after '0x'");
    if (cur < end && isIdentChar(*cur))
      return bad("unexpected character after the digits");
    Token t = make(Tok::Int, start);
    uint64_t value;
    if (t.text.drop_front(2).getAsInteger(16, value) || value > (uint64_t)INT64_MAX)
      return bad("does not fit in 64 bits");
    t.intValue = (int64_t)value;
    return t;
  }
  bool isFloat = false;
  while (cur < end && isdigit((unsigned char)*cur))
    ++cur;
  if (cur + 1 < end && *cur == '.' && isdigit((unsigned char)cur[1])) {
    isFloat = true;
    ++cur;
    while (cur < end && isdigit((unsigned char)*cur))
      ++cur;
  }
  if (cur < end && (*cur == 'e' || *cur == 'E')) {
    isFloat = true;
    ++cur;
    if (cur < end && (*cur == '+' || *cur == '-'))
      ++cur;
    const char *digits = cur;
    while (cur < end && isdigit((unsigned char)*cur))
      ++cur;
    if (cur == digits)
      return bad("expected digits in the exponent");
  }
  if (cur < end && isIdentChar(*cur))
    return bad("unexpected character after the digits");
  Token t = make(isFloat ? Tok::Float : Tok::Int, start);
  std::string text = t.text.str();
  if (isFloat) {
    errno = 0;
    t.floatValue = strtod(text.c_str(), nullptr);
    if (errno == ERANGE && std::abs(t.floatValue) > 1.0)
      return bad("out of range for f64");
    return t;
  }
  uint64_t value;
  if (t.text.getAsInteger(10, value) || value > (uint64_t)INT64_MAX)
    return bad("does not fit in 64 bits");
  t.intValue = (int64_t)value;
  return t;
}

Token Lexer::lexString(const char *start) {
  ++cur;
  std::string value;
  while (cur < buffer.end() && *cur != '"' && *cur != '\n') {
    if (*cur == '\\' && cur + 1 < buffer.end()) {
      ++cur;
      value += *cur == 'n' ? '\n' : *cur;
      ++cur;
      continue;
    }
    value += *cur++;
  }
  if (cur >= buffer.end() || *cur != '"') {
    diags.error(SMLoc::getFromPointer(start), "unterminated string literal");
    return make(Tok::Error, start);
  }
  ++cur;
  Token t = make(Tok::Str, start);
  t.strValue = std::move(value);
  return t;
}
