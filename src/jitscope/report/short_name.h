// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A function's name made to fit a column without losing what tells it apart. A C++ name's end is
// its function ("jitscope::jitvm::Vm::Run(std::span<long const, 18446744073709551615ul>)" is
// Run), so it is shortened from the inside out rather than cut at the end: its parameter list
// first ("Run(...)"), then its template arguments ("std::vector<...>::push_back(...)"), then its
// outer scopes ("...::Vm::Run(...)"), and only then cut at the start. Other names (a JIT's
// "JS:*mixHot /app.js:4:16", "[kernel]") say most at their start, and are cut at the end.
#pragma once

#include <cstddef>
#include <string>

namespace jitscope::report {

// `name` in at most `width` bytes (0: whole), never split inside a UTF-8 character.
std::string ShortName(const std::string& name, size_t width);

}  // namespace jitscope::report
