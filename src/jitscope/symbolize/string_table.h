// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Strings in one contiguous arena. Files and modules are interned: each distinct one is stored
// once and referred to by a 32-bit id, so a method costs a few integers, not a heap
// node per string. Method names, nearly all distinct, are appended without a lookup (Append) and
// referred to by their place in the arena.
//
// Interning uses an open-addressing table whose slots hold an id and the top of its string's
// hash, so a probe rarely touches the arena and growing never rehashes; entries are compared
// through their offsets into the arena (not string_views, which the arena's growth would
// invalidate).
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/huge_page_allocator.h"

namespace jitscope::symbolize {

using StringId = uint32_t;

class StringTable {
 public:
  StringTable();

  // The id of `s`, adding it if new. Id 0 is always the empty string.
  StringId Intern(std::string_view s);
  // Stores `s` without an id and without looking for an equal one (for strings that are nearly
  // all distinct, where the lookup would cost more than it saves); returns its place for Slice.
  uint32_t Append(std::string_view s);
  // Room for `count` more interned strings and `bytes` more in the arena, so a million strings
  // cost no rehashing and no copies of the arena.
  void Reserve(size_t count, size_t bytes);

  std::string_view Get(StringId id) const {
    return {arena_.data() + spans_[id].offset, spans_[id].size};
  }
  size_t size() const { return spans_.size(); }
  // Where string `id` sits in the arena, for holders that keep (offset, size) to avoid a lookup.
  uint32_t Offset(StringId id) const { return spans_[id].offset; }
  std::string_view Slice(uint32_t offset, uint32_t size) const {
    return {arena_.data() + offset, size};
  }

  // Drops the lookup table and gives back the memory of room reserved but not used; Get() keeps
  // working. Called once the index is built.
  void Freeze();

  // Bytes in use (not the room reserved for more).
  size_t MemoryBytes() const;

 private:
  static uint64_t Hash(std::string_view s);
  void Grow(size_t slots);

  // On huge pages: with a million names, growing ordinary heap blocks would cost a page fault
  // per 4 KiB.
  base::HugeVector<char> arena_;
  struct Span {
    uint32_t offset, size;
  };
  base::HugeVector<Span> spans_;      // string i is arena_[offset, offset + size)
  base::HugeVector<uint64_t> slots_;  // hash's top 32 bits << 32 | (id + 1); 0 = empty
  unsigned shift_ = 54;               // slot of a hash: its top 64 - shift_ bits
};

}  // namespace jitscope::symbolize
