// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/index_builder.h"

#include <algorithm>
#include <cstdarg>
#include <cstring>
#include <map>
#include <memory_resource>
#include <tuple>

namespace jitscope::symbolize {
namespace {

constexpr uint32_t kNone = UINT32_MAX;
// Code this far from all other code starts an area of its own, with its own buckets: a JIT's
// code often lies in several places far apart (near the heap, among the shared libraries), and
// one table of buckets over all of them would put whole areas into single buckets.
constexpr uint64_t kAreaGap = uint64_t{16} << 20;

size_t KeyHash(uint32_t space, uint64_t id) {
  uint64_t h = (id ^ (uint64_t{space} << 40)) * 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h ^ (h >> 31));
}

// Moves the method record and line table that end `programs` and start at `start` to the next
// cache line when they would straddle two and fit in one, if that wastes at most a quarter line:
// a lookup then reads one line where it would read two. Returns where they start.
uint32_t OnOneLine(base::HugeVector<uint8_t>& programs, uint32_t start) {
  constexpr size_t kLine = 64;
  constexpr size_t kMaxPadding = kLine / 4;
  const size_t size = programs.size() - start;
  const size_t in_line = start % kLine;
  if (in_line + size <= kLine || size > kLine || kLine - in_line > kMaxPadding) return start;
  const size_t padding = kLine - in_line;
  programs.insert(programs.begin() + start, padding, 0);
  return static_cast<uint32_t>(start + padding);
}

[[gnu::format(printf, 1, 2)]] std::string Format(const char* format, ...) {
  va_list args;
  va_start(args, format);
  char buffer[512];
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return buffer;
}

}  // namespace

IndexBuilder::IndexBuilder(CodeArch native_arch)
    : native_arch_(native_arch == CodeArch::kNative ? CodeArch::k64 : native_arch) {}

void IndexBuilder::Reserve(size_t count) {
  reports_.reserve(reports_.size() + count);
  ops_.reserve(ops_.size() + count);
  method_ids_.reserve(method_ids_.size() + count);
  method_has_id_.reserve(method_has_id_.size() + count);
  // A record and a line table each, and a name of a few dozen bytes: room that is not used costs
  // address space, not memory; running out costs a copy of everything so far.
  programs_.reserve(programs_.size() + (sizeof(SymbolIndex::Method) + 48) * count);
  strings_.Reserve(0, 48 * count);  // names are appended, not interned (AddReport)
}

void IndexBuilder::Warn(std::string message) {
  ++warning_count_;
  if (warnings_.size() < SymbolIndex::kMaxWarnings) warnings_.push_back(std::move(message));
}

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
  const auto method = static_cast<uint32_t>(method_ids_.size());
  if (code.method_id) {
    const uint64_t id = *code.method_id;
    if (code.id_space < 64 && id < 4 * (method_ids_.size() + 65536)) {
      if (dense_.size() <= code.id_space) dense_.resize(code.id_space + 1);
      std::vector<uint32_t>& table = dense_[code.id_space];
      if (table.size() <= id) table.resize(std::max<size_t>(id + 1, table.size() * 2), 0);
      if (table[id] != 0) return table[id] - 1;
      if (!InSparseTable(code.id_space, id)) {
        table[id] = method + 1;
        method_ids_.push_back(id);
        method_has_id_.push_back(1);
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
  method_ids_.push_back(code.method_id.value_or(0));
  method_has_id_.push_back(code.method_id.has_value());
  return method;
}

uint32_t IndexBuilder::AddReport(const CodeReport& code, uint32_t method, uint32_t parent_method) {
  Report report;
  report.address = code.address;
  report.size = static_cast<uint32_t>(code.size);
  report.method = method;
  report.parent_method = parent_method;
  // Names are stored, not interned: nearly every method has its own, and looking each up in a
  // table of a million would cost a cache miss per method. Consecutive regions of one method
  // (a split function reported piece by piece) share theirs.
  report.name_offset = kNoName;
  report.name_size = 0;
  if (code.name) {
    const Report* previous = reports_.empty() ? nullptr : &reports_.back();
    if (previous != nullptr && previous->method == method && previous->name_offset != kNoName &&
        strings_.Slice(previous->name_offset, previous->name_size) == *code.name) {
      report.name_offset = previous->name_offset;
      report.name_size = previous->name_size;
    } else {
      report.name_offset = strings_.Append(*code.name);
      // Names of a gigabyte or more are cut there (the size shares its word with two flags).
      report.name_size =
          static_cast<uint32_t>(std::min<size_t>(code.name->size(), SymbolIndex::kNameSizeMask));
    }
  }
  report.file = code.source_file ? strings_.Intern(*code.source_file) : kInheritFile;
  report.module = SymbolIndex::kNoModule;
  if (code.module) {
    const StringId name = strings_.Intern(*code.module);
    const CodeArch arch = code.arch == CodeArch::kNative ? native_arch_ : code.arch;
    const uint64_t key = (uint64_t{name} << 8) | static_cast<uint8_t>(arch);
    auto [it, inserted] = modules_by_key_.try_emplace(key, static_cast<uint32_t>(modules_.size()));
    if (inserted) modules_.emplace_back(name, arch);
    report.module = it->second;
  }
  // Room for the method's record, written once the replay has settled it (SymbolIndex::Method).
  report.program = static_cast<uint32_t>(programs_.size());
  programs_.resize(programs_.size() + sizeof(SymbolIndex::Method));
  if (!code.address_lines.empty()) {
    // Start-address tables (jitdump, OProfile) carry a file per entry; the region's own file is
    // the first entry's unless the report named one.
    std::vector<StartRow> rows;
    rows.reserve(code.address_lines.size());
    StringId region_file = report.file;
    for (const AddressLine& line : code.address_lines) {
      if (line.address < code.address || line.address - code.address >= code.size) continue;
      const StringId file = line.file ? strings_.Intern(*line.file) : kInheritFile;
      if (region_file == kInheritFile) region_file = file;
      rows.push_back({static_cast<uint32_t>(line.address - code.address), line.line, file});
    }
    if (report.file == kInheritFile) report.file = region_file;
    AppendStartRows(programs_, report.file, rows);
  } else {
    AppendEndOffsetTable(programs_, report.file, code.end_offset_lines);
  }
  report.program = OnOneLine(programs_, report.program);
  reports_.push_back(report);
  return static_cast<uint32_t>(reports_.size() - 1);
}

// Regions must be non-empty and inside the 64-bit address space; sizes are 32-bit in every
// producer's API except jitdump's, where more than 4 GiB of code is not a real function.
static bool Acceptable(IndexBuilder& builder, const CodeReport& code, const char* what) {
  if (code.size == 0 || code.size > UINT32_MAX || code.address + code.size < code.address) {
    builder.Warn(Format("%s at %#llx with size %#llx ignored: not a valid code range", what,
                        static_cast<unsigned long long>(code.address),
                        static_cast<unsigned long long>(code.size)));
    return false;
  }
  return true;
}

void IndexBuilder::AddLoad(const CodeReport& code) {
  if (!Acceptable(*this, code, "load")) return;
  const uint32_t item = AddReport(code, MethodFor(code), kNone);
  ops_.push_back({code.time, OpKind::kLoad, item});
}

void IndexBuilder::AddInlineLoad(const CodeReport& code, uint64_t parent_method_id) {
  if (!Acceptable(*this, code, "inline load")) return;
  CodeReport parent;
  parent.id_space = code.id_space;
  parent.method_id = parent_method_id;
  const uint32_t parent_method = MethodFor(parent);
  const uint32_t item = AddReport(code, MethodFor(code), parent_method);
  ops_.push_back({code.time, OpKind::kInline, item});
}

void IndexBuilder::AddUpdate(const CodeReport& code) {
  if (!Acceptable(*this, code, "update")) return;
  const uint32_t item = AddReport(code, MethodFor(code), kNone);
  ops_.push_back({code.time, OpKind::kUpdate, item});
}

void IndexBuilder::AddPlain(uint64_t time, OpKind kind, Plain plain) {
  plain_.push_back(plain);
  ops_.push_back({time, kind, static_cast<uint32_t>(plain_.size() - 1)});
}

void IndexBuilder::AddRangeUpdate(uint64_t time, uint64_t address, uint64_t size) {
  if (size == 0 || address + size < address) return;
  AddPlain(time, OpKind::kRangeUpdate, {address, address + size, kNone});
}

void IndexBuilder::AddUnloadMethod(uint64_t time, uint32_t id_space, uint64_t method_id) {
  CodeReport key;
  key.id_space = id_space;
  key.method_id = method_id;
  AddPlain(time, OpKind::kUnloadMethod, {0, 0, MethodFor(key)});
}

void IndexBuilder::AddUnloadAddress(uint64_t time, uint64_t address) {
  AddPlain(time, OpKind::kUnloadAddress, {address, 0, kNone});
}

void IndexBuilder::AddMove(uint64_t time, uint32_t id_space, uint64_t method_id,
                           uint64_t old_address, uint64_t new_address) {
  CodeReport key;
  key.id_space = id_space;
  key.method_id = method_id;
  AddPlain(time, OpKind::kMove, {old_address, new_address, MethodFor(key)});
}

// Replays the operations in time order against the set of currently valid top-level regions
// (disjoint by construction: every load ends what it overlaps), then lays out the index.
class IndexBuilder::Replay {
 public:
  Replay(IndexBuilder& b, SymbolIndex& out)
      : b_(b),
        out_(out),
        method_head_(b.method_ids_.size(), kNone),
        inline_parent_(b.method_ids_.size(), kNone),
        named_(b.method_ids_.size(), 0) {
    methods_.resize(b.method_ids_.size());
    for (size_t m = 0; m < b.method_ids_.size(); ++m) {
      const uint64_t id = b.method_ids_[m];
      uint32_t flags = b.method_has_id_[m] ? SymbolIndex::kHasId : 0u;
      if (flags != 0 && id > UINT32_MAX) {
        flags |= SymbolIndex::kWideId;
        out_.wide_ids_.emplace_back(static_cast<uint32_t>(m), id);
      }
      methods_[m] = {static_cast<uint32_t>(id), 0, flags, 0, SymbolIndex::kNoModule};
    }
  }

  void Run() {
    auto& ops = b_.ops_;
    regions_.reserve(ops.size());
    if (!std::is_sorted(ops.begin(), ops.end(),
                        [](const Op& x, const Op& y) { return x.time < y.time; })) {
      std::stable_sort(ops.begin(), ops.end(),
                       [](const Op& x, const Op& y) { return x.time < y.time; });
    }
    for (const Op& op : ops) {
      if (op.kind == OpKind::kInline) {
        const Report& r = b_.reports_[op.item];
        if (inline_parent_[r.method] == kNone) inline_parent_[r.method] = r.parent_method;
      }
    }
    for (const Op& op : ops) Apply(op);
    // Every region's line table gets its method's record, now that the first notifications are
    // known.
    for (const Report& r : b_.reports_) {
      std::memcpy(b_.programs_.data() + r.program, &methods_[r.method], sizeof(methods_[0]));
    }
    out_.method_count_ = methods_.size();
    out_.program_count_ = b_.reports_.size();
    Layout();
  }

 private:
  struct Region {
    uint64_t start, loaded, invalidated;
    uint32_t size, method, program, origin;
    uint32_t first_child, next_of_method;
    uint64_t end() const { return start + size; }
  };
  struct Inline {
    uint64_t start;
    uint32_t size, method, parent_method, program, root, next_sibling;
    uint64_t end() const { return start + size; }
  };

  void Apply(const Op& op) {
    const uint64_t t = op.time;
    switch (op.kind) {
      case OpKind::kLoad: {
        const Report& r = b_.reports_[op.item];
        Symbolic(r, false);
        NewRegion(r.address, r.size, r.method, r.program, 0, t);
        break;
      }
      case OpKind::kInline: {
        const Report& r = b_.reports_[op.item];
        Symbolic(r, true);
        inlines_.push_back({r.address, r.size, r.method, r.parent_method, r.program, kNone, kNone});
        const auto index = static_cast<uint32_t>(inlines_.size() - 1);
        const uint32_t root = RootOf(r.method);
        const uint32_t region = LiveContaining(r.address, r.size);
        if (region != kNone && regions_[region].method == root) {
          Attach(index, region);
        } else {
          pending_[root].push_back(index);
        }
        break;
      }
      case OpKind::kUpdate: {
        const Report& r = b_.reports_[op.item];
        Symbolic(r, false);
        const uint64_t end = r.address + r.size;
        for (uint32_t old : EndOverlapping(r.address, end, t)) {
          const Region o = regions_[old];  // a copy: Continue() grows regions_
          if (o.start < r.address) Continue(old, o.start, r.address, 0, t);
          if (o.end() > end) Continue(old, end, o.end(), 0, t);
        }
        NewRegion(r.address, r.size, r.method, r.program, 0, t);
        break;
      }
      case OpKind::kRangeUpdate: {
        const Plain& p = b_.plain_[op.item];
        for (uint32_t old : EndOverlapping(p.a, p.b, t)) {
          Continue(old, regions_[old].start, regions_[old].end(), 0, t);
        }
        break;
      }
      case OpKind::kUnloadMethod: {
        for (uint32_t r = method_head_[b_.plain_[op.item].method]; r != kNone;
             r = regions_[r].next_of_method) {
          if (regions_[r].invalidated == kForever) End(r, t);
        }
        break;
      }
      case OpKind::kUnloadAddress: {
        auto it = live_.find(b_.plain_[op.item].a);
        if (it != live_.end()) End(it->second, t);
        break;
      }
      case OpKind::kMove: {
        const Plain& p = b_.plain_[op.item];
        auto it = live_.find(p.a);
        if (it == live_.end() || regions_[it->second].method != p.method) {
          b_.Warn(Format("move of code id %llu from %#llx ignored: no such code is loaded there",
                         static_cast<unsigned long long>(b_.method_ids_[p.method]),
                         static_cast<unsigned long long>(p.a)));
          break;
        }
        const uint32_t old = it->second;
        End(old, t);
        Continue(old, regions_[old].start, regions_[old].end(), p.b - p.a, t);
        break;
      }
    }
  }

  // First notification wins for the name, the source file and (the first one registered) the
  // module; a later, different source file is kept by its region, with a warning.
  void Symbolic(const Report& r, bool is_inline) {
    SymbolIndex::Method& m = methods_[r.method];
    if (!named_[r.method]) {
      named_[r.method] = 1;
      m.file = r.file == kInheritFile ? 0 : r.file;
    } else if (r.file != kInheritFile && m.file != 0 && r.file != m.file) {
      b_.Warn(Format(
          "method %llu: %s region at %#llx reports source file \"%s\", but the "
          "method's first region reported \"%s\"; the region keeps its own file",
          static_cast<unsigned long long>(b_.method_ids_[r.method]), is_inline ? "an inline" : "a",
          static_cast<unsigned long long>(r.address), std::string(b_.strings_.Get(r.file)).c_str(),
          std::string(b_.strings_.Get(m.file)).c_str()));
    }
    if ((m.name_size & SymbolIndex::kNameSizeMask) == 0 && r.name_offset != kNoName) {
      m.name_offset = r.name_offset;
      m.name_size |= r.name_size;
    }
    if (m.module == SymbolIndex::kNoModule) m.module = r.module;
  }

  uint32_t RootOf(uint32_t method) const {
    uint32_t root = inline_parent_[method];
    for (size_t steps = 0; steps < inline_parent_.size() && inline_parent_[root] != kNone;
         ++steps) {
      root = inline_parent_[root];
    }
    return root;
  }

  uint32_t LiveContaining(uint64_t address, uint64_t size) const {
    auto it = live_.upper_bound(address);
    if (it == live_.begin()) return kNone;
    const Region& r = regions_[std::prev(it)->second];
    return address >= r.start && address + size <= r.end() ? std::prev(it)->second : kNone;
  }

  void Attach(uint32_t inline_index, uint32_t region) {
    inlines_[inline_index].root = region;
    inlines_[inline_index].next_sibling = regions_[region].first_child;
    regions_[region].first_child = inline_index;
  }

  void End(uint32_t region, uint64_t t) {
    regions_[region].invalidated = t;
    live_.erase(regions_[region].start);
  }

  std::vector<uint32_t> EndOverlapping(uint64_t start, uint64_t end, uint64_t t) {
    std::vector<uint32_t> ended;
    // JIT engines mostly allocate upwards: code past every live region overlaps nothing.
    if (live_.empty() || regions_[live_.rbegin()->second].end() <= start) return ended;
    auto it = live_.lower_bound(start);
    if (it != live_.begin() && regions_[std::prev(it)->second].end() > start) --it;
    while (it != live_.end() && it->first < end) {
      regions_[it->second].invalidated = t;
      ended.push_back(it->second);
      it = live_.erase(it);
    }
    return ended;
  }

  uint32_t NewRegion(uint64_t start, uint32_t size, uint32_t method, uint32_t program,
                     uint32_t origin, uint64_t t) {
    EndOverlapping(start, start + size, t);
    const auto index = static_cast<uint32_t>(regions_.size());
    regions_.push_back(
        {start, t, kForever, size, method, program, origin, kNone, method_head_[method]});
    method_head_[method] = index;
    live_.emplace_hint(live_.end(), start, index);
    if (!pending_.empty()) AdoptPending(index);
    return index;
  }

  // Inline regions reported before their top-level region.
  void AdoptPending(uint32_t region) {
    auto it = pending_.find(regions_[region].method);
    if (it == pending_.end()) return;
    auto& waiting = it->second;
    const Region& r = regions_[region];
    std::erase_if(waiting, [&](uint32_t i) {
      if (inlines_[i].start < r.start || inlines_[i].end() > r.end()) return false;
      Attach(i, region);
      return true;
    });
    if (waiting.empty()) pending_.erase(it);
  }

  // A new version of region `old` over [from, to) of its range, moved by `shift`, valid from
  // `t`, with the inline regions that lie inside that part.
  void Continue(uint32_t old, uint64_t from, uint64_t to, uint64_t shift, uint64_t t) {
    const Region o = regions_[old];
    const uint32_t region =
        NewRegion(from + shift, static_cast<uint32_t>(to - from), o.method, o.program,
                  o.origin + static_cast<uint32_t>(from - o.start), t);
    for (uint32_t c = o.first_child; c != kNone; c = inlines_[c].next_sibling) {
      if (inlines_[c].start < from || inlines_[c].end() > to) continue;
      Inline copy = inlines_[c];
      copy.start += shift;
      inlines_.push_back(copy);
      Attach(static_cast<uint32_t>(inlines_.size() - 1), region);
    }
  }

  void Layout() {
    size_t orphans = 0;
    for (const auto& [root, waiting] : pending_) orphans += waiting.size();
    if (orphans != 0) {
      b_.Warn(
          Format("%zu inline region(s) never found their parent's code and are ignored", orphans));
    }
    // Regions that were never valid (ended at their own load time) can never match.
    base::HugeVector<uint32_t> order;
    order.reserve(regions_.size());
    for (uint32_t i = 0; i < regions_.size(); ++i) {
      if (regions_[i].loaded < regions_[i].invalidated) order.push_back(i);
    }
    auto by_start = [&](uint32_t x, uint32_t y) {
      const Region& a = regions_[x];
      const Region& c = regions_[y];
      return a.start != c.start ? a.start < c.start : a.loaded < c.loaded;
    };
    if (!std::is_sorted(order.begin(), order.end(), by_start)) {
      std::sort(order.begin(), order.end(), by_start);
    }
    base::HugeVector<uint32_t> remap(regions_.size(), kNone);
    base::HugeVector<SymbolIndex::Piece> regions(order.size());
    std::vector<uint64_t> ends(order.size());
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> rebased;  // (program, origin) → copy
    for (uint32_t i = 0; i < order.size(); ++i) {
      const Region& r = regions_[order[i]];
      remap[order[i]] = i;
      uint32_t program = r.program;
      if (r.origin != 0) {
        auto [it, inserted] = rebased.try_emplace({r.program, r.origin}, 0);
        if (inserted) it->second = Rebased(r.program, r.origin);
        program = it->second;
      }
      regions[i] = {r.start, r.loaded, 0, r.size, r.method, program};
      ends[i] = r.invalidated;
    }
    for (const Inline& in : inlines_) {
      if (in.root == kNone || remap[in.root] == kNone) continue;
      SymbolIndex::Piece& root = regions[remap[in.root]];
      out_.inlines_.push_back(
          {in.start, root.start, root.loaded, in.size, in.method, in.parent_method, in.program});
      root.method |= SymbolIndex::kHasInlines;
    }
    std::stable_sort(out_.inlines_.begin(), out_.inlines_.end(), [](const auto& a, const auto& c) {
      return std::tie(a.root_start, a.root_loaded, a.start) <
             std::tie(c.root_start, c.root_loaded, c.start);
    });
    out_.region_count_ = regions.size();
    LayoutPieces(std::move(regions), ends);
  }

  // A copy of the method record and line table at `program` for the code from `origin` on.
  uint32_t Rebased(uint32_t program, uint32_t origin) {
    auto& programs = b_.programs_;
    constexpr size_t kRecord = sizeof(SymbolIndex::Method);
    const auto copy = static_cast<uint32_t>(programs.size());
    programs.resize(copy + kRecord);
    std::memcpy(programs.data() + copy, programs.data() + program, kRecord);
    AppendRebased(programs, static_cast<uint32_t>(program + kRecord), origin);
    ++out_.program_count_;
    return OnOneLine(programs, copy);
  }

  // Cuts the address space at every region boundary; each piece holds the region covering it,
  // or lists the regions that covered it over time (or the one that covered it until it ended).
  void LayoutPieces(base::HugeVector<SymbolIndex::Piece>&& regions,
                    const std::vector<uint64_t>& ends) {
    auto end_of = [&](size_t r) { return regions[r].start + regions[r].size; };
    std::vector<CodeArea> areas;
    // The usual case, regions that never overlap and were never ended, are the pieces as they are.
    bool disjoint = true;
    for (size_t r = 0; r < regions.size() && disjoint; ++r) {
      disjoint =
          ends[r] == kForever && (r + 1 == regions.size() || end_of(r) <= regions[r + 1].start);
    }
    if (disjoint) {
      for (size_t r = 0; r < regions.size(); ++r)
        ExtendAreas(areas, r, regions[r].start, end_of(r));
      out_.pieces_ = std::move(regions);
    } else {
      CutPieces(regions, ends, areas);
    }
    // An area of n pieces has at most n + 1 buckets and a closing one.
    out_.buckets_.reserve(out_.pieces_.size() + 2 * areas.size());
    for (size_t a = 0; a < areas.size(); ++a) {
      const size_t end_piece = a + 1 < areas.size() ? areas[a + 1].first : out_.pieces_.size();
      LayoutBuckets(areas[a].first, end_piece, areas[a].second);
    }
  }

  // Areas of code: (first piece, end), split where no code lies for kAreaGap bytes or more.
  using CodeArea = std::pair<size_t, uint64_t>;
  // Adds piece `piece`, covering [start, end), to the last area or, after a gap, to a new one.
  static void ExtendAreas(std::vector<CodeArea>& areas, size_t piece, uint64_t start,
                          uint64_t end) {
    if (areas.empty() || start - areas.back().second >= kAreaGap) areas.emplace_back(piece, start);
    areas.back().second = end;
  }

  // Regions that overlap (over time) or were ended: the pieces between every two boundaries.
  void CutPieces(const base::HugeVector<SymbolIndex::Piece>& regions,
                 const std::vector<uint64_t>& ends, std::vector<CodeArea>& areas) {
    auto end_of = [&](uint32_t r) { return regions[r].start + regions[r].size; };
    std::vector<uint32_t> active;
    std::vector<uint32_t> overlap_index(regions.size(), kNone);
    size_t next = 0;
    uint64_t cut = 0;
    out_.pieces_.reserve(regions.size());
    while (next < regions.size() || !active.empty()) {
      if (active.empty()) cut = regions[next].start;
      std::erase_if(active, [&](uint32_t r) { return end_of(r) <= cut; });
      while (next < regions.size() && regions[next].start == cut) {
        active.push_back(static_cast<uint32_t>(next++));
      }
      uint64_t following = next < regions.size() ? regions[next].start : kForever;
      for (uint32_t r : active) following = std::min(following, end_of(r));
      if (!active.empty()) ExtendAreas(areas, out_.pieces_.size(), cut, following);
      if (active.size() == 1 && ends[active[0]] == kForever) {
        SymbolIndex::Piece piece = regions[active[0]];
        piece.back = static_cast<uint32_t>(cut - piece.start);
        piece.start = cut;
        out_.pieces_.push_back(piece);
      } else if (!active.empty()) {
        std::vector<uint32_t> by_load = active;
        std::sort(by_load.begin(), by_load.end(),
                  [&](uint32_t x, uint32_t y) { return regions[x].loaded < regions[y].loaded; });
        out_.pieces_.push_back(
            {cut, 0, 0, 0, SymbolIndex::kMulti, static_cast<uint32_t>(out_.multi_.size())});
        out_.multi_.push_back(static_cast<uint32_t>(by_load.size()));
        for (uint32_t r : by_load) {
          if (overlap_index[r] == kNone) {
            overlap_index[r] = static_cast<uint32_t>(out_.overlaps_.size());
            out_.overlaps_.push_back(regions[r]);
            out_.overlap_ends_.push_back(ends[r]);
          }
          out_.multi_.push_back(overlap_index[r]);
        }
      }
      cut = following;
    }
  }

  // The buckets of the area of pieces [first, last) that ends at `end`: about one bucket per
  // piece, so a lookup reads its bucket and then one piece or two. Each bucket holds the number
  // of pieces that start before it (SymbolIndex::FindPiece) and the record of the last of them;
  // a last one closes the area.
  void LayoutBuckets(size_t first, size_t last, uint64_t end) {
    SymbolIndex::Area area;
    area.base = out_.pieces_[first].start;
    area.end = end;
    area.first_bucket = out_.buckets_.size();
    area.shift = 4;
    while (area.shift < 63 && ((end - area.base) >> area.shift) > last - first) ++area.shift;
    const uint64_t buckets = ((end - area.base) >> area.shift) + 1;
    auto bucket = [this](size_t pieces_before) {
      const SymbolIndex::Piece* before =
          pieces_before == 0 ? nullptr : &out_.pieces_[pieces_before - 1];
      return SymbolIndex::Bucket{static_cast<uint32_t>(pieces_before),
                                 before != nullptr && !(before->method & SymbolIndex::kMulti)
                                     ? before->program
                                     : SymbolIndex::kNoProgram};
    };
    size_t piece = first;
    for (uint64_t b = 0; b < buckets; ++b) {
      const uint64_t low = area.base + (b << area.shift);
      while (piece < last && out_.pieces_[piece].start < low) ++piece;
      out_.buckets_.push_back(bucket(piece));
    }
    out_.buckets_.push_back(bucket(last));
    out_.areas_.push_back(area);
  }

  IndexBuilder& b_;
  SymbolIndex& out_;
  base::HugeVector<Region> regions_;
  std::vector<Inline> inlines_;
  std::map<uint64_t, uint32_t> live_;    // start → region, the valid top-level regions
  std::vector<uint32_t> method_head_;    // latest region of each method (list via next_of_method)
  std::vector<uint32_t> inline_parent_;  // method → parent method, for inline methods
  std::vector<uint8_t> named_;           // method has had its first notification
  std::vector<SymbolIndex::Method> methods_;
  std::map<uint32_t, std::vector<uint32_t>> pending_;  // root method → inlines waiting for it
};

SymbolIndex IndexBuilder::Build() && {
  SymbolIndex index;
  Replay(*this, index).Run();
  // Module display names: "NAME (64)" for the 64-bit code of a name also reported as 32-bit.
  std::unordered_map<StringId, uint8_t> arches;
  for (const auto& [name, arch] : modules_) arches[name] |= 1u << static_cast<int>(arch);
  for (const auto& [name, arch] : modules_) {
    const bool both = arches[name] == ((1u << 1) | (1u << 2));
    index.modules_.push_back(both && arch == CodeArch::k64
                                 ? strings_.Intern(std::string(strings_.Get(name)) + " (64)")
                                 : name);
  }
  strings_.Freeze();
  // Copying costs time; a quarter unused is worth keeping instead.
  if (programs_.capacity() > programs_.size() + programs_.size() / 4) programs_.shrink_to_fit();
  index.programs_ = std::move(programs_);
  index.strings_ = std::move(strings_);
  index.warnings_ = std::move(warnings_);
  index.warning_count_ = warning_count_;
  return index;
}

}  // namespace jitscope::symbolize
