// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/live_records.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <variant>

namespace jitscope::collector {
namespace {

// What OwnerOf() says of a record that joins no owner: kept on its own, or dropped.
constexpr size_t kNoOwner = SIZE_MAX;
constexpr size_t kDropped = SIZE_MAX - 1;

class LiveSet {
 public:
  explicit LiveSet(std::span<const trace::Record> records) : records_(records) {}

  std::vector<size_t> Compute() {
    for (size_t i = 0; i < records_.size(); ++i) Visit(i);
    std::vector<size_t> live = kept_;
    for (const Owner& owner : owners_) {
      if (owner.alive) live.insert(live.end(), owner.records.begin(), owner.records.end());
    }
    std::sort(live.begin(), live.end());
    return live;
  }

 private:
  struct Owner {
    std::vector<size_t> records;
    std::vector<uint64_t> region_starts;  // where its regions began (some since covered)
    size_t live_regions = 0;
    bool alive = true;
  };
  struct Region {
    uint64_t end;
    size_t owner;
  };

  void Visit(size_t index) {
    const trace::Record& record = records_[index];
    const size_t owner = OwnerOf(record);
    if (!std::holds_alternative<trace::CodeBytesEvent>(record.event)) {
      last_owner_by_thread_[record.tid] = owner;
    }
    if (owner == kDropped) return;
    if (owner == kNoOwner) {
      kept_.push_back(index);
    } else {
      owners_[owner].records.push_back(index);
    }
  }

  // The owner `record` joins (creating or ending owners as the event says), kNoOwner to keep it
  // on its own, or kDropped.
  size_t OwnerOf(const trace::Record& record) {
    if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) return OwnerOfCode(*code);
    if (const auto* update = std::get_if<trace::RangeUpdateEvent>(&record.event)) {
      const size_t owner = OwnerAt(update->address);
      return owner == kDropped ? kNoOwner : owner;
    }
    if (const auto* unload = std::get_if<trace::UnloadEvent>(&record.event)) {
      if (auto it = methods_.find(unload->method_id); it != methods_.end()) End(it->second);
      return kDropped;
    }
    if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&record.event)) {
      // A load at the address of live code is a new symbol (OProfile's guide): Place() ends the old
      // one.
      const size_t owner = NewOwner();
      oprofile_loads_[load->address] = owner;
      Place(owner, load->address, load->size);
      return owner;
    }
    if (const auto* lines = std::get_if<trace::OprofileDebugLinesEvent>(&record.event)) {
      auto it = oprofile_loads_.find(lines->address);
      return it != oprofile_loads_.end() && owners_[it->second].alive ? it->second : kDropped;
    }
    if (const auto* unload = std::get_if<trace::OprofileUnloadEvent>(&record.event)) {
      if (auto it = oprofile_loads_.find(unload->address); it != oprofile_loads_.end()) {
        End(it->second);
      }
      return kDropped;
    }
    if (std::holds_alternative<trace::CodeBytesEvent>(record.event)) {
      auto it = last_owner_by_thread_.find(record.tid);
      return it == last_owner_by_thread_.end() ? kDropped : it->second;
    }
    if (std::holds_alternative<trace::OprofileOpenEvent>(record.event) ||
        std::holds_alternative<trace::OprofileCloseEvent>(record.event)) {
      return kNoOwner;
    }
    // The ITT API's names stay in use for good (handles keep their numbers), and so do thread
    // names; its tasks, frames, markers and values are history.
    if (std::holds_alternative<trace::IttStringEvent>(record.event) ||
        std::holds_alternative<trace::IttCounterEvent>(record.event) ||
        std::holds_alternative<trace::IttThreadNameEvent>(record.event)) {
      return kNoOwner;
    }
    return kDropped;  // shutdown, refusals, chain records, the ITT API's history
  }

  size_t OwnerOfCode(const trace::CodeEvent& code) {
    switch (code.api_event) {
      case trace::kEventMethodInlineLoadFinished: {
        const size_t owner = LiveMethod(code.parent_method_id);
        if (owner == kDropped) return kNoOwner;
        methods_[code.method_id] = owner;  // nested inlines name this one as their parent
        return owner;
      }
      case trace::kEventMethodUpdate: {
        const size_t owner = LiveMethod(code.method_id);
        return owner == kDropped ? kNoOwner : owner;
      }
      default: {
        // A top-level load: a new method, or another region of a live one (a split function).
        size_t owner = LiveMethod(code.method_id);
        if (owner == kDropped) owner = methods_[code.method_id] = NewOwner();
        Place(owner, code.address, code.size);
        return owner;
      }
    }
  }

  // The live owner of Intel method `id` (or of the inline instance `id`), or kDropped.
  size_t LiveMethod(uint32_t id) const {
    auto it = methods_.find(id);
    return it != methods_.end() && owners_[it->second].alive ? it->second : kDropped;
  }

  size_t NewOwner() {
    owners_.emplace_back();
    return owners_.size() - 1;
  }

  // The owner of the live region containing `address`, or kDropped.
  size_t OwnerAt(uint64_t address) const {
    auto it = regions_.upper_bound(address);
    if (it == regions_.begin()) return kDropped;
    --it;
    return address < it->second.end ? it->second.owner : kDropped;
  }

  void AddRegion(uint64_t start, Region region) {
    regions_.emplace(start, region);
    Owner& owner = owners_[region.owner];
    owner.region_starts.push_back(start);
    ++owner.live_regions;
  }

  // `owner`'s code now occupies [address, address + size): whatever it covers of other code is
  // gone, and an owner with nothing left is dropped.
  void Place(size_t owner, uint64_t address, uint32_t size) {
    const uint64_t end = address + size;
    auto it = regions_.upper_bound(address);
    if (it != regions_.begin() && std::prev(it)->second.end > address) --it;
    std::vector<std::pair<uint64_t, Region>> remnants;
    std::vector<size_t> covered;
    while (it != regions_.end() && it->first < end) {
      const auto [start, region] = *it;
      it = regions_.erase(it);
      if (start < address) remnants.push_back({start, {address, region.owner}});
      if (region.end > end) remnants.push_back({end, {region.end, region.owner}});
      --owners_[region.owner].live_regions;
      covered.push_back(region.owner);
    }
    for (const auto& [start, region] : remnants) AddRegion(start, region);
    AddRegion(address, Region{end, owner});
    for (size_t index : covered) {
      if (owners_[index].live_regions == 0) End(index);
    }
  }

  void End(size_t index) {
    Owner& owner = owners_[index];
    if (!owner.alive) return;
    for (uint64_t start : owner.region_starts) {
      auto it = regions_.find(start);
      if (it != regions_.end() && it->second.owner == index) regions_.erase(it);
    }
    owner = Owner{};
    owner.alive = false;
  }

  std::span<const trace::Record> records_;
  std::vector<Owner> owners_;
  std::vector<size_t> kept_;
  std::map<uint64_t, Region> regions_;            // live code by start address
  std::unordered_map<uint32_t, size_t> methods_;  // Intel method ids, inlines too
  std::map<uint64_t, size_t> oprofile_loads_;     // OProfile loads by address
  std::unordered_map<uint32_t, size_t> last_owner_by_thread_;
};

}  // namespace

std::vector<size_t> LiveRecords(std::span<const trace::Record> records) {
  return LiveSet(records).Compute();
}

}  // namespace jitscope::collector
