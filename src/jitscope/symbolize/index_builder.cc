// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/index_builder.h"

#include <algorithm>

#include "jitscope/base/reserve.h"
#include "jitscope/symbolize/index_layout.h"

namespace jitscope::symbolize {
namespace {

size_t KeyHash(uint32_t space, uint64_t id) {
  uint64_t h = (id ^ (uint64_t{space} << 40)) * 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h ^ (h >> 31));
}

}  // namespace

IndexBuilder::IndexBuilder(CodeArch native_arch)
    : native_arch_(native_arch == CodeArch::kNative ? CodeArch::k64 : native_arch) {}

void IndexBuilder::Reserve(size_t count) {
  ReportedCode& r = reported_;
  // Once per file: a chain of a thousand files reserves a thousand times (base/reserve.h).
  base::ReserveMore(r.regions, count);
  base::ReserveMore(r.operations, count);
  base::ReserveMore(r.method_ids, count);
  base::ReserveMore(r.method_has_id, count);
  // A record and a line table each, and a name of a few dozen bytes: room that is not used costs
  // address space, not memory; running out costs a copy of everything so far.
  base::ReserveMore(r.line_tables, (kMethodRecordSize + 48) * count);
  r.strings.Reserve(0, 48 * count);  // names are appended, not interned (AddRegion)
}

void IndexBuilder::Warn(std::string message) { reported_.warnings.Add(std::move(message)); }

// Whether (space, id) already went to the hash table (reported while it was too large for the
// direct table, which has grown since).
bool IndexBuilder::InSparseTable(uint32_t space, uint64_t id) const {
  if (key_count_ == 0) return false;
  const size_t mask = key_slots_.size() - 1;
  for (size_t i = KeyHash(space, id) & mask; key_slots_[i].method_plus_one != 0;
       i = (i + 1) & mask) {
    if (key_slots_[i].id == id && key_slots_[i].space == space) return true;
  }
  return false;
}

uint32_t IndexBuilder::MethodFor(const CodeReport& code) {
  auto& method_ids = reported_.method_ids;
  auto& method_has_id = reported_.method_has_id;
  const auto method = static_cast<uint32_t>(method_ids.size());
  if (code.method_id) {
    const uint64_t id = *code.method_id;
    if (code.id_space < 64 && id < 4 * (method_ids.size() + 65536)) {
      if (dense_.size() <= code.id_space) dense_.resize(code.id_space + 1);
      std::vector<uint32_t>& table = dense_[code.id_space];
      if (table.size() <= id) table.resize(std::max<size_t>(id + 1, table.size() * 2), 0);
      if (table[id] != 0) return table[id] - 1;
      if (!InSparseTable(code.id_space, id)) {
        table[id] = method + 1;
        method_ids.push_back(id);
        method_has_id.push_back(1);
        return method;
      }
    }
    if ((key_count_ + 1) * 2 > key_slots_.size()) {
      std::vector<KeySlot> slots(key_slots_.size() * 2);
      for (const KeySlot& slot : key_slots_) {
        if (slot.method_plus_one == 0) continue;
        size_t i = KeyHash(slot.space, slot.id) & (slots.size() - 1);
        while (slots[i].method_plus_one != 0) i = (i + 1) & (slots.size() - 1);
        slots[i] = slot;
      }
      key_slots_ = std::move(slots);
    }
    const size_t mask = key_slots_.size() - 1;
    for (size_t i = KeyHash(code.id_space, id) & mask;; i = (i + 1) & mask) {
      KeySlot& slot = key_slots_[i];
      if (slot.method_plus_one == 0) {
        slot = {id, code.id_space, method + 1};
        ++key_count_;
        break;
      }
      if (slot.id == id && slot.space == code.id_space) return slot.method_plus_one - 1;
    }
  }
  method_ids.push_back(code.method_id.value_or(0));
  method_has_id.push_back(code.method_id.has_value());
  return method;
}

uint32_t IndexBuilder::AddRegion(const CodeReport& code, uint32_t method, uint32_t parent_method) {
  StringTable& strings = reported_.strings;
  auto& regions = reported_.regions;
  ReportedRegion region;
  region.address = code.address;
  region.size = static_cast<uint32_t>(code.size);
  region.method = method;
  region.parent_method = parent_method;
  // Names are stored, not interned: nearly every method has its own, and looking each up in a
  // table of a million would cost a cache miss per method. Consecutive regions of one method
  // (a split function reported piece by piece) share theirs.
  ReportedSymbols symbols;
  if (code.name) {
    const ReportedRegion* previous = regions.empty() ? nullptr : &regions.back();
    const ReportedSymbols before =
        previous != nullptr ? reported_.SymbolsOf(*previous) : ReportedSymbols{};
    if (previous != nullptr && previous->method == method && before.name_offset != kNone &&
        strings.Slice(before.name_offset, before.name_size) == *code.name) {
      symbols.name_offset = before.name_offset;
      symbols.name_size = before.name_size;
    } else {
      symbols.name_offset = strings.Append(*code.name);
      symbols.name_size = static_cast<uint32_t>(std::min<size_t>(code.name->size(), kMaxNameSize));
    }
  }
  StringId file = code.source_file ? strings.Intern(*code.source_file) : kInheritFile;
  if (code.module) {
    const StringId name = strings.Intern(*code.module);
    const CodeArch arch = code.arch == CodeArch::kNative ? native_arch_ : code.arch;
    const uint64_t key = (uint64_t{name} << 8) | static_cast<uint8_t>(arch);
    auto& modules = reported_.modules;
    auto [it, inserted] = modules_by_key_.try_emplace(key, static_cast<uint32_t>(modules.size()));
    if (inserted) modules.emplace_back(name, arch);
    symbols.module = it->second;
  }
  // Room for the method's record, which the layout writes once the replay has settled it; until
  // then it holds what the region reported (ReportedSymbols).
  auto& tables = reported_.line_tables;
  const auto record = static_cast<uint32_t>(tables.size());
  tables.resize(tables.size() + kMethodRecordSize);
  if (!code.address_lines.empty()) {
    // Start-address tables (jitdump, OProfile) carry a file per entry; the region's own file is
    // the first entry's unless the report named one.
    std::vector<StartRow> rows;
    rows.reserve(code.address_lines.size());
    StringId region_file = file;
    for (const AddressLine& line : code.address_lines) {
      if (line.address < code.address || line.address - code.address >= code.size) continue;
      const StringId row_file = line.file ? strings.Intern(*line.file) : kInheritFile;
      if (region_file == kInheritFile) region_file = row_file;
      rows.push_back({static_cast<uint32_t>(line.address - code.address), line.line, row_file});
    }
    if (file == kInheritFile) file = region_file;
    AppendStartRows(tables, file, rows);
  } else {
    AppendEndOffsetTable(tables, file, code.end_offset_lines);
  }
  region.line_table = PutOnOneCacheLine(tables, record) + static_cast<uint32_t>(kMethodRecordSize);
  reported_.SetSymbols(region, symbols);
  regions.push_back(region);
  return static_cast<uint32_t>(regions.size() - 1);
}

// Regions must be non-empty and inside the 64-bit address space; sizes are 32-bit in every
// producer's API except jitdump's, where more than 4 GiB of code is not a real function.
static bool Acceptable(const CodeReport& code, const char* what, Warnings& warnings) {
  if (code.size == 0 || code.size > UINT32_MAX || code.address + code.size < code.address) {
    warnings.AddFormatted("%s at %#llx with size %#llx ignored: not a valid code range", what,
                          static_cast<unsigned long long>(code.address),
                          static_cast<unsigned long long>(code.size));
    return false;
  }
  return true;
}

void IndexBuilder::AddLoad(const CodeReport& code) {
  if (!Acceptable(code, "load", reported_.warnings)) return;
  Add(code.time, op::Load{AddRegion(code, MethodFor(code), kNone)});
}

void IndexBuilder::AddInlineLoad(const CodeReport& code, uint64_t parent_method_id) {
  if (!Acceptable(code, "inline load", reported_.warnings)) return;
  CodeReport parent;
  parent.id_space = code.id_space;
  parent.method_id = parent_method_id;
  const uint32_t parent_method = MethodFor(parent);
  Add(code.time, op::InlineLoad{AddRegion(code, MethodFor(code), parent_method)});
}

void IndexBuilder::AddUpdate(const CodeReport& code) {
  if (!Acceptable(code, "update", reported_.warnings)) return;
  Add(code.time, op::Update{AddRegion(code, MethodFor(code), kNone)});
}

void IndexBuilder::AddRangeUpdate(uint64_t time, uint64_t address, uint64_t size) {
  if (size == 0 || address + size < address) return;
  Add(time, op::RangeUpdate{address, address + size});
}

void IndexBuilder::AddUnloadMethod(uint64_t time, uint32_t id_space, uint64_t method_id) {
  CodeReport key;
  key.id_space = id_space;
  key.method_id = method_id;
  Add(time, op::UnloadMethod{MethodFor(key)});
}

void IndexBuilder::AddUnloadAddress(uint64_t time, uint64_t address) {
  Add(time, op::UnloadCodeAt{address});
}

void IndexBuilder::AddMove(uint64_t time, uint32_t id_space, uint64_t method_id,
                           uint64_t old_address, uint64_t new_address) {
  CodeReport key;
  key.id_space = id_space;
  key.method_id = method_id;
  Add(time, op::Move{MethodFor(key), old_address, new_address});
}

void IndexBuilder::AddExec(uint64_t time) { Add(time, op::Exec{}); }

IndexBuilder::Replayed IndexBuilder::Replay() && {
  RegionHistory history = ReplayRules(reported_);
  return {std::move(reported_), std::move(history)};
}

SymbolIndex IndexBuilder::Build() && {
  // What only the Add* calls need, and then what only the replay needs, is freed before the next
  // stage allocates: at a million methods each is tens of megabytes under the build's peak.
  base::Discard(dense_);
  base::Discard(key_slots_);
  RegionHistory history = ReplayRules(reported_);
  base::Discard(reported_.operations);
  base::Discard(reported_.wide_operations);
  return LayOutIndex(std::move(reported_), std::move(history));
}

}  // namespace jitscope::symbolize
