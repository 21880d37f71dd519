// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "lexer.h"

#include <cerrno>
#include <cstdlib>

#include <array>
#include <charconv>

namespace jitscope::jitvm {
namespace {

constexpr std::array<std::string_view, 8> kKeywords = {"fn",    "var",    "if",  "else",
                                                       "while", "return", "int", "float"};
// Longest first, so "->" wins over "-" and "<=" over "<".
constexpr std::array<std::string_view, 23> kPunctuation = {
    "->", "==", "!=", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%",
    "<",  ">",  "!",  "=",  "(",  ")",  "{",  "}", ",", ";", ":"};

bool IsIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Token Lexer::Fail(size_t at, const char* what) {
  error_ =
      base::Status::Error("%s:%u:%zu: error: %s", path_.c_str(), line_, at - line_start_ + 1, what);
  pos_ = source_.size();
  Token end;
  end.line = line_;
  return end;
}

Token Lexer::Next() {
  const std::string_view source = source_;
  size_t& i = pos_;
  while (i < source.size()) {
    const char c = source[i];
    if (c == '\n') {
      ++line_;
      line_start_ = ++i;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '#') {
      while (i < source.size() && source[i] != '\n') ++i;
    } else {
      break;
    }
  }
  Token token;
  token.line = line_;
  token.column = static_cast<uint32_t>(i - line_start_ + 1);
  if (i >= source.size() || !error_.ok()) return token;  // kEnd
  const char c = source[i];
  const size_t start = i;
  if (IsIdentifierStart(c)) {
    while (i < source.size() && (IsIdentifierStart(source[i]) || IsDigit(source[i]))) ++i;
    token.text = source.substr(start, i - start);
    token.kind = TokenKind::kIdentifier;
    for (std::string_view keyword : kKeywords) {
      if (token.text == keyword) token.kind = TokenKind::kKeyword;
    }
    return token;
  }
  if (IsDigit(c)) {
    while (i < source.size() && IsDigit(source[i])) ++i;
    bool is_float = false;
    if (i + 1 < source.size() && source[i] == '.' && IsDigit(source[i + 1])) {
      is_float = true;
      for (++i; i < source.size() && IsDigit(source[i]);) ++i;
    }
    if (i < source.size() && (source[i] == 'e' || source[i] == 'E')) {
      size_t j = i + 1;
      if (j < source.size() && (source[j] == '+' || source[j] == '-')) ++j;
      if (j < source.size() && IsDigit(source[j])) {
        is_float = true;
        for (i = j; i < source.size() && IsDigit(source[i]);) ++i;
      }
    }
    if (i < source.size() && IsIdentifierStart(source[i])) {
      return Fail(i, "a number must not run into a name");
    }
    token.text = source.substr(start, i - start);
    if (is_float) {
      token.kind = TokenKind::kFloatLiteral;
      // strtod needs a terminated string; literals are short.
      const std::string text(token.text);
      errno = 0;
      token.float_value = std::strtod(text.c_str(), nullptr);
      if (errno == ERANGE) return Fail(start, "floating-point literal out of range");
    } else {
      token.kind = TokenKind::kIntLiteral;
      uint64_t value = 0;
      auto [end, ec] =
          std::from_chars(token.text.data(), token.text.data() + token.text.size(), value);
      // 9223372036854775808 is allowed so that its negation spells the smallest int.
      if (ec != std::errc() || end != token.text.data() + token.text.size() ||
          value > (uint64_t{1} << 63)) {
        return Fail(start, "integer literal out of range");
      }
      token.int_value = static_cast<int64_t>(value);
    }
    return token;
  }
  for (std::string_view p : kPunctuation) {
    if (source.substr(i, p.size()) == p) {
      token.kind = TokenKind::kPunctuation;
      token.text = p;
      i += p.size();
      return token;
    }
  }
  return Fail(i, "unexpected character");
}

}  // namespace jitscope::jitvm
