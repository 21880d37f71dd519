// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/string_table.h"

#include <algorithm>
#include <cstring>

#include "jitscope/base/reserve.h"

namespace jitscope::symbolize {

StringTable::StringTable() : spans_{{0, 0}} { Grow(1024); }  // id 0: ""

uint64_t StringTable::Hash(std::string_view s) {
  // Eight bytes per step (names are long and numerous: this runs once per method reported).
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t h = s.size() * kMul;
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  if (n != 0) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * kMul;
  }
  h ^= h >> 32;
  return h * kMul;
}

StringId StringTable::Intern(std::string_view s) {
  if (slots_.empty()) Grow(1024);  // after Freeze(): rebuild the table
  const size_t mask = slots_.size() - 1;
  const auto top = static_cast<uint32_t>(Hash(s) >> 32);
  for (size_t i = top >> (shift_ - 32);; i = (i + 1) & mask) {
    const uint64_t slot = slots_[i];
    if (slot == 0) {
      const auto id = static_cast<StringId>(size());
      spans_.push_back({Append(s), static_cast<uint32_t>(s.size())});
      slots_[i] = (uint64_t{top} << 32) | (id + 1);
      if (size() * 2 > slots_.size()) Grow(slots_.size() * 2);
      return id;
    }
    const auto id = static_cast<StringId>((slot & 0xFFFFFFFF) - 1);
    if ((slot >> 32) == top && Get(id) == s) return id;
  }
}

uint32_t StringTable::Append(std::string_view s) {
  const auto offset = static_cast<uint32_t>(arena_.size());
  arena_.insert(arena_.end(), s.begin(), s.end());
  return offset;
}

void StringTable::Reserve(size_t count, size_t bytes) {
  base::ReserveMore(spans_, count);
  base::ReserveMore(arena_, bytes);
  const size_t wanted = std::bit_ceil(2 * (size() + count));
  if (wanted > slots_.size()) Grow(wanted);
}

// Rebuilds the table with `count` slots (a power of two).
void StringTable::Grow(size_t count) {
  base::HugeVector<uint64_t> slots(std::max<size_t>(count, 1024), 0);
  const size_t mask = slots.size() - 1;
  shift_ = 64 - std::countr_zero(slots.size());
  auto place = [&](uint64_t slot) {
    size_t i = (slot >> 32) >> (shift_ - 32);
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = slot;
  };
  if (slots_.empty()) {  // first use, or after Freeze()
    for (StringId id = 0; id < size(); ++id) place(((Hash(Get(id)) >> 32) << 32) | (id + 1));
  } else {
    for (uint64_t slot : slots_) {
      if (slot != 0) place(slot);
    }
  }
  slots_ = std::move(slots);
}

void StringTable::Freeze() {
  slots_.clear();
  slots_.shrink_to_fit();
  base::ReleaseUnused(arena_);
  base::ReleaseUnused(spans_);
}

size_t StringTable::MemoryBytes() const {
  // In use, not reserved: room reserved on huge pages and never touched is address space only.
  return arena_.size() + spans_.size() * sizeof(Span) + slots_.capacity() * sizeof(uint64_t);
}

}  // namespace jitscope::symbolize
