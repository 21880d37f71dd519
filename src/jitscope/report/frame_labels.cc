// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/frame_labels.h"

#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "jitscope/report/text_writer.h"

namespace jitscope::report {
namespace {

bool IsSeparator(char c) { return c == '-' || c == '_' || c == '.' || c == ' ' || c == '/'; }

// The length of the prefix all `names` share, cut back to just after a separator, so that
// "jitvm-baseline" and "jitvm-optimized" lose "jitvm-" but "libfoo" and "libbar" lose nothing.
size_t CommonPrefix(const std::set<std::string>& names) {
  const std::string& first = *names.begin();
  size_t common = first.size();
  for (const std::string& name : names) {
    size_t n = 0;
    while (n < common && n < name.size() && name[n] == first[n]) ++n;
    common = n;
  }
  while (common > 0 && !IsSeparator(first[common - 1])) --common;
  return common;
}

}  // namespace

std::vector<std::string> FrameLabels(const Profile& profile) {
  // Under each parent (a function in a module; the root for outermost frames), the modules each
  // child function name stands for.
  using Parent = std::tuple<std::string_view, std::string_view, bool>;
  std::map<std::pair<Parent, std::string_view>, std::set<std::string>> modules;
  const Parent root{"", "", false};
  for (const Stack& stack : profile.stacks) {
    for (size_t i = 0; i < stack.frames.size(); ++i) {
      const Location& child = profile.locations[stack.frames[i]];
      Parent parent = root;
      if (i + 1 < stack.frames.size()) {
        const Location& p = profile.locations[stack.frames[i + 1]];
        parent = {p.function, p.module, p.inlined};
      }
      modules[{parent, child.function}].insert(ModuleDisplayName(child.module));
    }
  }
  // Names that stand for several modules somewhere, and how each of those modules is told apart.
  std::map<std::string_view, std::map<std::string, std::string>> which;
  for (const auto& [key, names] : modules) {
    if (names.size() < 2) continue;
    const size_t prefix = CommonPrefix(names);
    for (const std::string& name : names) {
      std::string tail = name.substr(prefix);
      which[key.second][name] = tail.empty() ? name : tail;
    }
  }
  std::vector<std::string> labels;
  labels.reserve(profile.locations.size());
  for (const Location& l : profile.locations) {
    std::string label = l.function;
    if (auto it = which.find(l.function); it != which.end()) {
      if (auto m = it->second.find(ModuleDisplayName(l.module)); m != it->second.end()) {
        label += " [" + (m->second.empty() ? std::string("-") : m->second) + "]";
      }
    }
    labels.push_back(std::move(label));
  }
  return labels;
}

}  // namespace jitscope::report
