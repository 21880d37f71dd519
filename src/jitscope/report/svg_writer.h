// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A self-contained interactive flame graph: one SVG file with its own style and script, no
// network. Each frame is a box as wide as its share of samples, the root at the top and callees
// below their callers (an icicle, so the first screen of a tall graph shows the root and the
// widest paths); boxes narrower than a tenth of a pixel are left out, and take no room. Hovering a
// box shows its function, module, file:line, samples and share (under the title); clicking zooms
// into it, and "Reset zoom" goes back; "Search" highlights matching frames. Colours tell the kinds
// apart: greens for JIT code, aqua with a dashed outline for inlined frames, warm colours for
// native code, blue-grey for the kernel. Every name is escaped for XML; the script reads names only
// from the document, so a hostile name cannot become code.
#pragma once

#include <string>

#include "jitscope/report/profile.h"

namespace jitscope::report {

std::string RenderSvg(const Profile& profile);

}  // namespace jitscope::report
