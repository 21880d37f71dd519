// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/disasm/control_flow.h"

#include <algorithm>

namespace jitscope::disasm {

ReachedCode FollowControlFlow(const Decoder& decoder, std::span<const uint8_t> bytes,
                              uint64_t address) {
  ReachedCode reached;
  if (bytes.empty()) return reached;
  // Each offset is queued once, so the work is bounded by the number of bytes.
  std::vector<bool> queued(bytes.size(), false);
  std::vector<uint64_t> work;
  auto flow_to = [&](uint64_t target) {
    if (target < address || target - address >= bytes.size()) return;
    const uint64_t offset = target - address;
    if (queued[offset]) return;
    queued[offset] = true;
    work.push_back(offset);
  };
  flow_to(address);
  while (!work.empty()) {
    const uint64_t offset = work.back();
    work.pop_back();
    const auto instruction = decoder.Decode(bytes.subspan(offset), address + offset);
    if (!instruction) {
      reached.undecodable.push_back(address + offset);
      continue;
    }
    if (instruction->IsCall() || instruction->IsJump()) {
      if (const auto target = instruction->BranchTarget()) flow_to(*target);
    }
    if (!instruction->EndsFlow()) flow_to(instruction->End());
    reached.instructions.push_back(*instruction);
  }
  std::sort(reached.instructions.begin(), reached.instructions.end(),
            [](const Instruction& a, const Instruction& b) { return a.address < b.address; });
  std::sort(reached.undecodable.begin(), reached.undecodable.end());
  return reached;
}

}  // namespace jitscope::disasm
