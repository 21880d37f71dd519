// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The default report: a header saying what was recorded, then the top entries by self samples,
// aligned for a terminal. An entry is a method (function in its module), a source line of a
// method, or a module, as `--sort` says. Self counts the samples whose innermost frame is the
// entry; total counts the samples with the entry anywhere on their stack (once per sample, however
// often recursion repeats it). When JIT code is among the entries that have samples of their own, a
// footer points to `jitscope annotate`.
#pragma once

#include <cstddef>
#include <string>

#include "jitscope/report/profile.h"

namespace jitscope::report {

enum class SortKey { kMethod, kLine, kModule };

struct TextOptions {
  SortKey sort = SortKey::kMethod;
  size_t top = 25;  // 0: every entry
};

std::string RenderText(const Profile& profile, const TextOptions& options);

// A module as a reader wants to see it: a file's base name, anything else as it is.
std::string ModuleDisplayName(const std::string& module);

}  // namespace jitscope::report
