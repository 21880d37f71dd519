// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Splits jitvm source text into tokens, each with its line and column (1-based), which become the
// line tables the JIT reports. `#` starts a comment that runs to the end of the line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "jitscope/base/status.h"

namespace jitscope::jitvm {

enum class TokenKind : uint8_t {
  kIdentifier,
  kIntLiteral,
  kFloatLiteral,
  kKeyword,      // fn var if else while return int float
  kPunctuation,  // operators and ( ) { } , ; : ->
  kEnd,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  // points into the source
  uint32_t line = 0;
  uint32_t column = 0;
  int64_t int_value = 0;
  double float_value = 0;
};

// Produces the tokens of `source` one at a time, so a large program is never held as a token
// array (a million generated functions would need gigabytes). `path` only prefixes errors.
class Lexer {
 public:
  Lexer(std::string_view source, const std::string& path) : source_(source), path_(path) {}

  // The next token; kEnd at the end of the source and after an error, from then on.
  Token Next();
  // Why the lexer stopped early, if it did.
  const base::Status& error() const { return error_; }

 private:
  Token Fail(size_t at, const char* what);

  std::string_view source_;
  const std::string& path_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
  base::Status error_;
};

}  // namespace jitscope::jitvm
