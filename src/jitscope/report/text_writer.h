// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The default report: a header saying what was recorded, then the top entries by self samples,
// aligned for a terminal. An entry is a method (function in its module), a source line of a
// method, or a module, as `--sort` says. Self counts the samples whose innermost frame is the
// entry; total counts the samples with the entry anywhere on their stack (once per sample, however
// often recursion repeats it). A module entry is of code: the frames that only mark a stack's
// process or where its walk was guessed are none. When JIT code is among the entries that have
// samples of their own, a footer points to `jitscope annotate`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "jitscope/report/profile.h"

namespace jitscope::report {

enum class SortKey { kMethod, kLine, kModule };

struct TextOptions {
  SortKey sort = SortKey::kMethod;
  size_t top = 25;  // 0: every entry
  // The widest the Function column gets (0: whole names); longer names are shortened by
  // ShortName, which keeps a C++ name's function.
  size_t name_width = 60;
};

std::string RenderText(const Profile& profile, const TextOptions& options);

// What the report's header says of the recording besides its command and warnings, one line
// each, without the "# ": its samples and time, the processes, how the stacks were unwound.
std::vector<std::string> ProfileHeader(const Profile& profile);

// "12.5%": `part` as a share of `whole`, one decimal; "-" when `whole` is 0.
std::string PercentOf(uint64_t part, uint64_t whole);

// A module as a reader wants to see it: a file's base name, anything else as it is.
std::string ModuleDisplayName(const std::string& module);

}  // namespace jitscope::report
