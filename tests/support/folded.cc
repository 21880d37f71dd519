// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "support/folded.h"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace jitscope::test_support {

std::string FoldedStack::Joined() const {
  std::string joined;
  for (const std::string& frame : frames) {
    if (!joined.empty()) joined += ';';
    joined += frame;
  }
  return joined;
}

std::vector<FoldedStack> ParseFolded(const std::string& folded) {
  std::vector<FoldedStack> stacks;
  std::istringstream lines(folded);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    FoldedStack stack;
    const char* count = line.data() + space + 1;
    const char* end = line.data() + line.size();
    if (std::from_chars(count, end, stack.samples).ptr != end) continue;
    std::istringstream frames(line.substr(0, space));
    for (std::string frame; std::getline(frames, frame, ';');) stack.frames.push_back(frame);
    if (stack.frames.empty()) continue;
    stacks.push_back(std::move(stack));
  }
  return stacks;
}

uint64_t SamplesThrough(const std::vector<FoldedStack>& stacks, const std::string& frame) {
  uint64_t total = 0;
  for (const FoldedStack& stack : stacks) {
    if (std::find(stack.frames.begin(), stack.frames.end(), frame) != stack.frames.end()) {
      total += stack.samples;
    }
  }
  return total;
}

bool IsThreadEntryFrame(const std::string& frame) {
  const std::string name = frame.substr(0, frame.find('@'));
  return name == "__libc_start_call_main" || name == "__libc_start_main" || name == "start_thread";
}

WalkShare ShareWalkedThrough(const std::vector<FoldedStack>& stacks, const std::string& leaf,
                             const std::vector<std::string>& path, bool from_entry) {
  WalkShare share;
  for (const FoldedStack& stack : stacks) {
    if (stack.leaf() != leaf) continue;
    share.total += stack.samples;
    if (from_entry && !IsThreadEntryFrame(stack.frames.front())) continue;
    if (std::search(stack.frames.begin(), stack.frames.end(), path.begin(), path.end()) !=
        stack.frames.end()) {
      share.complete += stack.samples;
    }
  }
  return share;
}

}  // namespace jitscope::test_support
