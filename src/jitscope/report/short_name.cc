// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/short_name.h"

#include <optional>
#include <string_view>
#include <vector>

#include "jitscope/report/utf8.h"

namespace jitscope::report {
namespace {

// The characters an operator's name may hold after "operator": skipped, so that "operator<" or
// "operator()" is not taken for a bracket.
constexpr std::string_view kOperatorChars = "<>=!+-*/%^&|~()[],";

// For each byte of `name`, whether it is at the top level (outside every bracket pair); nullopt
// when the brackets do not pair up (a name a demangler did not write), where nothing is moved.
std::optional<std::vector<bool>> TopLevel(std::string_view name) {
  std::vector<bool> top(name.size(), false);
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name.substr(i).starts_with("operator")) {
      size_t end = i + 8;
      while (end < name.size() && name[end] == ' ') ++end;
      const size_t first = end;
      while (end < name.size() && kOperatorChars.find(name[end]) != std::string_view::npos) {
        // "operator()(int)": the operator's "()" ends where its parameters begin.
        if (end > first && name[end] == '(' && name[end - 1] == ')') break;
        ++end;
      }
      for (size_t j = i; j < end; ++j) top[j] = depth == 0;
      i = end - 1;
      continue;
    }
    const char c = name[i];
    if (c == '(' || c == '<' || c == '[') {
      top[i] = depth == 0;
      ++depth;
    } else if (c == ')' || c == '>' || c == ']') {
      if (--depth < 0) return std::nullopt;
      top[i] = depth == 0;
    } else {
      top[i] = depth == 0;
    }
  }
  if (depth != 0) return std::nullopt;
  return top;
}

// `name` with the insides of its top-level `open` groups replaced by "..." (only the last group
// when `last`).
std::string Collapse(const std::string& name, char open, char close, bool last) {
  const std::optional<std::vector<bool>> top = TopLevel(name);
  if (!top) return name;
  std::vector<std::pair<size_t, size_t>> groups;  // [open, close]
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] != open || !(*top)[i]) continue;
    size_t end = i + 1;
    while (end < name.size() && !(name[end] == close && (*top)[end])) ++end;
    if (end == name.size()) return name;
    if (end > i + 1) groups.emplace_back(i, end);
    i = end;
  }
  if (groups.empty()) return name;
  if (last) groups.erase(groups.begin(), groups.end() - 1);
  std::string out;
  size_t from = 0;
  for (const auto& [begin, end] : groups) {
    out += name.substr(from, begin + 1 - from) + "...";
    from = end;
  }
  return out + name.substr(from);
}

// `name` from its `drop`th top-level "::" on, after "...": its outer scopes left out.
std::optional<std::string> WithoutOuterScopes(const std::string& name, size_t width) {
  const std::optional<std::vector<bool>> top = TopLevel(name);
  if (!top) return std::nullopt;
  std::vector<size_t> scopes;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    if (name[i] == ':' && name[i + 1] == ':' && (*top)[i]) scopes.push_back(i++);
  }
  // Keep at least the last scope's name and the function ("Vm::Run(...)").
  for (size_t k = 0; k + 1 < scopes.size(); ++k) {
    std::string shorter = "..." + name.substr(scopes[k]);
    if (shorter.size() <= width) return shorter;
  }
  if (scopes.empty()) return std::nullopt;
  return "..." + name.substr(scopes.back());
}

bool LooksLikeCpp(const std::string& name) {
  return name.find("::") != std::string::npos ||
         (name.find('(') != std::string::npos && name.back() != ']');
}

}  // namespace

std::string ShortName(const std::string& name, size_t width) {
  if (width == 0 || name.size() <= width) return name;
  if (!LooksLikeCpp(name)) return FitToWidth(name, width);
  std::string shorter = Collapse(name, '(', ')', /*last=*/true);
  if (shorter.size() > width) shorter = Collapse(shorter, '<', '>', /*last=*/false);
  if (shorter.size() > width) {
    if (std::optional<std::string> scoped = WithoutOuterScopes(shorter, width)) shorter = *scoped;
  }
  if (shorter.size() <= width) return shorter;
  // Still too long: its end is what matters, cut at the start.
  size_t cut = shorter.size() - (width < 3 ? 0 : width - 3);
  while (cut < shorter.size() && (static_cast<unsigned char>(shorter[cut]) & 0xC0) == 0x80) ++cut;
  return width < 3 ? shorter.substr(shorter.size() - width) : "..." + shorter.substr(cut);
}

}  // namespace jitscope::report
