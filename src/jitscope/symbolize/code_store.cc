// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/code_store.h"

#include <algorithm>

namespace jitscope::symbolize {

bool CodeBytes::complete() const {
  return std::all_of(known.begin(), known.end(), [](bool k) { return k; });
}

void CodeStore::Add(uint64_t time, uint64_t address, std::span<const uint8_t> bytes) {
  if (bytes.empty()) return;
  // Kept in time order as they come: the files' records are in time order already, so this is
  // almost always an append.
  const auto at = std::upper_bound(snapshots_.begin(), snapshots_.end(), time,
                                   [](uint64_t t, const Snapshot& s) { return t < s.time; });
  snapshots_.insert(at, {time, address, bytes});
}

CodeBytes CodeStore::Read(uint64_t address, uint64_t size, uint64_t time) const {
  CodeBytes code;
  code.bytes.assign(size, 0);
  code.known.assign(size, false);
  // Painted oldest first, so each byte ends up with the latest snapshot that covers it. One pass
  // over the snapshots per read: annotation reads a few regions, not every sample's.
  const uint64_t end = address + size < address ? UINT64_MAX : address + size;
  for (const Snapshot& s : snapshots_) {
    if (s.time > time) break;
    const uint64_t s_end =
        s.address + s.bytes.size() < s.address ? UINT64_MAX : s.address + s.bytes.size();
    const uint64_t from = std::max(address, s.address);
    const uint64_t to = std::min(end, s_end);
    for (uint64_t a = from; a < to; ++a) {
      code.bytes[a - address] = s.bytes[a - s.address];
      code.known[a - address] = true;
    }
  }
  return code;
}

}  // namespace jitscope::symbolize
