// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The API's rules, applied: what JIT engines reported (ReportedCode, collected by IndexBuilder)
// is replayed in time order into a plain list of regions, each valid over [loaded, invalidated),
// with the inline regions that belong to them. Nothing here knows how the index is laid out in
// memory (index_layout.h does that). The rules and where each comes from: docs/symbol-index.md.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "jitscope/base/huge_page_allocator.h"
#include "jitscope/symbolize/line_program.h"
#include "jitscope/symbolize/string_table.h"

namespace jitscope::symbolize {

// iJIT_CodeArchitecture values (intel-jit-api.md §1.3).
enum class CodeArch : uint8_t { kNative = 0, k32 = 1, k64 = 2 };

// "None" for the indices below: no region, no method, no module, no name.
inline constexpr uint32_t kNone = UINT32_MAX;
// Names are cut there (the index's method record keeps their size in a word it shares with two
// flags, index_layout.h).
inline constexpr uint32_t kMaxNameSize = (1u << 30) - 1;

// One code region as an engine reported it; its line table and what it reported of its method's
// symbols are in ReportedCode (SymbolsOf, FileOf).
struct ReportedRegion {
  uint64_t address;
  uint32_t size;
  uint32_t method;         // index into ReportedCode::method_ids
  uint32_t parent_method;  // an inline region's parent; kNone for top-level code
  uint32_t line_table;     // where its table starts in ReportedCode::line_tables
};
static_assert(sizeof(ReportedRegion) == 24);

// A region's own name and module, as reported. They are kept in the room left in front of its
// line table for its method's record, which the layout writes there once the replay has settled
// the method's symbols (index_layout.h): so a region takes 24 bytes, not 40. Its file is its line
// table's (ProgramFile).
struct ReportedSymbols {
  uint32_t name_offset = kNone;  // in the string arena; kNone when not reported
  uint32_t name_size = 0;
  uint32_t module = kNone;  // index into ReportedCode::modules; kNone when not reported
};

// A method's symbols, from its first notification. The replay keeps them in the room for the
// method record in front of the line table of the method's first region (RegionHistory::
// first_region), laid out as the record's last 16 bytes (index_layout.h), so a method costs 4
// bytes there, not 17: the layout writes each region's record from them, that one's in place.
struct MethodSymbols {
  uint32_t name_offset = 0, name_size = 0;  // name_size 0: no name
  StringId file = 0;                        // 0 (""): none
  uint32_t module = kNone;
};

// What happened at a time: one struct per kind of report.
namespace op {
struct Load {       // METHOD_LOAD_FINISHED, a jitdump CODE_LOAD, a perf map line, ...
  uint32_t region;  // index into ReportedCode::regions
};
struct InlineLoad {  // METHOD_INLINE_LOAD_FINISHED
  uint32_t region;
};
struct Update {  // METHOD_UPDATE: new code and line table over the region's range
  uint32_t region;
};
struct RangeUpdate {  // METHOD_UPDATE_V2: the code in [start, end) changed, its symbols did not
  uint64_t start, end;
};
struct UnloadMethod {  // UNLOAD_START
  uint32_t method;
};
struct UnloadCodeAt {  // op_unload_native_code: the code that starts at `start`
  uint64_t start;
};
struct Move {  // jitdump CODE_MOVE
  uint32_t method;
  uint64_t from, to;
};
struct Exec {};  // the process exec'd: all its code ends (but a perf map's, which has no time)
}  // namespace op
using Operation = std::variant<op::Load, op::InlineLoad, op::Update, op::RangeUpdate,
                               op::UnloadMethod, op::UnloadCodeAt, op::Move, op::Exec>;
// An operation's kind: its place in Operation.
template <typename T>
constexpr uint8_t KindOf() {
  return static_cast<uint8_t>(Operation(T{}).index());
}
// An operation as ReportedCode keeps it, in 16 bytes (the variant takes 40 with its time: a
// million loads are 40 MB under the replay's peak). `index` is the region of a load, an inline
// load or an update, the method of an unload; for the kinds with wider arguments (RangeUpdate,
// UnloadCodeAt, Move), rarer, the operation's place in ReportedCode::wide_operations.
struct TimedOperation {
  uint64_t time;
  uint32_t index;
  uint8_t kind;  // KindOf
};
static_assert(sizeof(TimedOperation) == 16);

// The first kMaxKept warnings, in the order they were given, and how many there were.
struct Warnings {
  static constexpr size_t kMaxKept = 100;
  std::vector<std::string> kept;
  uint64_t count = 0;
  void Add(std::string message);
  [[gnu::format(printf, 2, 3)]] void AddFormatted(const char* format, ...);
};

// Everything reported for one process, in the order it was added.
struct ReportedCode {
  StringTable strings;
  // The regions' line tables (line_program.h). Each is preceded by room for its method's record,
  // which the index keeps there (index_layout.h): collecting them in place spares a copy of them
  // all.
  base::HugeVector<uint8_t> line_tables;
  base::HugeVector<ReportedRegion> regions;
  base::HugeVector<TimedOperation> operations;
  std::vector<Operation> wide_operations;              // TimedOperation::index
  base::HugeVector<uint64_t> method_ids;               // per method: its id, when method_has_id
  base::HugeVector<uint8_t> method_has_id;             // 0 for an anonymous method (a perf map's)
  std::vector<std::pair<StringId, CodeArch>> modules;  // name, architecture (never kNative)
  Warnings warnings;

  void Add(uint64_t time, const Operation& operation);
  Operation OperationOf(const TimedOperation& timed) const;

  ReportedSymbols SymbolsOf(const ReportedRegion& region) const;
  void SetSymbols(const ReportedRegion& region, const ReportedSymbols& symbols);
  // The symbols of the method whose first region is `region` (RegionHistory::first_region; kNone:
  // none reported).
  MethodSymbols MethodSymbolsOf(uint32_t region) const;
  void SetMethodSymbols(uint32_t region, const MethodSymbols& symbols);
  // The source file the region reported, kInheritFile when none.
  StringId FileOf(const ReportedRegion& region) const {
    return ProgramFile(line_tables.data() + region.line_table);
  }
};

// One version of top-level code: valid from `loaded` until `invalidated` (kForever: never).
struct Region {
  uint64_t start;
  uint64_t loaded;
  uint64_t invalidated;
  uint32_t size;
  uint32_t method;
  uint32_t line_table;   // the table of the report it comes from
  uint32_t line_origin;  // the offset in that table's code where this region starts: not 0 for
                         // a part of older code that continues after an update
  uint64_t end() const { return start + size; }
};

struct InlineRegion {
  uint64_t start;
  uint32_t size;
  uint32_t method;
  uint32_t parent_method;
  uint32_t line_table;
  uint32_t root;  // the top-level region it belongs to; kNone if its parent's code never came
  uint64_t end() const { return start + size; }
};

struct RegionHistory {
  base::HugeVector<Region> regions;  // in load order
  std::vector<InlineRegion> inlines;
  // Per method: the reported region of its first notification, whose record room holds the
  // method's symbols (ReportedCode::MethodSymbolsOf); kNone for a method with no region.
  base::HugeVector<uint32_t> first_region;
  std::vector<StringId> module_names;  // per module: its display name
};

// Replays `reported.operations` in time order (ties keep the order they were added in; the
// operations are sorted in place), adding what the rules notice to `reported.warnings`.
RegionHistory ReplayRules(ReportedCode& reported);

// Per module of `reported`: its display name, "NAME (64)" for the 64-bit code of a name also
// reported as 32-bit (interned in reported.strings).
std::vector<StringId> ModuleNames(ReportedCode& reported);

}  // namespace jitscope::symbolize
