// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/opagent/handle_table.h"

namespace jitscope::opagent {
namespace {

// A token is  generation << 16 | slot << 8 | kTag.  The tag makes every token odd, so no real
// (aligned) pointer a confused caller passes ever decodes to a slot; on 32-bit targets the
// generation keeps its low 16 bits, which only weakens stale-handle detection after 65536
// reopenings of one slot.
constexpr uintptr_t kTag = 0xA5;
constexpr unsigned kSlotShift = 8;
constexpr unsigned kGenerationShift = 16;

uintptr_t Encode(size_t slot, uint32_t generation) {
  return (static_cast<uintptr_t>(generation) << kGenerationShift) |
         (static_cast<uintptr_t>(slot) << kSlotShift) | kTag;
}

uint32_t Truncated(uint32_t generation) {
  return static_cast<uint32_t>(Encode(0, generation) >> kGenerationShift);
}

}  // namespace

std::optional<uintptr_t> HandleTable::Open(uint32_t agent) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[i];
    if (slot.open) continue;
    // Generation 0 never occurs in a token, even after wrapping.
    do {
      ++slot.generation;
    } while (Truncated(slot.generation) == 0);
    slot.agent = agent;
    slot.open = true;
    ++open_count_;
    return Encode(i, slot.generation);
  }
  return std::nullopt;
}

std::optional<uint32_t> HandleTable::Find(uintptr_t token) const {
  if ((token & 0xFF) != kTag) return std::nullopt;
  const size_t index = (token >> kSlotShift) & 0xFF;
  if (index >= slots_.size()) return std::nullopt;
  const Slot& slot = slots_[index];
  if (!slot.open || Encode(index, slot.generation) != token) return std::nullopt;
  return slot.agent;
}

bool HandleTable::Close(uintptr_t token) {
  if (!Find(token)) return false;
  Slot& slot = slots_[(token >> kSlotShift) & 0xFF];
  slot.open = false;
  --open_count_;
  return true;
}

void HandleTable::CloseAll() {
  for (Slot& slot : slots_) slot.open = false;
  open_count_ = 0;
}

}  // namespace jitscope::opagent
