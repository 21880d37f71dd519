// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// How the graphical formats (the SVG flame graph, the HTML report) draw a frame: its colour and
// the name of its kind, the same in both, so a function looks the same wherever it is drawn.
// Colours are a hash of the function's name within its kind's family — greens for JIT code, aqua
// for inlined frames, warm colours for native code, blue-grey for the kernel — so that output is
// byte-stable.
#pragma once

#include <string>

#include "jitscope/report/profile.h"

namespace jitscope::report {

// "rgb(R,G,B)".
std::string FrameColour(const Location& location);

// "JIT", "inlined", "native", "kernel", ...: what the tooltip calls the frame's kind.
const char* FrameKindName(const Location& location);

}  // namespace jitscope::report
