// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Collapsed stacks, the input of Brendan Gregg's flamegraph.pl and of speedscope's importer: one
// line per distinct stack, frames root first separated by ';', a space and the sample count.
// Frame names follow flamegraph.pl's annotations, which its `--color=java` palette colours:
// "_[j]" JIT code, "_[i]" an inlined frame, "_[k]" the kernel. A ';' or line break inside a
// name would change the stack, so they are replaced by ':' and ' '.
#pragma once

#include <string>

#include "jitscope/report/profile.h"

namespace jitscope::report {

std::string RenderFolded(const Profile& profile);

// A frame as a folded line names it: `label` with ';' and line breaks replaced, and the mark of
// its kind.
std::string FoldedName(const Location& location, std::string label);

}  // namespace jitscope::report
