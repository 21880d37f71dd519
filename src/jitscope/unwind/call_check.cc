// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/call_check.h"

#include <array>
#include <optional>
#include <span>

#include "jitscope/disasm/decoder.h"

namespace jitscope::unwind {

bool FollowsCall(CfiModule& module, uint64_t file_address) {
  if (const std::optional<bool> known = module.FollowsCallCached(file_address)) return *known;
  static const std::optional<disasm::Decoder> decoder =
      disasm::Decoder::Create(disasm::Mode::kX86_64);
  constexpr uint64_t kLongest = 15;  // the longest x86 instruction
  std::array<uint8_t, kLongest> bytes{};
  bool follows = false;
  if (decoder && module.is_64bit()) {
    for (uint64_t length = 2; length <= kLongest && !follows && length <= file_address; ++length) {
      std::span<uint8_t> before(bytes.data(), length);
      if (!module.ReadCode(file_address - length, before)) continue;
      const auto instruction = decoder->Decode(before, file_address - length);
      follows = instruction && instruction->IsCall() && instruction->length == length;
    }
  }
  module.CacheFollowsCall(file_address, follows);
  return follows;
}

}  // namespace jitscope::unwind
