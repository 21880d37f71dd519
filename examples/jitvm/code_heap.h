// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Executable memory for JIT code. One contiguous reservation, so any two blocks are within the
// ±2 GiB reach of a rel32 jump (the optimizing tier jumps between a method's hot and cold
// regions), handed out first-fit in 16-byte units: freed blocks are reused from the lowest
// address up, which is how a later method comes to live where a replaced one used to be, and
// why profilers need time-versioned symbols (docs/architecture.md, "Time-versioned symbols").
//
// The memory is anonymous and mapped read-write-execute. Alternatives rejected:
//  - W^X through two views of one memfd (one writable, one executable): perf only treats
//    anonymous mappings ("//anon") as JIT memory and looks up /tmp/perf-<pid>.map for them; a
//    "/memfd:..." mapping looks like a deleted file, so samples in it resolve to nothing.
//  - W^X through mprotect around every write: two system calls per method, which dominates
//    the cost of compiling a million small functions.
// Freed blocks are filled with int3, so a stale jump into them traps instead of running
// whatever code comes next.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"

namespace jitscope::jitvm {

class CodeHeap {
 public:
  static constexpr size_t kAlignment = 16;

  // Reserves `capacity` bytes of address space; pages are only committed when code lands there.
  static base::StatusOr<std::unique_ptr<CodeHeap>> Create(size_t capacity);

  // A block of at least `size` bytes, 16-aligned; an error when the heap is full.
  base::StatusOr<uint8_t*> Allocate(size_t size);
  // Returns a block from Allocate(size) (same size) to the heap.
  void Free(uint8_t* block, size_t size);

  bool Contains(uintptr_t address) const {
    return address >= base_ && address < base_ + mapping_.size();
  }
  size_t bytes_in_use() const { return in_use_; }
  // Allocations placed (at least partly) where earlier, since freed, code lived.
  size_t reused_allocations() const { return reused_; }

 private:
  explicit CodeHeap(base::ScopedMmap mapping)
      : mapping_(std::move(mapping)), base_(reinterpret_cast<uintptr_t>(mapping_.data())) {}
  static size_t Round(size_t size) { return (size + kAlignment - 1) & ~(kAlignment - 1); }

  base::ScopedMmap mapping_;
  uintptr_t base_;
  size_t top_ = 0;                 // everything at or above this offset is free
  size_t high_water_ = 0;          // everything at or above this offset has never held code
  std::map<size_t, size_t> free_;  // offset -> size of each free block below top_, coalesced
  size_t in_use_ = 0;
  size_t reused_ = 0;
};

}  // namespace jitscope::jitvm
