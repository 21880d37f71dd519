// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/region_history.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>

#include "jitscope/symbolize/region_starts.h"
#include "jitscope/symbolize/symbol_index.h"

namespace jitscope::symbolize {

void Warnings::Add(std::string message) {
  ++count;
  if (kept.size() < kMaxKept) kept.push_back(std::move(message));
}

void Warnings::AddFormatted(const char* format, ...) {
  va_list args;
  va_start(args, format);
  char buffer[512];
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  Add(buffer);
}

void ReportedCode::Add(uint64_t time, const Operation& operation) {
  uint32_t index = 0;
  if (const auto* load = std::get_if<op::Load>(&operation)) {
    index = load->region;
  } else if (const auto* inline_load = std::get_if<op::InlineLoad>(&operation)) {
    index = inline_load->region;
  } else if (const auto* update = std::get_if<op::Update>(&operation)) {
    index = update->region;
  } else if (const auto* unload = std::get_if<op::UnloadMethod>(&operation)) {
    index = unload->method;
  } else if (!std::holds_alternative<op::Exec>(operation)) {
    index = static_cast<uint32_t>(wide_operations.size());
    wide_operations.push_back(operation);
  }
  operations.push_back({time, index, static_cast<uint8_t>(operation.index())});
}

Operation ReportedCode::OperationOf(const TimedOperation& timed) const {
  switch (timed.kind) {
    case KindOf<op::Load>():
      return op::Load{timed.index};
    case KindOf<op::InlineLoad>():
      return op::InlineLoad{timed.index};
    case KindOf<op::Update>():
      return op::Update{timed.index};
    case KindOf<op::UnloadMethod>():
      return op::UnloadMethod{timed.index};
    case KindOf<op::Exec>():
      return op::Exec{};
    default:
      return wide_operations[timed.index];
  }
}

// The symbols end where the line table starts (memcpy: the bytes have no alignment).
ReportedSymbols ReportedCode::SymbolsOf(const ReportedRegion& region) const {
  ReportedSymbols symbols;
  std::memcpy(&symbols, line_tables.data() + region.line_table - sizeof(symbols), sizeof(symbols));
  return symbols;
}

void ReportedCode::SetSymbols(const ReportedRegion& region, const ReportedSymbols& symbols) {
  std::memcpy(line_tables.data() + region.line_table - sizeof(symbols), &symbols, sizeof(symbols));
}

// The method's symbols end where its first region's line table starts, as the record's last 16
// bytes do; the record's name size carries flags in its top bits (index_layout.cc), dropped here.
MethodSymbols ReportedCode::MethodSymbolsOf(uint32_t region) const {
  MethodSymbols symbols;
  if (region == kNone) return symbols;
  std::memcpy(&symbols, line_tables.data() + regions[region].line_table - sizeof(symbols),
              sizeof(symbols));
  symbols.name_size &= kMaxNameSize;
  return symbols;
}

void ReportedCode::SetMethodSymbols(uint32_t region, const MethodSymbols& symbols) {
  std::memcpy(line_tables.data() + regions[region].line_table - sizeof(symbols), &symbols,
              sizeof(symbols));
}

namespace {

// Replays the operations in time order against the set of currently valid top-level regions
// (disjoint by construction: every load ends what it overlaps).
class Replayer {
 public:
  explicit Replayer(ReportedCode& reported)
      : reported_(reported),
        latest_region_of_method_(reported.method_ids.size(), kNone),
        inline_parent_(reported.method_ids.size(), kNone) {
    history_.first_region.resize(reported.method_ids.size(), kNone);
  }

  RegionHistory Run() && {
    auto& operations = reported_.operations;
    history_.regions.reserve(operations.size());
    first_inline_.reserve(operations.size());
    previous_of_method_.reserve(operations.size());
    auto earlier = [](const TimedOperation& x, const TimedOperation& y) { return x.time < y.time; };
    if (!std::is_sorted(operations.begin(), operations.end(), earlier)) {
      std::stable_sort(operations.begin(), operations.end(), earlier);
    }
    // Inline regions may come before their parents' code: every inline method's parent is known
    // before the replay starts.
    for (const TimedOperation& timed : operations) {
      if (timed.kind == KindOf<op::InlineLoad>()) {
        const ReportedRegion& r = reported_.regions[timed.index];
        if (inline_parent_[r.method] == kNone) inline_parent_[r.method] = r.parent_method;
      }
    }
    for (const TimedOperation& timed : operations) {
      std::visit([&](const auto& operation) { Apply(timed.time, operation); },
                 reported_.OperationOf(timed));
    }
    size_t orphans = 0;
    for (const auto& [root, waiting] : waiting_for_root_) orphans += waiting.size();
    if (orphans != 0) {
      reported_.warnings.AddFormatted(
          "%zu inline region(s) never found their parent's code and are ignored", orphans);
    }
    history_.module_names = ModuleNames(reported_);
    return std::move(history_);
  }

 private:
  enum class Nesting { kTopLevel, kInline };

  void Apply(uint64_t t, const op::Load& load) {
    const ReportedRegion& r = reported_.regions[load.region];
    TakeSymbolsIfFirst(load.region, Nesting::kTopLevel);
    // A perf map's line (an anonymous method, no time) wins only where it overlaps an earlier
    // line: without times, the rest of the earlier code is still the best name for samples
    // there (they were taken while it lived, or in code nobody reported), as perf names them.
    if (reported_.method_has_id[r.method] == 0) {
      StartRegionOver(r, t);
      return;
    }
    StartRegion(r.address, r.size, r.method, r.line_table, 0, t);
  }

  void Apply(uint64_t /*t*/, const op::InlineLoad& load) {
    const ReportedRegion& r = reported_.regions[load.region];
    TakeSymbolsIfFirst(load.region, Nesting::kInline);
    auto& inlines = history_.inlines;
    inlines.push_back({r.address, r.size, r.method, r.parent_method, r.line_table, kNone});
    next_sibling_.push_back(kNone);
    const auto index = static_cast<uint32_t>(inlines.size() - 1);
    const uint32_t root = RootMethodOf(r.method);
    const uint32_t region = ValidRegionContaining(r.address, r.size);
    if (region != kNone && history_.regions[region].method == root) {
      AttachInline(index, region);
    } else {
      waiting_for_root_[root].push_back(index);
    }
  }

  void Apply(uint64_t t, const op::Update& update) {
    const ReportedRegion& r = reported_.regions[update.region];
    TakeSymbolsIfFirst(update.region, Nesting::kTopLevel);
    StartRegionOver(r, t);
  }

  void Apply(uint64_t t, const op::RangeUpdate& update) {
    for (uint32_t old : EndOverlapping(update.start, update.end, t)) {
      ContinueAsNewVersion(old, history_.regions[old].start, history_.regions[old].end(), 0, t);
    }
  }

  void Apply(uint64_t t, const op::UnloadMethod& unload) {
    for (uint32_t r = latest_region_of_method_[unload.method]; r != kNone;
         r = previous_of_method_[r]) {
      if (history_.regions[r].invalidated == kForever) EndRegion(r, t);
    }
  }

  void Apply(uint64_t t, const op::UnloadCodeAt& unload) {
    if (const auto region = valid_.Find(unload.start)) EndRegion(*region, t);
  }

  void Apply(uint64_t t, const op::Move& move) {
    const auto found = valid_.Find(move.from);
    if (!found || history_.regions[*found].method != move.method) {
      reported_.warnings.AddFormatted(
          "move of code id %llu from %#llx ignored: no such code is loaded there",
          static_cast<unsigned long long>(reported_.method_ids[move.method]),
          static_cast<unsigned long long>(move.from));
      return;
    }
    const uint32_t old = *found;
    EndRegion(old, t);
    const Region& o = history_.regions[old];
    ContinueAsNewVersion(old, o.start, o.end(), move.to - move.from, t);
  }

  // A perf map's lines have no time (they load at 0 and hold for the whole process): they are
  // not the old program's more than the new one's.
  void Apply(uint64_t t, const op::Exec&) {
    valid_.EraseIf([&](uint32_t r) {
      Region& region = history_.regions[r];
      if (region.loaded == 0 && reported_.method_has_id[region.method] == 0) return false;
      region.invalidated = t;
      return true;
    });
  }

  // First notification wins for the name, the source file and (the first one registered) the
  // module; a later, different source file is kept by its region, with a warning.
  void TakeSymbolsIfFirst(uint32_t region, Nesting nesting) {
    const ReportedRegion& r = reported_.regions[region];
    const StringId file = reported_.FileOf(r);
    // Read before the method's symbols may take their place (when this is its first region).
    const ReportedSymbols own = reported_.SymbolsOf(r);
    uint32_t& first = history_.first_region[r.method];
    MethodSymbols m = reported_.MethodSymbolsOf(first);
    if (first == kNone) {
      first = region;
      m.file = file == kInheritFile ? 0 : file;
    } else if (file != kInheritFile && m.file != 0 && file != m.file) {
      const StringTable& strings = reported_.strings;
      reported_.warnings.AddFormatted(
          "method %llu: %s region at %#llx reports source file \"%s\", but the "
          "method's first region reported \"%s\"; the region keeps its own file",
          static_cast<unsigned long long>(reported_.method_ids[r.method]),
          nesting == Nesting::kInline ? "an inline" : "a",
          static_cast<unsigned long long>(r.address), std::string(strings.Get(file)).c_str(),
          std::string(strings.Get(m.file)).c_str());
    }
    if (m.name_size == 0 && own.name_offset != kNone) {
      m.name_offset = own.name_offset;
      m.name_size = own.name_size;
    }
    if (m.module == kNone) m.module = own.module;
    reported_.SetMethodSymbols(first, m);
  }

  // The top-level method an inline method belongs to, through its parents (cycles end it).
  uint32_t RootMethodOf(uint32_t method) const {
    uint32_t root = inline_parent_[method];
    for (size_t steps = 0; steps < inline_parent_.size() && inline_parent_[root] != kNone;
         ++steps) {
      root = inline_parent_[root];
    }
    return root;
  }

  uint32_t ValidRegionContaining(uint64_t address, uint64_t size) const {
    const auto last = valid_.AtOrBefore(address);
    if (!last) return kNone;
    const Region& r = history_.regions[last->value];
    return address >= r.start && address + size <= r.end() ? last->value : kNone;
  }

  void AttachInline(uint32_t inline_index, uint32_t region) {
    history_.inlines[inline_index].root = region;
    next_sibling_[inline_index] = first_inline_[region];
    first_inline_[region] = inline_index;
  }

  void EndRegion(uint32_t region, uint64_t t) {
    history_.regions[region].invalidated = t;
    valid_.Erase(history_.regions[region].start);
  }

  std::vector<uint32_t> EndOverlapping(uint64_t start, uint64_t end, uint64_t t) {
    std::vector<uint32_t> ended;
    auto& regions = history_.regions;
    // JIT engines mostly allocate upwards: code past every valid region overlaps nothing.
    if (valid_.empty() || regions[valid_.Last()->value].end() <= start) return ended;
    // The valid regions are disjoint: of those starting before `start`, only the last can reach
    // into the range.
    uint64_t from = start;
    if (const auto before = valid_.Before(start); before && regions[before->value].end() > start) {
      from = before->key;
    }
    valid_.EraseRange(from, end, [&](uint32_t r) {
      regions[r].invalidated = t;
      ended.push_back(r);
    });
    return ended;
  }

  // New code valid from `t`: it ends every valid region it overlaps.
  uint32_t StartRegion(uint64_t start, uint32_t size, uint32_t method, uint32_t line_table,
                       uint32_t line_origin, uint64_t t) {
    EndOverlapping(start, start + size, t);
    const auto index = static_cast<uint32_t>(history_.regions.size());
    history_.regions.push_back({start, t, kForever, size, method, line_table, line_origin});
    first_inline_.push_back(kNone);
    previous_of_method_.push_back(latest_region_of_method_[method]);
    latest_region_of_method_[method] = index;
    valid_.Insert(start, index);
    if (!waiting_for_root_.empty()) AttachWaitingInlines(index);
    return index;
  }

  // `r`'s code valid from `t` over its range only: the parts of the regions it overlaps outside
  // that range continue as new versions.
  void StartRegionOver(const ReportedRegion& r, uint64_t t) {
    const uint64_t end = r.address + r.size;
    for (uint32_t old : EndOverlapping(r.address, end, t)) {
      const Region o = history_.regions[old];  // a copy: ContinueAsNewVersion grows regions
      if (o.start < r.address) ContinueAsNewVersion(old, o.start, r.address, 0, t);
      if (o.end() > end) ContinueAsNewVersion(old, end, o.end(), 0, t);
    }
    StartRegion(r.address, r.size, r.method, r.line_table, 0, t);
  }

  // Inline regions reported before their top-level region.
  void AttachWaitingInlines(uint32_t region) {
    auto it = waiting_for_root_.find(history_.regions[region].method);
    if (it == waiting_for_root_.end()) return;
    auto& waiting = it->second;
    const Region& r = history_.regions[region];
    std::erase_if(waiting, [&](uint32_t i) {
      const InlineRegion& in = history_.inlines[i];
      if (in.start < r.start || in.end() > r.end()) return false;
      AttachInline(i, region);
      return true;
    });
    if (waiting.empty()) waiting_for_root_.erase(it);
  }

  // A new version of region `old` over [from, to) of its range, moved by `shift`, valid from
  // `t`, with the inline regions that lie inside that part.
  void ContinueAsNewVersion(uint32_t old, uint64_t from, uint64_t to, uint64_t shift, uint64_t t) {
    const Region o = history_.regions[old];
    const uint32_t region =
        StartRegion(from + shift, static_cast<uint32_t>(to - from), o.method, o.line_table,
                    o.line_origin + static_cast<uint32_t>(from - o.start), t);
    for (uint32_t c = first_inline_[old]; c != kNone; c = next_sibling_[c]) {
      if (history_.inlines[c].start < from || history_.inlines[c].end() > to) continue;
      InlineRegion copy = history_.inlines[c];
      copy.start += shift;
      history_.inlines.push_back(copy);
      next_sibling_.push_back(kNone);
      AttachInline(static_cast<uint32_t>(history_.inlines.size() - 1), region);
    }
  }

  ReportedCode& reported_;
  RegionHistory history_;
  RegionStarts valid_;  // start → region, the valid top-level regions
  // Per region: its first inline region (listed through next_sibling_, per inline region), and
  // the method's region before it (listed from latest_region_of_method_, per method).
  base::HugeVector<uint32_t> first_inline_;
  std::vector<uint32_t> next_sibling_;
  base::HugeVector<uint32_t> previous_of_method_;
  std::vector<uint32_t> latest_region_of_method_;
  std::vector<uint32_t> inline_parent_;  // method → parent method, for inline methods
  std::map<uint32_t, std::vector<uint32_t>> waiting_for_root_;  // root method → inline regions
};

}  // namespace

std::vector<StringId> ModuleNames(ReportedCode& reported) {
  std::unordered_map<StringId, uint8_t> arches;
  for (const auto& [name, arch] : reported.modules) arches[name] |= 1u << static_cast<int>(arch);
  std::vector<StringId> names;
  names.reserve(reported.modules.size());
  StringTable& strings = reported.strings;
  for (const auto& [name, arch] : reported.modules) {
    const bool both = arches[name] == ((1u << 1) | (1u << 2));
    names.push_back(both && arch == CodeArch::k64
                        ? strings.Intern(std::string(strings.Get(name)) + " (64)")
                        : name);
  }
  return names;
}

RegionHistory ReplayRules(ReportedCode& reported) { return Replayer(reported).Run(); }

}  // namespace jitscope::symbolize
