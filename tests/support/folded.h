// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: `jitscope report --format folded` read back ("outer;inner COUNT" per line, frames
// outermost first, as docs/report.md specifies), for tests that check stacks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jitscope::test_support {

struct FoldedStack {
  std::vector<std::string> frames;  // outermost first, with their "_[j]"-style annotations
  uint64_t samples = 0;

  std::string Joined() const;  // the frames as the line had them, ';'-separated
  const std::string& leaf() const { return frames.back(); }
};

// The stacks of folded output, in its order; a line without a count is skipped.
std::vector<FoldedStack> ParseFolded(const std::string& folded);

// The samples whose stack has a frame equal to `frame`.
uint64_t SamplesThrough(const std::vector<FoldedStack>& stacks, const std::string& frame);

// Whether a folded frame is the root report gives a thread's stack: `__libc_start_call_main` (or
// `__libc_start_main` where glibc's symbols do not name the former: an i386 libc) for a main
// thread, `start_thread` for the others (report leaves out the frames outside it).
bool IsThreadEntryFrame(const std::string& frame);

// Of the samples whose leaf is `leaf`: how many (`total`), and how many of them have the frames of
// `path` one after the other (outermost first), and, if `from_entry`, begin at the thread's entry
// (IsThreadEntryFrame) (`complete`): how much of a walk reached where it should.
struct WalkShare {
  uint64_t total = 0;
  uint64_t complete = 0;
};
WalkShare ShareWalkedThrough(const std::vector<FoldedStack>& stacks, const std::string& leaf,
                             const std::vector<std::string>& path, bool from_entry);

}  // namespace jitscope::test_support
