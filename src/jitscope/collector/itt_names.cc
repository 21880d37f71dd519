// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/itt_names.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace jitscope::collector::itt {
namespace {

constexpr size_t kBlockSize = 64 * 1024;

// The handle's `extra1` is the runtime's (itt_abi.h); the API passes handles as const.
void StoreNumber(const int& extra1, uint32_t number) {
  __atomic_store_n(const_cast<int*>(&extra1), static_cast<int>(number), __ATOMIC_RELEASE);
}

}  // namespace

size_t Names::strings() const {
  std::lock_guard lock(mutex_);
  return texts_.size();
}

std::string_view Names::Store(std::string_view text) {
  if (text.size() > block_free_) {
    const size_t size = std::max(kBlockSize, text.size());
    blocks_.push_back(std::make_unique<char[]>(size));
    block_next_ = blocks_.back().get();
    block_free_ = size;
  }
  std::memcpy(block_next_, text.data(), text.size());
  const std::string_view stored(block_next_, text.size());
  block_next_ += text.size();
  block_free_ -= text.size();
  return stored;
}

size_t Names::Find(std::string_view text) const {
  const size_t mask = slots_.size() - 1;
  for (size_t slot = std::hash<std::string_view>{}(text)&mask;; slot = (slot + 1) & mask) {
    const uint32_t number = slots_[slot];
    if (number == 0 || texts_[number - 1] == text) return slot;
  }
}

void Names::Grow() {
  slots_.assign(std::max<size_t>(64, slots_.size() * 2), 0);
  for (size_t i = 0; i < texts_.size(); ++i) {
    slots_[Find(texts_[i])] = static_cast<uint32_t>(i + 1);
  }
}

uint32_t Names::Intern(Collector& collector, std::string_view text, trace::RejectReason& refused) {
  if (!slots_.empty()) {
    if (const uint32_t known = slots_[Find(text)]; known != 0) return known;
  }
  if (texts_.size() >= max_strings_) {
    refused = trace::RejectReason::kTooManyStrings;
    return 0;
  }
  if (2 * (texts_.size() + 1) > slots_.size()) Grow();
  texts_.push_back(Store(text));
  const auto number = static_cast<uint32_t>(texts_.size());
  slots_[Find(text)] = number;
  domain_by_number_.push_back(nullptr);
  handle_by_number_.push_back(nullptr);
  // Written before the number is handed out, so every record that uses it comes after.
  collector.Timeline(trace::IttStringEvent{number, texts_.back()}, collector.Now(),
                     collector.ThreadId());
  return number;
}

// A domain's or a handle's creation: the one of `name` in `by_number`, made by `make(text,
// number)` into `store` when it is the first.
template <typename Handle, typename Make>
Handle* Names::Create(Collector& collector, const char* name, std::vector<Handle*>& by_number,
                      std::deque<Handle>& store, Make make, trace::RejectReason& refused) {
  if (name == nullptr) {
    refused = trace::RejectReason::kNullName;
    return nullptr;
  }
  std::lock_guard lock(mutex_);
  const uint32_t number = Intern(collector, name, refused);
  if (number == 0) return nullptr;
  Handle*& handle = by_number[number - 1];
  if (handle == nullptr) {
    handle = &store.emplace_back(make(texts_[number - 1].data(), static_cast<int>(number)));
  }
  return handle;
}

Domain* Names::CreateDomain(Collector& collector, const char* name, trace::RejectReason& refused) {
  // Enabled: the header's macros skip every call in a domain whose flags are 0.
  return Create(
      collector, name, domain_by_number_, domains_,
      [](const char* text, int number) {
        return Domain{1, text, nullptr, number, nullptr, nullptr};
      },
      refused);
}

StringHandle* Names::CreateStringHandle(Collector& collector, const char* text,
                                        trace::RejectReason& refused) {
  return Create(
      collector, text, handle_by_number_, handles_,
      [](const char* name, int number) {
        return StringHandle{name, nullptr, number, nullptr, nullptr};
      },
      refused);
}

uint32_t Names::Adopt(Collector& collector, const char* text, const int& extra1) {
  if (text == nullptr) return 0;
  std::lock_guard lock(mutex_);
  trace::RejectReason refused = trace::RejectReason::kNone;
  const uint32_t number = Intern(collector, text, refused);
  if (number != 0) StoreNumber(extra1, number);
  return number;
}

CounterState* Names::NewCounter(Collector& collector, uint32_t name, uint32_t domain, int type) {
  CounterState& state = counter_states_.emplace_back();
  state.number = static_cast<uint32_t>(counter_states_.size());
  state.name = name;
  state.domain = domain;
  state.type = type;
  collector.Timeline(
      trace::IttCounterEvent{state.number, name, domain, static_cast<uint32_t>(type)},
      collector.Now(), collector.ThreadId());
  return &state;
}

CounterInfo* Names::CreateCounter(Collector& collector, const char* name, const char* domain,
                                  int type, trace::RejectReason& refused) {
  if (name == nullptr) {
    refused = trace::RejectReason::kNullName;
    return nullptr;
  }
  std::lock_guard lock(mutex_);
  const uint32_t name_number = Intern(collector, name, refused);
  const uint32_t domain_number = domain == nullptr ? 0 : Intern(collector, domain, refused);
  if (name_number == 0 || (domain != nullptr && domain_number == 0)) return nullptr;
  CounterInfo*& counter = counter_by_name_[{domain_number, name_number}];
  if (counter == nullptr) {
    CounterState* state = NewCounter(collector, name_number, domain_number, type);
    counter = &counters_.emplace_back(
        CounterInfo{texts_[name_number - 1].data(), nullptr,
                    domain_number == 0 ? nullptr : texts_[domain_number - 1].data(), nullptr, type,
                    0, 0, state, nullptr});
  }
  return counter;
}

CounterState* Names::StateOf(Collector& collector, CounterInfo& counter) {
  if (void* known = __atomic_load_n(&counter.extra2, __ATOMIC_ACQUIRE)) {
    return static_cast<CounterState*>(known);
  }
  // A counter the static part made before the collector was loaded.
  trace::RejectReason refused = trace::RejectReason::kNone;
  CounterInfo* own = CreateCounter(collector, counter.name, counter.domain, counter.type, refused);
  if (own == nullptr) return nullptr;
  auto* state = static_cast<CounterState*>(own->extra2);
  __atomic_store_n(&counter.extra2, static_cast<void*>(state), __ATOMIC_RELEASE);
  return state;
}

CounterState* Names::StateOf(Collector& collector, uint32_t domain, uint32_t name,
                             trace::RejectReason& refused) {
  std::lock_guard lock(mutex_);
  if (name == 0 || name > texts_.size() || domain > texts_.size()) {
    refused = trace::RejectReason::kNullHandle;
    return nullptr;
  }
  CounterInfo*& counter = counter_by_name_[{domain, name}];
  if (counter == nullptr) {
    CounterState* state = NewCounter(collector, name, domain, kMetadataU64);
    counter = &counters_.emplace_back(CounterInfo{texts_[name - 1].data(), nullptr,
                                                  domain == 0 ? nullptr : texts_[domain - 1].data(),
                                                  nullptr, kMetadataU64, 0, 0, state, nullptr});
  }
  return static_cast<CounterState*>(counter->extra2);
}

void Names::DefineAllIn(Collector& collector) {
  std::lock_guard lock(mutex_);
  if (defined_in_.load(std::memory_order_relaxed) == &collector) return;
  const uint64_t now = collector.Now();
  const uint32_t tid = collector.ThreadId();
  for (size_t i = 0; i < texts_.size(); ++i) {
    collector.Timeline(trace::IttStringEvent{static_cast<uint32_t>(i + 1), texts_[i]}, now, tid);
  }
  for (const CounterState& state : counter_states_) {
    collector.Timeline(trace::IttCounterEvent{state.number, state.name, state.domain,
                                              static_cast<uint32_t>(state.type)},
                       now, tid);
  }
  defined_in_.store(&collector, std::memory_order_release);
}

}  // namespace jitscope::collector::itt
