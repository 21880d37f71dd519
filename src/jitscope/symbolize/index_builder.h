// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Builds the SymbolIndex of one process from what JIT engines reported, in any order of arrival:
// the Add* calls collect the reports (ReportedCode); Build() replays them in time order under the
// API's rules (region_history.h) and lays the result out (index_layout.h). Loads that the replay
// would leave as they are (in time order, each past the code before it, of a method of its own)
// skip it: they become the index's pieces as they arrive, until a report that is not such a load
// hands them to the replay (StopStreaming). The rules, and where each comes from:
// docs/symbol-index.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jitscope/symbolize/line_program.h"
#include "jitscope/symbolize/region_history.h"
#include "jitscope/symbolize/symbol_index.h"
#include "jitscope/trace/format.h"

namespace jitscope::symbolize {

// A line of a table with absolute start addresses (jitdump, OProfile).
struct AddressLine {
  uint64_t address = 0;
  uint32_t line = 0;
  std::optional<std::string_view> file;
};

// One code region as reported. Strings and tables are copied by the Add* calls.
struct CodeReport {
  uint64_t time = 0;
  uint32_t id_space = 0;
  std::optional<uint64_t> method_id;  // nullopt: an anonymous method of its own (perf map)
  uint64_t address = 0;
  uint64_t size = 0;
  std::optional<std::string_view> name;
  std::optional<std::string_view> source_file;
  std::optional<std::string_view> module;
  CodeArch arch = CodeArch::kNative;
  std::span<const trace::LineEntry> end_offset_lines;  // Intel tables
  std::span<const AddressLine> address_lines;          // jitdump / OProfile tables
};

class IndexBuilder {
 public:
  // `native_arch`: what iJIT_CA_NATIVE (and a V1/V2 load) means for this process.
  explicit IndexBuilder(CodeArch native_arch = CodeArch::k64);

  // Ids from different spaces never name the same method (each jitdump numbers its code_index
  // from its own start). Space 0 is the Intel API's method ids of this process.
  uint32_t NewIdSpace() { return next_space_++; }

  void AddLoad(const CodeReport& code);
  void AddInlineLoad(const CodeReport& code, uint64_t parent_method_id);
  void AddUpdate(const CodeReport& code);                               // METHOD_UPDATE
  void AddRangeUpdate(uint64_t time, uint64_t address, uint64_t size);  // METHOD_UPDATE_V2
  void AddUnloadMethod(uint64_t time, uint32_t id_space, uint64_t method_id);
  void AddUnloadAddress(uint64_t time, uint64_t address);
  void AddMove(uint64_t time, uint32_t id_space, uint64_t method_id, uint64_t old_address,
               uint64_t new_address);
  // The process exec'd: every region loaded before `time` ends then (a perf map's, which has no
  // time, excepted). The new program's method ids are another space (NewIdSpace()).
  void AddExec(uint64_t time);
  // Room for `count` more reports: importers know how many records they hold, and reserving
  // spares the copies and page faults of growing arrays of a million entries.
  void Reserve(size_t count);

  // A note from an importer, kept with the index's warnings.
  void Warn(std::string message);

  SymbolIndex Build() &&;

  // The replay alone, before any layout: the reports and the regions the rules made of them.
  struct Replayed {
    ReportedCode reported;
    RegionHistory history;
  };
  Replayed Replay() &&;

 private:
  uint32_t MethodFor(const CodeReport& code);
  uint32_t FindMethod(uint32_t space, uint64_t id) const;  // kNone: none yet
  size_t MethodCount() const { return streaming_ ? streamed_.size() : reported_.method_ids.size(); }
  // The line table of `code` with room in front of it for its method's record; returns where it
  // starts, and what the code reported of its method's symbols in `symbols`.
  uint32_t AddLineTable(const CodeReport& code, uint32_t method, ReportedSymbols& symbols);
  uint32_t AddRegion(const CodeReport& code, uint32_t method, uint32_t parent_method);
  // Every report before it a streamed load, `code` one too: whether the replay would leave it
  // as it is (it overlaps nothing and ends nothing; its symbols are its method's first).
  bool Streamable(const CodeReport& code) const;
  void StreamLoad(const CodeReport& code);
  // The streamed loads become reports and operations for the replay, as if collected so.
  void StopStreaming();
  void Add(uint64_t time, const Operation& operation) {
    StopStreaming();
    reported_.Add(time, operation);
  }

  CodeArch native_arch_;
  uint32_t next_space_ = 1;
  ReportedCode reported_;
  // (id space, method id) → method index, open addressing: no heap node per method.
  struct KeySlot {
    uint64_t id = 0;
    uint32_t space = 0;
    uint32_t method_plus_one = 0;  // 0: empty
  };
  std::vector<KeySlot> key_slots_ = std::vector<KeySlot>(1024);
  size_t key_count_ = 0;
  // Engines hand out small, mostly sequential ids (iJIT_GetNewMethodID, code_index): those map
  // through a direct table per id space, method + 1 (0: none), kept at most a few times larger
  // than the number of methods.
  std::vector<std::vector<uint32_t>> dense_;
  std::unordered_map<uint64_t, uint32_t> modules_by_key_;  // name << 8 | arch → module
  // Until the first report that is not a streamable load: per method, its piece, its record
  // written (the 24-byte region, 16-byte operation and 9 bytes of id of a collected report and
  // the replay's ~70 bytes per region are never made).
  bool streaming_ = true;
  base::HugeVector<SymbolIndex::Piece> streamed_;
  // Execs reported before any load (as SourceSet reports them): they end no streamed code, and
  // only loads from the latest one's time on are streamed.
  std::vector<uint64_t> streamed_execs_;
  uint64_t streamed_from_ = 0;
};

}  // namespace jitscope::symbolize
