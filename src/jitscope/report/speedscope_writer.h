// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// speedscope's file format (https://www.speedscope.app/file-format-schema.json): one "sampled"
// profile per thread, its samples in the order they were taken (speedscope's "Time Order" view
// draws them one after another), each weighted by the time it stands for, in nanoseconds: the
// sampling period, or for an off-CPU sample (record --off-cpu) the time its thread was off the
// CPU, under its "[off-cpu: WHY]" leaf; stacks are listed root first and index shared frames
// (name, file, line). Inlined frames carry " (inlined)" in their name, as speedscope has no field
// for it. A profile built without the samples' times (BuildOptions::sample_times) has no order to
// give: it is written as one profile of its distinct stacks, heaviest first, and its name says they
// are not in time order.
#pragma once

#include <string>

#include "jitscope/report/profile.h"

namespace jitscope::report {

std::string RenderSpeedscope(const Profile& profile);

}  // namespace jitscope::report
