// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/folded_writer.h"

#include <fmt/format.h>

#include "jitscope/report/frame_labels.h"

namespace jitscope::report {

std::string FoldedName(const Location& location, std::string name) {
  for (char& c : name) {
    if (c == ';') c = ':';
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (location.inlined) return name + "_[i]";
  if (location.kind == FrameKind::kJit) return name + "_[j]";
  if (location.kind == FrameKind::kKernel) return name + "_[k]";
  return name;
}

std::string RenderFolded(const Profile& profile) {
  std::vector<std::string> names;
  names.reserve(profile.locations.size());
  std::vector<std::string> labels = FrameLabels(profile);
  for (size_t i = 0; i < labels.size(); ++i) {
    names.push_back(FoldedName(profile.locations[i], std::move(labels[i])));
  }
  std::string out;
  for (const Stack& stack : profile.stacks) {
    for (auto frame = stack.frames.rbegin(); frame != stack.frames.rend(); ++frame) {
      if (frame != stack.frames.rbegin()) out += ';';
      out += names[*frame];
    }
    out += fmt::format(" {}\n", stack.samples);
  }
  return out;
}

}  // namespace jitscope::report
