// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Enforces the API's rule that "address regions of inline methods of the same parent method
// cannot overlap each other" (000_*.txt, Exploring Inline Functions). It remembers the regions
// of each parent's inline children. State is split into shards by parent id, each with its own
// lock, so inline events of different methods do not contend and the other events never touch
// it. When a top-level method is loaded again or unloaded, its children are forgotten: that
// tree is invalid from then on (its regions are "treated as unloaded").
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace jitscope::collector {

class InlineRegistry {
 public:
  // Records the child region [address, address + size) of `parent_id`. Returns false (and
  // records nothing) if it overlaps a region already recorded for the same parent.
  bool AddChild(uint32_t parent_id, uint64_t address, uint64_t size);

  // Forgets the children recorded for `parent_id`.
  void ForgetChildren(uint32_t parent_id);

 private:
  struct Range {
    uint64_t start;
    uint64_t end;
  };
  struct Shard {
    // How many parents have children here. Loads and unloads of methods that never had inline
    // children (nearly all of them) check this and skip the lock.
    std::atomic<uint32_t> parents{0};
    std::mutex mutex;
    std::unordered_map<uint32_t, std::vector<Range>> children;
  };
  static constexpr size_t kShards = 64;
  Shard& ShardFor(uint32_t parent_id) { return shards_[parent_id % kShards]; }

  std::array<Shard, kShards> shards_;
};

}  // namespace jitscope::collector
