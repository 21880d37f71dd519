// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "support/v8_names.h"

#include <algorithm>
#include <charconv>

namespace jitscope::test_support {
namespace {

// Takes ":<number>" off the end of `rest` into `value`; false when it does not end so.
bool TakeNumber(std::string_view& rest, uint32_t& value) {
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == rest.size()) return false;
  const char* first = rest.data() + colon + 1;
  const char* last = rest.data() + rest.size();
  const auto [end, error] = std::from_chars(first, last, value);
  if (error != std::errc() || end != last) return false;
  rest = rest.substr(0, colon);
  return true;
}

}  // namespace

std::optional<V8CodeName> ParseV8CodeName(std::string_view name) {
  const size_t tag_end = name.find(':');
  if (tag_end == std::string_view::npos || tag_end == 0) return std::nullopt;
  V8CodeName parsed;
  parsed.tag = std::string(name.substr(0, tag_end));
  if (!std::all_of(parsed.tag.begin(), parsed.tag.end(),
                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); })) {
    return std::nullopt;
  }
  std::string_view rest = name.substr(tag_end + 1);
  if (!rest.empty() && std::string_view("~^+*").find(rest[0]) != std::string_view::npos) {
    parsed.tier = rest[0];
    rest.remove_prefix(1);
  }
  const size_t space = rest.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  parsed.function = std::string(rest.substr(0, space));
  rest = rest.substr(space + 1);
  if (parsed.tag == "JS") {
    uint32_t column = 0;
    if (!TakeNumber(rest, column)) return std::nullopt;
    parsed.column = column;
  }
  if (!TakeNumber(rest, parsed.line) || rest.empty()) return std::nullopt;
  parsed.script = std::string(rest);
  return parsed;
}

bool IsV8CodeOf(std::string_view name, char tier, std::string_view function,
                std::string_view script, uint32_t line, uint32_t column) {
  const std::optional<V8CodeName> parsed = ParseV8CodeName(name);
  return parsed && parsed->tier == tier && parsed->function == function &&
         parsed->script == script && parsed->line == line &&
         (!parsed->column || *parsed->column == column);
}

}  // namespace jitscope::test_support
