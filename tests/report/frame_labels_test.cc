// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/frame_labels.h"

#include <gtest/gtest.h>

namespace jitscope::report {
namespace {

Location Jit(const char* function, const char* module) {
  return {function, module, "", 0, FrameKind::kJit, false};
}

TEST(FrameLabelsTest, OneNameInSeveralModulesUnderOneParentSaysWhich) {
  Profile p;
  p.locations = {Jit("series", "jitvm-optimized"), Jit("main", "jitvm-baseline"),
                 Jit("series", "jitvm-baseline"),  Jit("f", "/usr/lib/libfoo.so"),
                 Jit("f", "/usr/lib/libbar.so"),   Jit("g", "jitvm-optimized")};
  p.stacks = {{{0, 1}, 5, 0, 0},
              {{2, 1}, 3, 0, 0},
              {{3, 1}, 1, 0, 0},
              {{4, 1}, 1, 0, 0},
              {{5, 1}, 1, 0, 0}};
  EXPECT_EQ(FrameLabels(p),
            (std::vector<std::string>{"series [optimized]", "main", "series [baseline]",
                                      "f [libfoo.so]", "f [libbar.so]", "g"}));
}

TEST(FrameLabelsTest, OneNameUnderDifferentParentsIsNotAmbiguous) {
  Profile p;
  p.locations = {Jit("series", "jitvm-optimized"), Jit("a", "m"), Jit("series", "jitvm-baseline"),
                 Jit("b", "m")};
  p.stacks = {{{0, 1}, 5, 0, 0}, {{2, 3}, 3, 0, 0}};
  EXPECT_EQ(FrameLabels(p), (std::vector<std::string>{"series", "a", "series", "b"}));
}

}  // namespace
}  // namespace jitscope::report
