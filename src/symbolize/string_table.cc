// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/string_table.h"

namespace jitscope::symbolize {

StringTable::StringTable() : offsets_{0, 0}, slots_(1024, 0) {
  slots_[Hash("") & (slots_.size() - 1)] = 1;  // id 0: ""
}

uint64_t StringTable::Hash(std::string_view s) {
  // FNV-1a: short names dominate, and it needs no seed or dependency.
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

StringId StringTable::Intern(std::string_view s) {
  if (slots_.empty()) slots_.assign(1024, 0), Grow();  // after Freeze(): rebuild the table
  const size_t mask = slots_.size() - 1;
  for (size_t i = Hash(s) & mask;; i = (i + 1) & mask) {
    const uint32_t slot = slots_[i];
    if (slot == 0) {
      const auto id = static_cast<StringId>(size());
      arena_.append(s);
      offsets_.push_back(static_cast<uint32_t>(arena_.size()));
      slots_[i] = id + 1;
      if (size() * 2 > slots_.size()) Grow();
      return id;
    }
    if (Get(slot - 1) == s) return slot - 1;
  }
}

void StringTable::Grow() {
  std::vector<uint32_t> slots(std::max<size_t>(slots_.size() * 2, 1024), 0);
  const size_t mask = slots.size() - 1;
  for (StringId id = 0; id < size(); ++id) {
    size_t i = Hash(Get(id)) & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = id + 1;
  }
  slots_ = std::move(slots);
}

void StringTable::Freeze() {
  slots_.clear();
  slots_.shrink_to_fit();
  arena_.shrink_to_fit();
  offsets_.shrink_to_fit();
}

size_t StringTable::MemoryBytes() const {
  return arena_.capacity() + offsets_.capacity() * sizeof(uint32_t) +
         slots_.capacity() * sizeof(uint32_t);
}

}  // namespace jitscope::symbolize
