// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/frame_style.h"

#include <fmt/format.h>

namespace jitscope::report {

std::string FrameColour(const Location& l) {
  // FNV-1a of the name: stable across runs and machines.
  unsigned hash = 2166136261u;
  for (char c : l.function) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  const unsigned v = hash % 55;
  if (l.inlined) return fmt::format("rgb({},{},{})", 80 + v, 200 + v / 2, 200 + v / 2);
  switch (l.kind) {
    case FrameKind::kJit:
      return fmt::format("rgb({},{},{})", 50 + v, 190 + v, 50 + v / 2);
    case FrameKind::kKernel:
      return fmt::format("rgb({},{},{})", 140 + v / 2, 150 + v / 2, 200 + v);
    case FrameKind::kNative:
      return fmt::format("rgb({},{},{})", 200 + v, 90 + 2 * v, 40 + v / 2);
    case FrameKind::kAnonymous:
    case FrameKind::kUnknown:
    case FrameKind::kGuessed:
      return fmt::format("rgb({},{},{})", 170 + v / 2, 170 + v / 2, 170 + v / 2);
    case FrameKind::kProcess:
      return fmt::format("rgb({},{},{})", 200 + v / 2, 200 + v / 2, 120 + v);
    case FrameKind::kOffCpu:
      return fmt::format("rgb({},{},{})", 60 + v, 110 + v, 220 + v / 2);
  }
  return "grey";
}

const char* FrameKindName(const Location& l) {
  if (l.inlined) return "inlined";
  switch (l.kind) {
    case FrameKind::kJit:
      return "JIT";
    case FrameKind::kKernel:
      return "kernel";
    case FrameKind::kNative:
      return "native";
    case FrameKind::kAnonymous:
      return "anonymous memory";
    case FrameKind::kUnknown:
      return "unknown";
    case FrameKind::kProcess:
      return "process";
    case FrameKind::kGuessed:
      return "guessed from here on";
    case FrameKind::kOffCpu:
      return "off the CPU";
  }
  return "";
}

}  // namespace jitscope::report
