// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// speedscope's file format (https://www.speedscope.app/file-format-schema.json): one "sampled"
// profile whose stacks, listed root first, index shared frames (name, file, line), weighted by
// CPU time (samples times the sampling period, in nanoseconds). Inlined frames carry
// " (inlined)" in their name, as speedscope has no field for it.
#pragma once

#include <string>

#include "jitscope/report/profile.h"

namespace jitscope::report {

std::string RenderSpeedscope(const Profile& profile);

}  // namespace jitscope::report
