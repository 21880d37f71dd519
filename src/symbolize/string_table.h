// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Interned strings: every distinct name, file and module is stored once, in one contiguous arena,
// and referred to by a 32-bit id (STYLE.md §18). The symbol index keeps ids instead of strings, so
// a method costs a few integers, not a heap node per name.
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
  // Room for `count` more strings of `bytes` in all, so a million names cost no rehashing and
  // no copies of the arena.
  void Reserve(size_t count, size_t bytes);

  std::string_view Get(StringId id) const {
    return {arena_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]};
  }
  size_t size() const { return offsets_.size() - 1; }
  // Where string `id` sits in the arena, for holders that keep (offset, size) to avoid a lookup.
  uint32_t Offset(StringId id) const { return offsets_[id]; }
  std::string_view Slice(uint32_t offset, uint32_t size) const {
    return {arena_.data() + offset, size};
  }

  // Drops the lookup table (and room reserved but not used); Get() keeps working. Called once
  // the index is built.
  void Freeze();

  // Bytes in use (not the room reserved for more).
  size_t MemoryBytes() const;

 private:
  static uint64_t Hash(std::string_view s);
  void Grow(size_t slots);

  // On huge pages: with a million names, growing ordinary heap blocks would cost a page fault
  // per 4 KiB.
  base::HugeVector<char> arena_;
  base::HugeVector<uint32_t> offsets_;  // string i is arena_[offsets_[i], offsets_[i + 1])
  base::HugeVector<uint64_t> slots_;    // hash's top 32 bits << 32 | (id + 1); 0 = empty
  unsigned shift_ = 54;                 // slot of a hash: its top 64 - shift_ bits
};

}  // namespace jitscope::symbolize
