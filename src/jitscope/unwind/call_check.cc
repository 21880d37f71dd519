// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/call_check.h"

#include <array>
#include <optional>
#include <span>

#include "jitscope/disasm/decoder.h"

namespace jitscope::unwind {

namespace {

const std::optional<disasm::Decoder>& DecoderFor(const CfiModule& module) {
  static const std::optional<disasm::Decoder> x86_64 =
      disasm::Decoder::Create(disasm::Mode::kX86_64);
  static const std::optional<disasm::Decoder> i386 = disasm::Decoder::Create(disasm::Mode::kI386);
  return module.is_64bit() ? x86_64 : i386;
}

// Where the last call of the entry point's straight run of code ends (ld.so's `_start` calls
// _dl_start, then _dl_init, then jumps to the program's entry); 0 when it has no call before a
// jump, a return or something that does not decode.
uint64_t EntryCallEnd(const CfiModule& module) {
  const std::optional<uint64_t> entry = module.entry();
  const std::optional<disasm::Decoder>& decoder = DecoderFor(module);
  if (!entry || !decoder) return 0;
  std::array<uint8_t, 128> buffer{};
  const std::span<const uint8_t> bytes = module.ReadCodePrefix(*entry, buffer);
  uint64_t last_call_end = 0;
  for (uint64_t offset = 0; offset < bytes.size();) {
    const auto instruction = decoder->Decode(bytes.subspan(offset), *entry + offset);
    if (!instruction || instruction->IsJump() || instruction->EndsFlow()) break;
    if (instruction->IsCall()) last_call_end = instruction->End();
    offset += instruction->length;
  }
  return last_call_end;
}

}  // namespace

bool InEntryCode(CfiModule& module, uint64_t file_address) {
  if (!module.entry_call_end) module.entry_call_end = EntryCallEnd(module);
  const uint64_t end = *module.entry_call_end;  // not 0: the module has an entry point
  return end != 0 && *module.entry() <= file_address && file_address < end;
}

bool FollowsCall(CfiModule& module, uint64_t file_address) {
  if (const std::optional<bool> known = module.FollowsCallCached(file_address)) return *known;
  const std::optional<disasm::Decoder>& decoder = DecoderFor(module);
  constexpr uint64_t kLongest = 15;  // the longest x86 instruction
  std::array<uint8_t, kLongest> bytes{};
  bool follows = false;
  if (decoder) {
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
