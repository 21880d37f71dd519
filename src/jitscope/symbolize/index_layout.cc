// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/index_layout.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <tuple>

#include "jitscope/base/reserve.h"

namespace jitscope::symbolize {
namespace {

// Code this far from all other code starts an area of its own, with its own buckets: a JIT's
// code often lies in several places far apart (near the heap, among the shared libraries), and
// one table of buckets over all of them would put whole areas into single buckets.
constexpr uint64_t kAreaGap = uint64_t{16} << 20;

}  // namespace

uint32_t PutOnOneCacheLine(base::HugeVector<uint8_t>& programs, uint32_t start) {
  constexpr size_t kLine = 64;
  constexpr size_t kMaxPadding = kLine / 4;
  const size_t size = programs.size() - start;
  const size_t in_line = start % kLine;
  if (in_line + size <= kLine || size > kLine || kLine - in_line > kMaxPadding) return start;
  const size_t padding = kLine - in_line;
  programs.insert(programs.begin() + start, padding, 0);
  return static_cast<uint32_t>(start + padding);
}

class IndexLayout {
 public:
  using Piece = SymbolIndex::Piece;
  using Method = SymbolIndex::Method;
  static_assert(sizeof(Method) == kMethodRecordSize);
  static_assert(sizeof(ReportedSymbols) <= kMethodRecordSize);
  // MethodSymbols are the record's last 16 bytes (ReportedCode::MethodSymbolsOf).
  static_assert(sizeof(MethodSymbols) == 16 && offsetof(Method, id) == 0 &&
                offsetof(Method, name_offset) == 4 && offsetof(Method, name_size) == 8 &&
                offsetof(Method, file) == 12 && offsetof(Method, module) == 16);
  static_assert(kMaxNameSize == SymbolIndex::kNameSizeMask);
  static_assert(kNone == SymbolIndex::kNoModule);
  static_assert(Warnings::kMaxKept == SymbolIndex::kMaxWarnings);

  IndexLayout(ReportedCode& reported, RegionHistory& history, SymbolIndex& out)
      : reported_(reported), history_(history), out_(out) {}

  void Run() {
    WriteMethodRecords();
    // The regions as reported, the methods' ids and symbols are in the method records now.
    base::Discard(reported_.regions);
    base::Discard(reported_.method_ids);
    base::Discard(reported_.method_has_id);
    base::Discard(history_.first_region);
    LayOutRegions();
    Finish(history_.module_names);
  }

  // Loads that needed no replay: their records are written, each is a piece.
  void RunLoads(base::HugeVector<Piece>&& pieces) {
    out_.method_count_ = pieces.size();
    out_.program_count_ = pieces.size();
    out_.region_count_ = pieces.size();
    std::vector<CodeArea> areas;
    TakeAsPieces(std::move(pieces), areas);
    LayOutBuckets(areas);
    Finish(ModuleNames(reported_));
  }

  static void WriteRecord(base::HugeVector<uint8_t>& programs, uint32_t line_table, uint32_t id,
                          uint32_t flags, const MethodSymbols& symbols) {
    const Method record = {id, symbols.name_offset, symbols.name_size | flags, symbols.file,
                           symbols.module};
    std::memcpy(programs.data() + ProgramOf(line_table), &record, sizeof(Method));
  }
  static constexpr uint32_t kHasId = SymbolIndex::kHasId;

 private:
  // Where the method record in front of a line table starts: what pieces, buckets and inline
  // regions point at.
  static uint32_t ProgramOf(uint32_t line_table) {
    return line_table - static_cast<uint32_t>(sizeof(Method));
  }

  void Finish(const std::vector<StringId>& module_names) {
    out_.modules_ = module_names;
    reported_.strings.Freeze();
    auto& programs = reported_.line_tables;
    base::ReleaseUnused(programs);
    out_.programs_ = std::move(programs);
    out_.strings_ = std::move(reported_.strings);
    out_.warnings_ = std::move(reported_.warnings.kept);
    out_.warning_count_ = reported_.warnings.count;
  }

  // Every region's line table gets its method's record in front of it.
  void WriteMethodRecords() {
    const auto& ids = reported_.method_ids;
    const auto& has_id = reported_.method_has_id;
    for (size_t m = 0; m < ids.size(); ++m) {
      if (has_id[m] && ids[m] > UINT32_MAX)
        out_.wide_ids_.emplace_back(static_cast<uint32_t>(m), ids[m]);
    }
    for (const ReportedRegion& r : reported_.regions) {
      // The method's symbols, in its first region's record room (that record may be written
      // already: the same bytes, with flags in the name's size, which MethodSymbolsOf drops).
      const MethodSymbols symbols = reported_.MethodSymbolsOf(history_.first_region[r.method]);
      uint32_t flags = 0;
      if (has_id[r.method]) {
        flags = SymbolIndex::kHasId | (ids[r.method] > UINT32_MAX ? SymbolIndex::kWideId : 0u);
      }
      WriteRecord(reported_.line_tables, r.line_table, static_cast<uint32_t>(ids[r.method]), flags,
                  symbols);
    }
    out_.method_count_ = ids.size();
    out_.program_count_ = reported_.regions.size();
  }

  void LayOutRegions() {
    const auto& all = history_.regions;
    // Regions that were never valid (ended at their own load time) can never match.
    base::HugeVector<uint32_t> order;
    order.reserve(all.size());
    for (uint32_t i = 0; i < all.size(); ++i) {
      if (all[i].loaded < all[i].invalidated) order.push_back(i);
    }
    auto by_start = [&](uint32_t x, uint32_t y) {
      const Region& a = all[x];
      const Region& c = all[y];
      return a.start != c.start ? a.start < c.start : a.loaded < c.loaded;
    };
    if (!std::is_sorted(order.begin(), order.end(), by_start)) {
      std::sort(order.begin(), order.end(), by_start);
    }
    base::HugeVector<uint32_t> remap(all.size(), kNone);
    base::HugeVector<Piece> regions(order.size());
    std::vector<uint64_t> ends(order.size());
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> rebased;  // (line table, origin) → copy
    for (uint32_t i = 0; i < order.size(); ++i) {
      const Region& r = all[order[i]];
      remap[order[i]] = i;
      uint32_t program = ProgramOf(r.line_table);
      if (r.line_origin != 0) {
        auto [it, inserted] = rebased.try_emplace({r.line_table, r.line_origin}, 0);
        if (inserted) it->second = RebasedCopy(program, r.line_origin);
        program = it->second;
      }
      regions[i] = {r.start, r.loaded, 0, r.size, r.method, program};
      ends[i] = r.invalidated;
    }
    base::Discard(order);
    base::Discard(history_.regions);  // the pieces hold what the layout needs of them
    for (const InlineRegion& in : history_.inlines) {
      if (in.root == kNone || remap[in.root] == kNone) continue;
      Piece& root = regions[remap[in.root]];
      out_.inlines_.push_back({in.start, root.start, root.loaded, in.size, in.method,
                               in.parent_method, ProgramOf(in.line_table)});
      root.method |= SymbolIndex::kHasInlines;
    }
    base::Discard(remap);
    std::stable_sort(out_.inlines_.begin(), out_.inlines_.end(), [](const auto& a, const auto& c) {
      return std::tie(a.root_start, a.root_loaded, a.start) <
             std::tie(c.root_start, c.root_loaded, c.start);
    });
    out_.region_count_ = regions.size();
    LayOutPieces(std::move(regions), ends);
  }

  // A copy of the method record and line table at `program` for the code from `origin` on.
  uint32_t RebasedCopy(uint32_t program, uint32_t origin) {
    auto& programs = reported_.line_tables;
    constexpr size_t kRecord = sizeof(Method);
    const auto copy = static_cast<uint32_t>(programs.size());
    programs.resize(copy + kRecord);
    std::memcpy(programs.data() + copy, programs.data() + program, kRecord);
    AppendRebased(programs, static_cast<uint32_t>(program + kRecord), origin);
    ++out_.program_count_;
    return PutOnOneCacheLine(programs, copy);
  }

  // Areas of code: (first piece, end), split where no code lies for kAreaGap bytes or more.
  using CodeArea = std::pair<size_t, uint64_t>;

  // Cuts the address space at every region boundary; each piece holds the region covering it,
  // or lists the regions that covered it over time (or the one that covered it until it ended).
  void LayOutPieces(base::HugeVector<Piece>&& regions, const std::vector<uint64_t>& ends) {
    auto end_of = [&](size_t r) { return regions[r].start + regions[r].size; };
    std::vector<CodeArea> areas;
    bool disjoint = true;
    for (size_t r = 0; r < regions.size() && disjoint; ++r) {
      disjoint =
          ends[r] == kForever && (r + 1 == regions.size() || end_of(r) <= regions[r + 1].start);
    }
    if (disjoint) {
      TakeAsPieces(std::move(regions), areas);
    } else {
      CutPieces(regions, ends, areas);
    }
    LayOutBuckets(areas);
  }

  // The usual case, regions that never overlap and were never ended, are the pieces as they are.
  void TakeAsPieces(base::HugeVector<Piece>&& regions, std::vector<CodeArea>& areas) {
    for (size_t r = 0; r < regions.size(); ++r) {
      ExtendAreas(areas, r, regions[r].start, regions[r].start + regions[r].size);
    }
    out_.pieces_ = std::move(regions);
  }

  void LayOutBuckets(const std::vector<CodeArea>& areas) {
    // An area of n pieces has at most n + 1 buckets and a closing one.
    out_.buckets_.reserve(out_.pieces_.size() + 2 * areas.size());
    for (size_t a = 0; a < areas.size(); ++a) {
      const size_t end_piece = a + 1 < areas.size() ? areas[a + 1].first : out_.pieces_.size();
      LayOutAreaBuckets(areas[a].first, end_piece, areas[a].second);
    }
  }

  // Adds piece `piece`, covering [start, end), to the last area or, after a gap, to a new one.
  static void ExtendAreas(std::vector<CodeArea>& areas, size_t piece, uint64_t start,
                          uint64_t end) {
    if (areas.empty() || start - areas.back().second >= kAreaGap) areas.emplace_back(piece, start);
    areas.back().second = end;
  }

  // Regions that overlap (over time) or were ended: the pieces between every two boundaries.
  void CutPieces(const base::HugeVector<Piece>& regions, const std::vector<uint64_t>& ends,
                 std::vector<CodeArea>& areas) {
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
        Piece piece = regions[active[0]];
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
  void LayOutAreaBuckets(size_t first, size_t last, uint64_t end) {
    SymbolIndex::Area area;
    area.base = out_.pieces_[first].start;
    area.end = end;
    area.first_bucket = out_.buckets_.size();
    area.shift = 4;
    while (area.shift < 63 && ((end - area.base) >> area.shift) > last - first) ++area.shift;
    const uint64_t buckets = ((end - area.base) >> area.shift) + 1;
    auto bucket = [this](size_t pieces_before) {
      const Piece* before = pieces_before == 0 ? nullptr : &out_.pieces_[pieces_before - 1];
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

  ReportedCode& reported_;
  RegionHistory& history_;
  SymbolIndex& out_;
};

SymbolIndex LayOutIndex(ReportedCode&& reported, RegionHistory&& history) {
  SymbolIndex index;
  IndexLayout(reported, history, index).Run();
  return index;
}

SymbolIndex LayOutLoads(ReportedCode&& reported, base::HugeVector<SymbolIndex::Piece>&& pieces) {
  SymbolIndex index;
  RegionHistory none;
  IndexLayout(reported, none, index).RunLoads(std::move(pieces));
  return index;
}

void WriteMethodRecord(base::HugeVector<uint8_t>& programs, uint32_t line_table, uint32_t id,
                       const MethodSymbols& symbols) {
  IndexLayout::WriteRecord(programs, line_table, id, IndexLayout::kHasId, symbols);
}

uint32_t MethodRecordId(const base::HugeVector<uint8_t>& programs, uint32_t line_table) {
  uint32_t id = 0;
  std::memcpy(&id, programs.data() + line_table - kMethodRecordSize, sizeof(id));
  return id;
}

}  // namespace jitscope::symbolize
