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
  if (streaming_) base::ReserveMore(streamed_, count);
  // A record and a line table each, and a name of a few dozen bytes: room that is not used costs
  // address space, not memory; running out costs a copy of everything so far.
  base::ReserveMore(r.line_tables, (kMethodRecordSize + 48) * count);
  r.strings.Reserve(0, 48 * count);  // names are appended, not interned (AddRegion)
}

void IndexBuilder::Warn(std::string message) { reported_.warnings.Add(std::move(message)); }

uint32_t IndexBuilder::FindMethod(uint32_t space, uint64_t id) const {
  if (space < dense_.size() && id < dense_[space].size() && dense_[space][id] != 0) {
    return dense_[space][id] - 1;
  }
  if (key_count_ == 0) return kNone;
  const size_t mask = key_slots_.size() - 1;
  for (size_t i = KeyHash(space, id) & mask; key_slots_[i].method_plus_one != 0;
       i = (i + 1) & mask) {
    if (key_slots_[i].id == id && key_slots_[i].space == space) {
      return key_slots_[i].method_plus_one - 1;
    }
  }
  return kNone;
}

uint32_t IndexBuilder::MethodFor(const CodeReport& code) {
  const auto method = static_cast<uint32_t>(MethodCount());
  // A streamed method's id is in its record (StopStreaming).
  auto add_method = [&](uint64_t id, bool has_id) {
    if (streaming_) return;
    reported_.method_ids.push_back(id);
    reported_.method_has_id.push_back(has_id);
  };
  if (code.method_id) {
    const uint64_t id = *code.method_id;
    if (const uint32_t known = FindMethod(code.id_space, id); known != kNone) return known;
    if (code.id_space < 64 && id < 4 * (method + 65536)) {
      if (dense_.size() <= code.id_space) dense_.resize(code.id_space + 1);
      std::vector<uint32_t>& table = dense_[code.id_space];
      if (table.size() <= id) table.resize(std::max<size_t>(id + 1, table.size() * 2), 0);
      table[id] = method + 1;
      add_method(id, true);
      return method;
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
    size_t i = KeyHash(code.id_space, id) & mask;
    while (key_slots_[i].method_plus_one != 0) i = (i + 1) & mask;
    key_slots_[i] = {id, code.id_space, method + 1};
    ++key_count_;
  }
  add_method(code.method_id.value_or(0), code.method_id.has_value());
  return method;
}

uint32_t IndexBuilder::AddLineTable(const CodeReport& code, uint32_t method,
                                    ReportedSymbols& symbols) {
  StringTable& strings = reported_.strings;
  const auto& regions = reported_.regions;
  // Names are stored, not interned: nearly every method has its own, and looking each up in a
  // table of a million would cost a cache miss per method. Consecutive regions of one method
  // (a split function reported piece by piece) share theirs.
  symbols = {};
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
  return PutOnOneCacheLine(tables, record) + static_cast<uint32_t>(kMethodRecordSize);
}

uint32_t IndexBuilder::AddRegion(const CodeReport& code, uint32_t method, uint32_t parent_method) {
  ReportedSymbols symbols;
  const uint32_t line_table = AddLineTable(code, method, symbols);
  const ReportedRegion region = {code.address, static_cast<uint32_t>(code.size), method,
                                 parent_method, line_table};
  reported_.SetSymbols(region, symbols);
  reported_.regions.push_back(region);
  return static_cast<uint32_t>(reported_.regions.size() - 1);
}

// A load with a name (an anonymous one, a perf map's line, wins only where it overlaps) of a
// method with a 32-bit id (the record's) not seen before (no first notification to keep), at or
// after the time of the one before (the replay's order is the arrival order) and of every exec,
// and at or past the end of its code (so it ends no valid region: the streamed ones lie in address
// order, disjoint, as the layout's pieces must).
bool IndexBuilder::Streamable(const CodeReport& code) const {
  if (!code.method_id || *code.method_id > UINT32_MAX || !code.name || code.name->empty() ||
      code.time == kForever) {  // loaded at kForever: never valid, left out by the layout
    return false;
  }
  if (code.time < streamed_from_) return false;  // an exec after it would end it
  if (!streamed_.empty()) {
    const SymbolIndex::Piece& last = streamed_.back();
    if (code.time < last.loaded || code.address < last.start + last.size) return false;
  }
  return FindMethod(code.id_space, *code.method_id) == kNone;
}

// What the replay and the layout would make of the load: its method's symbols are its own (the
// first notification), written as the record in front of its line table; its region, valid from
// its time on, is a piece.
void IndexBuilder::StreamLoad(const CodeReport& code) {
  const uint32_t method = MethodFor(code);
  ReportedSymbols own;
  const uint32_t line_table = AddLineTable(code, method, own);
  const StringId file = ProgramFile(reported_.line_tables.data() + line_table);
  const MethodSymbols symbols = {own.name_offset, own.name_size, file == kInheritFile ? 0 : file,
                                 own.module};
  WriteMethodRecord(reported_.line_tables, line_table, static_cast<uint32_t>(*code.method_id),
                    symbols);
  streamed_.push_back({code.address, code.time, 0, static_cast<uint32_t>(code.size), method,
                       line_table - static_cast<uint32_t>(kMethodRecordSize)});
}

// Method i was streamed as piece i: its region and load are region i and a load of it, its
// symbols (the record's last 16 bytes, MethodSymbolsOf) what the region reported.
void IndexBuilder::StopStreaming() {
  if (!streaming_) return;
  streaming_ = false;
  ReportedCode& r = reported_;
  // The execs came first: a load at an exec's very time is the new program's.
  for (uint64_t time : streamed_execs_) r.Add(time, op::Exec{});
  base::Discard(streamed_execs_);
  base::ReserveMore(r.regions, streamed_.size());
  base::ReserveMore(r.operations, streamed_.size());
  base::ReserveMore(r.method_ids, streamed_.size());
  base::ReserveMore(r.method_has_id, streamed_.size());
  for (uint32_t m = 0; m < streamed_.size(); ++m) {
    const SymbolIndex::Piece& piece = streamed_[m];
    const uint32_t line_table = piece.program + static_cast<uint32_t>(kMethodRecordSize);
    r.regions.push_back({piece.start, piece.size, m, kNone, line_table});
    const MethodSymbols symbols = r.MethodSymbolsOf(m);
    r.SetSymbols(r.regions.back(), {symbols.name_offset, symbols.name_size, symbols.module});
    r.method_ids.push_back(MethodRecordId(r.line_tables, line_table));
    r.method_has_id.push_back(1);
    r.operations.push_back({piece.loaded, m, KindOf<op::Load>()});
  }
  base::Discard(streamed_);
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
  if (streaming_ && Streamable(code)) {
    StreamLoad(code);
    return;
  }
  StopStreaming();
  Add(code.time, op::Load{AddRegion(code, MethodFor(code), kNone)});
}

void IndexBuilder::AddInlineLoad(const CodeReport& code, uint64_t parent_method_id) {
  if (!Acceptable(code, "inline load", reported_.warnings)) return;
  StopStreaming();
  CodeReport parent;
  parent.id_space = code.id_space;
  parent.method_id = parent_method_id;
  const uint32_t parent_method = MethodFor(parent);
  Add(code.time, op::InlineLoad{AddRegion(code, MethodFor(code), parent_method)});
}

void IndexBuilder::AddUpdate(const CodeReport& code) {
  if (!Acceptable(code, "update", reported_.warnings)) return;
  StopStreaming();
  Add(code.time, op::Update{AddRegion(code, MethodFor(code), kNone)});
}

void IndexBuilder::AddRangeUpdate(uint64_t time, uint64_t address, uint64_t size) {
  if (size == 0 || address + size < address) return;
  Add(time, op::RangeUpdate{address, address + size});
}

void IndexBuilder::AddUnloadMethod(uint64_t time, uint32_t id_space, uint64_t method_id) {
  StopStreaming();
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
  StopStreaming();
  CodeReport key;
  key.id_space = id_space;
  key.method_id = method_id;
  Add(time, op::Move{MethodFor(key), old_address, new_address});
}

void IndexBuilder::AddExec(uint64_t time) {
  // Before any load nothing is valid for an exec to end; the loads at or after its time are
  // the new program's, and those may still skip the replay.
  if (streaming_ && streamed_.empty()) {
    streamed_execs_.push_back(time);
    streamed_from_ = std::max(streamed_from_, time);
    return;
  }
  Add(time, op::Exec{});
}

IndexBuilder::Replayed IndexBuilder::Replay() && {
  StopStreaming();
  RegionHistory history = ReplayRules(reported_);
  return {std::move(reported_), std::move(history)};
}

SymbolIndex IndexBuilder::Build() && {
  // What only the Add* calls need, and then what only the replay needs, is freed before the next
  // stage allocates: at a million methods each is tens of megabytes under the build's peak.
  base::Discard(dense_);
  base::Discard(key_slots_);
  if (streaming_) return LayOutLoads(std::move(reported_), std::move(streamed_));
  RegionHistory history = ReplayRules(reported_);
  base::Discard(reported_.operations);
  base::Discard(reported_.wide_operations);
  return LayOutIndex(std::move(reported_), std::move(history));
}

}  // namespace jitscope::symbolize
