// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The difference of two runs (profile_diff.h) in the text and folded formats; the HTML one is
// html_writer.h's RenderHtmlDiff.
//  - text: a header naming both runs, then per function its self and total share in each run
//    and the change, in points of a percent, the largest change of self share first;
//  - folded: FlameGraph's differential form, "stack BASE NEW" per line, as difffolded.pl -n
//    writes it: the base run's count scaled to the new run's samples (rounded), so that
//    `flamegraph.pl` colours a stack red where its share grew and blue where it shrank.
#pragma once

#include <string>

#include "jitscope/report/profile_diff.h"
#include "jitscope/report/text_writer.h"

namespace jitscope::report {

std::string RenderDiffText(const ProfileDiff& diff, const TextOptions& options);
std::string RenderDiffFolded(const ProfileDiff& diff);

}  // namespace jitscope::report
