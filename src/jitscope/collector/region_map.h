// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The code regions that are currently valid, by address, each belonging to a method id. "If any
// METHOD_LOAD_FINISHED event overwrites an already reported method, then such a method becomes
// invalid and its memory region is treated as unloaded" (seeds 000_*.txt, Usage Tips): placing a
// region drops every region it overlaps, and a method whose last region goes is unloaded. The
// perf-format sinks use this to find the region enclosing an address (inline regions, UPDATE_V2)
// and to forget the names of methods that no longer exist, so their tables stay as large as the
// live code rather than growing with every kernel an engine ever generated (oneDNN never unloads).
//
// Not thread-safe: each sink guards its map with its own lock.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <unordered_map>
#include <vector>

namespace jitscope::collector {

template <typename Payload>
class RegionMap {
 public:
  struct Region {
    uint64_t address = 0;
    uint64_t size = 0;
    uint32_t method_id = 0;
    Payload payload{};
  };

  // Adds `region`, dropping the regions it overlaps, and returns those. A dropped region's method
  // is gone when Contains() says it has no region left.
  std::vector<Region> Place(Region region) {
    std::vector<Region> dropped;
    const uint64_t end = region.address + region.size;
    auto it = regions_.lower_bound(region.address);
    // A region that starts before the new one may still reach into it.
    if (it != regions_.begin() && EndOf(*std::prev(it)) > region.address) --it;
    while (it != regions_.end() && it->first < end) {
      const uint32_t method_id = it->second.method_id;
      auto& starts = starts_[method_id];
      std::erase(starts, it->first);
      if (starts.empty()) starts_.erase(method_id);
      dropped.push_back(std::move(it->second));
      it = regions_.erase(it);
    }
    starts_[region.method_id].push_back(region.address);
    regions_.emplace(region.address, std::move(region));
    return dropped;
  }

  // Drops every region of `method_id` (METHOD_UNLOAD_START) and returns them.
  std::vector<Region> Remove(uint32_t method_id) {
    std::vector<Region> dropped;
    const auto found = starts_.find(method_id);
    if (found == starts_.end()) return dropped;
    for (const uint64_t start : found->second) {
      auto node = regions_.extract(start);
      if (node) dropped.push_back(std::move(node.mapped()));
    }
    starts_.erase(found);
    return dropped;
  }

  bool Contains(uint32_t method_id) const { return starts_.contains(method_id); }

  // The region containing `address`, or nullptr.
  Region* FindEnclosing(uint64_t address) {
    auto it = regions_.upper_bound(address);
    if (it == regions_.begin()) return nullptr;
    --it;
    return address < EndOf(*it) ? &it->second : nullptr;
  }

  size_t size() const { return regions_.size(); }

 private:
  static uint64_t EndOf(const std::pair<const uint64_t, Region>& entry) {
    return entry.second.address + entry.second.size;
  }

  std::map<uint64_t, Region> regions_;  // by start address; never overlapping
  std::unordered_map<uint32_t, std::vector<uint64_t>> starts_;  // live regions per method id
};

}  // namespace jitscope::collector
