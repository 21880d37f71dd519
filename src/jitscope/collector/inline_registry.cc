// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/inline_registry.h"

#include <algorithm>

namespace jitscope::collector {

bool InlineRegistry::AddChild(uint32_t parent_id, uint64_t address, uint64_t size) {
  const Range range{address, address + size};
  Shard& shard = ShardFor(parent_id);
  std::lock_guard lock(shard.mutex);
  auto [entry, inserted] = shard.children.try_emplace(parent_id);
  if (inserted) shard.parents.fetch_add(1, std::memory_order_relaxed);
  auto& siblings = entry->second;
  // Siblings are kept sorted by start, so only the neighbours of the insertion point can
  // overlap the new range.
  auto next = std::lower_bound(siblings.begin(), siblings.end(), range,
                               [](const Range& a, const Range& b) { return a.start < b.start; });
  if (next != siblings.end() && next->start < range.end) return false;
  if (next != siblings.begin() && std::prev(next)->end > range.start) return false;
  siblings.insert(next, range);
  return true;
}

void InlineRegistry::ForgetChildren(uint32_t parent_id) {
  Shard& shard = ShardFor(parent_id);
  if (shard.parents.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(shard.mutex);
  if (shard.children.erase(parent_id) != 0) shard.parents.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace jitscope::collector
