// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Parses jitvm source into a syntax tree (ast.h). The grammar, lowest precedence first:
//
//   program  = function*
//   function = "fn" name "(" [name ":" type ("," name ":" type)*] ")" ["->" type] block
//   block    = "{" statement* "}"
//   statement= "var" name "=" expr ";" | name "=" expr ";" | "return" expr ";" | expr ";"
//            | "if" expr block ["else" (block | if-statement)] | "while" expr block
//   expr     = and ("||" and)*          and  = compare ("&&" compare)*
//   compare  = sum [("=="|"!="|"<"|"<="|">"|">=") sum]
//   sum      = product (("+"|"-") product)*     product = unary (("*"|"/"|"%") unary)*
//   unary    = ("-"|"!") unary | primary
//   primary  = integer | float | name | name "(" args ")" | ("int"|"float") "(" expr ")"
//            | "(" expr ")"
//   type     = "int" | "float"
//
// Names are resolved and types checked afterwards, by checker.h.
#pragma once

#include <string>
#include <string_view>

#include "ast.h"
#include "jitscope/base/status.h"

namespace jitscope::jitvm {

base::StatusOr<Program> Parse(std::string_view source, const std::string& path);

}  // namespace jitscope::jitvm
