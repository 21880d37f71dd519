// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The names frames are shown by in flame graphs (SVG, folded stacks, speedscope). A function name
// alone is ambiguous when one name stands for several code objects under one parent — a JIT's
// baseline and optimized versions of one function, or one name in two modules — and two boxes
// side by side with the same label can only be told apart by hovering. Such frames get what
// tells them apart: the part of their module names that differs ("series [optimized]" for the
// modules jitvm-baseline and jitvm-optimized), else the module ("f [libfoo.so]").
#pragma once

#include <string>
#include <vector>

#include "jitscope/report/profile.h"

namespace jitscope::report {

// One label per Profile::locations entry: the function name, with " [which]" where needed.
std::vector<std::string> FrameLabels(const Profile& profile);

}  // namespace jitscope::report
