// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/region_starts.h"

#include <algorithm>

namespace jitscope::symbolize {

size_t RegionStarts::size() const {
  size_t n = 0;
  for (const Chunk& chunk : chunks_) n += chunk.keys.size();
  return n;
}

size_t RegionStarts::ChunkFor(uint64_t key) const {
  auto after = std::upper_bound(chunks_.begin(), chunks_.end(), key,
                                [](uint64_t k, const Chunk& c) { return k < c.keys.front(); });
  return after == chunks_.begin() ? 0 : static_cast<size_t>(after - chunks_.begin()) - 1;
}

std::optional<uint32_t> RegionStarts::Find(uint64_t key) const {
  if (chunks_.empty()) return std::nullopt;
  const Chunk& chunk = chunks_[ChunkFor(key)];
  auto it = std::lower_bound(chunk.keys.begin(), chunk.keys.end(), key);
  if (it == chunk.keys.end() || *it != key) return std::nullopt;
  return chunk.values[static_cast<size_t>(it - chunk.keys.begin())];
}

std::optional<RegionStarts::Entry> RegionStarts::AtOrBefore(uint64_t key) const {
  if (chunks_.empty() || key < chunks_.front().keys.front()) return std::nullopt;
  const Chunk& chunk = chunks_[ChunkFor(key)];
  // The chunk's first key is at most `key`: the entry is in it.
  const auto i = static_cast<size_t>(std::upper_bound(chunk.keys.begin(), chunk.keys.end(), key) -
                                     chunk.keys.begin()) -
                 1;
  return Entry{chunk.keys[i], chunk.values[i]};
}

std::optional<RegionStarts::Entry> RegionStarts::Last() const {
  if (chunks_.empty()) return std::nullopt;
  return Entry{chunks_.back().keys.back(), chunks_.back().values.back()};
}

void RegionStarts::Insert(uint64_t key, uint32_t value) {
  if (chunks_.empty() || key > chunks_.back().keys.back()) {
    if (chunks_.empty() || chunks_.back().keys.size() == kChunk) chunks_.emplace_back();
    chunks_.back().keys.push_back(key);
    chunks_.back().values.push_back(value);
    return;
  }
  size_t c = ChunkFor(key);
  auto i =
      static_cast<size_t>(std::lower_bound(chunks_[c].keys.begin(), chunks_[c].keys.end(), key) -
                          chunks_[c].keys.begin());
  if (i < chunks_[c].keys.size() && chunks_[c].keys[i] == key) return;
  if (chunks_[c].keys.size() == kChunk) {
    // Full: its upper half becomes a chunk of its own.
    constexpr size_t kHalf = kChunk / 2;
    Chunk upper;
    upper.keys.assign(chunks_[c].keys.begin() + kHalf, chunks_[c].keys.end());
    upper.values.assign(chunks_[c].values.begin() + kHalf, chunks_[c].values.end());
    chunks_[c].keys.resize(kHalf);
    chunks_[c].values.resize(kHalf);
    chunks_.insert(chunks_.begin() + static_cast<ptrdiff_t>(c) + 1, std::move(upper));
    if (i > kHalf) {
      ++c;
      i -= kHalf;
    }
  }
  Chunk& chunk = chunks_[c];
  chunk.keys.insert(chunk.keys.begin() + static_cast<ptrdiff_t>(i), key);
  chunk.values.insert(chunk.values.begin() + static_cast<ptrdiff_t>(i), value);
}

void RegionStarts::Erase(uint64_t key) {
  if (chunks_.empty()) return;
  const size_t c = ChunkFor(key);
  const Chunk& chunk = chunks_[c];
  auto it = std::lower_bound(chunk.keys.begin(), chunk.keys.end(), key);
  if (it == chunk.keys.end() || *it != key) return;
  const auto i = static_cast<size_t>(it - chunk.keys.begin());
  EraseAt(c, i, i + 1);
}

bool RegionStarts::EraseAt(size_t c, size_t begin, size_t end) {
  Chunk& chunk = chunks_[c];
  if (begin == end) return false;
  if (begin == 0 && end == chunk.keys.size()) {
    chunks_.erase(chunks_.begin() + static_cast<ptrdiff_t>(c));
    return true;
  }
  chunk.keys.erase(chunk.keys.begin() + static_cast<ptrdiff_t>(begin),
                   chunk.keys.begin() + static_cast<ptrdiff_t>(end));
  chunk.values.erase(chunk.values.begin() + static_cast<ptrdiff_t>(begin),
                     chunk.values.begin() + static_cast<ptrdiff_t>(end));
  return false;
}

}  // namespace jitscope::symbolize
