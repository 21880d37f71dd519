// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Splits jitvm source text into tokens, each with its line and column (1-based), which become the
// line tables the JIT reports. `#` starts a comment that runs to the end of the line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// Tokenizes `source`; the last token is kEnd. `path` only prefixes error messages.
base::StatusOr<std::vector<Token>> Tokenize(std::string_view source, const std::string& path);

}  // namespace jitscope::jitvm
