// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The valid top-level regions of a replay (region_history.cc) by start address: an ordered map
// of 64-bit keys to 32-bit values, kept as sorted chunks of at most kChunk entries, 12 bytes an
// entry. A std::map took a heap node of 64 bytes per entry: at a million methods, the largest
// part of a replay's memory, and memory the allocator kept after the replay.
//
// JIT engines mostly allocate upwards: a key past the last goes at the end of the last chunk, or
// starts a new one, so such inserts leave every chunk full. A key inserted elsewhere splits its
// chunk when that is full; so any order of inserts takes at most twice the room of its entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace jitscope::symbolize {

class RegionStarts {
 public:
  static constexpr size_t kChunk = 512;

  struct Entry {
    uint64_t key;
    uint32_t value;
  };

  bool empty() const { return chunks_.empty(); }
  size_t size() const;

  // The value at `key`, if there is one.
  std::optional<uint32_t> Find(uint64_t key) const;
  // The entry with the greatest key at most `key`, or less than `key`.
  std::optional<Entry> AtOrBefore(uint64_t key) const;
  std::optional<Entry> Before(uint64_t key) const {
    return key == 0 ? std::nullopt : AtOrBefore(key - 1);
  }
  std::optional<Entry> Last() const;

  // Adds (key, value) unless `key` is there already (then nothing changes).
  void Insert(uint64_t key, uint32_t value);
  void Erase(uint64_t key);

  // Removes the entries whose keys are in [from, to), calling visit(value) on each, in key order.
  template <typename Visit>
  void EraseRange(uint64_t from, uint64_t to, Visit&& visit) {
    size_t c = ChunkFor(from);
    while (c < chunks_.size()) {
      Chunk& chunk = chunks_[c];
      size_t i = 0;
      while (i < chunk.keys.size() && chunk.keys[i] < from) ++i;
      size_t j = i;
      while (j < chunk.keys.size() && chunk.keys[j] < to) visit(chunk.values[j++]);
      const bool more = j == chunk.keys.size();
      const bool removed = EraseAt(c, i, j);
      if (!more) return;
      if (!removed) ++c;
    }
  }

  // Removes the entries for whose value drop(value) is true, in key order.
  template <typename Drop>
  void EraseIf(Drop&& drop) {
    for (size_t c = 0; c < chunks_.size();) {
      Chunk& chunk = chunks_[c];
      size_t kept = 0;
      for (size_t i = 0; i < chunk.keys.size(); ++i) {
        if (drop(chunk.values[i])) continue;
        chunk.keys[kept] = chunk.keys[i];
        chunk.values[kept] = chunk.values[i];
        ++kept;
      }
      if (!EraseAt(c, kept, chunk.keys.size())) ++c;
    }
  }

 private:
  struct Chunk {
    std::vector<uint64_t> keys;  // sorted, never empty
    std::vector<uint32_t> values;
  };

  // The last chunk whose first key is at most `key`; the first chunk when there is none.
  size_t ChunkFor(uint64_t key) const;
  // Removes entries [begin, end) of chunk `c`, and the chunk when that empties it (then returns
  // true: chunk `c` is the next one).
  bool EraseAt(size_t c, size_t begin, size_t end);

  std::vector<Chunk> chunks_;  // in key order
};

}  // namespace jitscope::symbolize
