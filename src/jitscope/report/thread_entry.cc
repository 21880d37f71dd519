// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/thread_entry.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>

namespace jitscope::report {

bool IsThreadEntry(const Location& location) {
  static constexpr std::string_view kNames[] = {"_start",
                                                "__libc_start_main",
                                                "__libc_start_main_impl",
                                                "__libc_start_call_main",
                                                "start_thread",
                                                "clone",
                                                "clone3",
                                                "__clone",
                                                "__clone3",
                                                "__GI___clone",
                                                "__GI___clone3"};
  // A symbol of a versioned library may be named with its version: __libc_start_main@GLIBC_2.2.5.
  const std::string_view name =
      std::string_view(location.function).substr(0, location.function.find('@'));
  return location.kind == FrameKind::kNative && !location.inlined &&
         std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

bool IsUnnamedNative(const Location& location) {
  if (location.kind != FrameKind::kNative || location.module.empty()) return false;
  const std::string_view module = location.module;
  const std::string_view base = module.substr(module.rfind('/') + 1);
  return location.function.starts_with(std::string(base) + "+0x");
}

void TrimOutsideThreadEntry(std::vector<uint32_t>& frames,
                            const std::function<RootKind(uint32_t)>& kind) {
  // From the outermost frame in, through the run; the innermost entry frame of it stays.
  std::optional<size_t> entry;
  for (size_t i = frames.size(); i > 0; --i) {
    const RootKind k = kind(frames[i - 1]);
    if (k == RootKind::kOther) break;
    if (k == RootKind::kThreadEntry) entry = i - 1;
  }
  if (entry) frames.resize(*entry + 1);
}

}  // namespace jitscope::report
