// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The machine code of one process's JIT regions, by address and time, the way the symbol index
// holds their names: every copy of code the files carry (the trace's code-bytes records, jitdump
// CODE_LOADs, OProfile loads) is a snapshot of some bytes at some time, and the code at an address
// at a time is the latest snapshot taken then or before that covers it. So a re-JIT at the same
// address, or a METHOD_UPDATE_V2 of part of a region, shows each version's own bytes. The bytes
// are views into the files the SourceSet keeps mapped: the store must not outlive it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace jitscope::symbolize {

struct CodeBytes {
  std::vector<uint8_t> bytes;
  std::vector<bool> known;  // per byte: whether any snapshot recorded it
  bool complete() const;
};

class CodeStore {
 public:
  // A snapshot of `bytes` at `address`, taken at `time`. Empty snapshots (code that was not
  // readable, a jitdump without code) are dropped. Snapshots of equal time keep the order they
  // were added in: the later one wins. The bytes are not copied: they must outlive the store
  // (they are the mapped files').
  void Add(uint64_t time, uint64_t address, std::span<const uint8_t> bytes);

  // The code in [address, address + size) at `time`. A byte no snapshot up to `time` covers is
  // not known.
  CodeBytes Read(uint64_t address, uint64_t size, uint64_t time) const;

  size_t snapshot_count() const { return snapshots_.size(); }

 private:
  struct Snapshot {
    uint64_t time;
    uint64_t address;
    std::span<const uint8_t> bytes;
  };
  std::vector<Snapshot> snapshots_;  // in time order
};

}  // namespace jitscope::symbolize
