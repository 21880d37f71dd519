// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The ITT API's names in one process: the domains, string handles and counters the program
// created, the numbers the trace gives their names (format.h, kIttString), and each counter's
// value.
//
// A name is numbered once, when it is first created or first used, and its string record written
// then; every later record carries the number. The number lives in the handle itself (`extra1`,
// the runtime's: itt_abi.h), so a task's begin reads it with one load and takes no lock. Handles
// the static part made before the collector was loaded are numbered on first use. Creation takes
// one lock: programs create their names once and use them many times.
//
// Every distinct name costs the collector about 100 bytes for good (the program keeps the handle,
// so it lives as long as the process). `max_strings` bounds that: past it, a creation is refused
// (kTooManyStrings) and returns NULL, which the API's callers treat as "no handle".
//
// A new trace (the collector of a fork()ed child) gets the string and counter records of every
// name known before its first ITT record (DefineIn), so the numbers in handles the child inherited
// mean the same there.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "jitscope/collector/collector.h"
#include "jitscope/collector/itt_abi.h"

namespace jitscope::collector::itt {

// The collector's state of one counter (CounterInfo::extra2 points here).
struct CounterState {
  uint32_t number = 0;  // counters are numbered apart from strings
  uint32_t name = 0;    // string numbers
  uint32_t domain = 0;
  int type = kMetadataUnknown;
  std::atomic<uint64_t> value{0};  // IttCounterValueRecord's encoding of the current value
};

class Names {
 public:
  static constexpr size_t kDefaultMaxStrings = size_t{1} << 20;
  explicit Names(size_t max_strings = kDefaultMaxStrings) : max_strings_(max_strings) {}
  Names(const Names&) = delete;
  Names& operator=(const Names&) = delete;

  // The creation calls. Each returns nullptr and sets `refused` when it refuses (a NULL name,
  // too many names). The same name gives the same domain, handle or counter.
  Domain* CreateDomain(Collector& collector, const char* name, trace::RejectReason& refused);
  StringHandle* CreateStringHandle(Collector& collector, const char* text,
                                   trace::RejectReason& refused);
  // `domain` may be NULL (a counter of no domain).
  CounterInfo* CreateCounter(Collector& collector, const char* name, const char* domain, int type,
                             trace::RejectReason& refused);

  // The string number of a domain's or handle's name: one load, or (for a handle the static
  // part made) numbered now. 0 when it cannot be numbered (no name, too many names).
  uint32_t NumberOf(Collector& collector, const Domain& domain) {
    const int known = __atomic_load_n(&domain.extra1, __ATOMIC_ACQUIRE);
    return known != 0 ? static_cast<uint32_t>(known) : Adopt(collector, domain.name, domain.extra1);
  }
  uint32_t NumberOf(Collector& collector, const StringHandle& handle) {
    const int known = __atomic_load_n(&handle.extra1, __ATOMIC_ACQUIRE);
    return known != 0 ? static_cast<uint32_t>(known) : Adopt(collector, handle.text, handle.extra1);
  }
  // The state of a counter, made now for one the static part created. nullptr when refused.
  CounterState* StateOf(Collector& collector, CounterInfo& counter);
  // The counter of the _v3 calls, named by a domain and a handle's numbers; made when new.
  CounterState* StateOf(Collector& collector, uint32_t domain, uint32_t name,
                        trace::RejectReason& refused);

  // Writes every string and counter record known into `collector`'s trace, unless it has them:
  // one load when it does. Called before each ITT record.
  void DefineIn(Collector& collector) {
    if (defined_in_.load(std::memory_order_acquire) != &collector) DefineAllIn(collector);
  }

  // Around fork(): the child must not inherit the lock held.
  void LockForFork() { mutex_.lock(); }
  void UnlockAfterFork() { mutex_.unlock(); }

  size_t strings() const;

 private:
  // Called with mutex_ held. The number of `text`, numbered (and its record written) when new;
  // 0 and `refused` when there are too many.
  uint32_t Intern(Collector& collector, std::string_view text, trace::RejectReason& refused);
  template <typename Handle, typename Make>
  Handle* Create(Collector& collector, const char* name, std::vector<Handle*>& by_number,
                 std::deque<Handle>& store, Make make, trace::RejectReason& refused);
  // Numbers a handle the static part made, storing the number in its `extra1`.
  uint32_t Adopt(Collector& collector, const char* text, const int& extra1);
  CounterState* NewCounter(Collector& collector, uint32_t name, uint32_t domain, int type);
  void DefineAllIn(Collector& collector);
  std::string_view Store(std::string_view text);
  // The slot of `text` in slots_: holding its number, or 0 where it would go.
  size_t Find(std::string_view text) const;
  void Grow();

  const size_t max_strings_;
  mutable std::mutex mutex_;
  std::atomic<const Collector*> defined_in_{nullptr};
  // The strings by number - 1, their bytes in blocks that never move, and an open-addressing
  // table of numbers by text (linear probing, at most half full).
  std::vector<std::string_view> texts_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_free_ = 0;
  char* block_next_ = nullptr;
  std::vector<uint32_t> slots_;
  // What the program holds, at addresses that never move (deque grows without moving).
  std::deque<Domain> domains_;
  std::deque<StringHandle> handles_;
  std::deque<CounterInfo> counters_;
  std::deque<CounterState> counter_states_;
  std::vector<Domain*> domain_by_number_;        // by string number; nullptr: none yet
  std::vector<StringHandle*> handle_by_number_;  // by string number; nullptr: none yet
  std::map<std::pair<uint32_t, uint32_t>, CounterInfo*> counter_by_name_;  // (domain, name)
};

}  // namespace jitscope::collector::itt
