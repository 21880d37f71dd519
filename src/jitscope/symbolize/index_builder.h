// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Builds the SymbolIndex of one process from what JIT engines reported, in any order of arrival:
// Build() replays the events in time order (ties keep the order they were added in). The rules,
// all from the seeds (000_*.txt "Usage Tips", 001_*.txt; intel-jit-api.md §5) unless marked
// as jitscope's own decision:
//
//  Methods. Every region reported with one method id (within one id space) belongs to that
//  method. Its name and source file come from the first notification; later ones only add line
//  tables. A later region that reports no source file uses the first one's; one that reports a
//  different file keeps it, and a warning says so (the seeds warn that VTune attributes such
//  regions wrongly). The first module registered for a method id wins; 32- and 64-bit code of one
//  module name are separate modules, the 64-bit one shown as "NAME (64)" (intel-jit-api.md §2.4).
//
//  Time. Each region is valid from its load time until something ends it:
//   - a later load overlapping it (any method: "treated as unloaded"; "metrics until it is
//     overwritten"). Engines that free code without saying so (oneDNN) are covered by this;
//   - METHOD_UPDATE of a range overlapping it. jitscope's decision: the updated range gets the
//     update's line table from then on, and the parts of an updated region outside the range
//     continue unchanged as new versions (the seeds say only the updated range changes);
//   - METHOD_UPDATE_V2 of a range: the code there changed but keeps its method and lines, so the
//     region continues as a new version loaded at that time;
//   - UNLOAD_START of its method id, OProfile's op_unload_native_code of its start address;
//   - a jitdump CODE_MOVE of its code_index: it ends here and continues at the new address.
//  Ending a region ends its inline regions with it ("the parent, including inline methods,
//  becomes invalid"). A later load at a reused address is a different symbol from then on.
//
//  Inline regions. INLINE_LOAD names its parent method id; nested to any depth, arriving in any
//  order. Each inline region belongs to the top-level region of its root method (found through
//  the parent ids) that contains it: the one valid when the inline region was reported, or, if
//  none is yet (children before their parent), the next one loaded. An address resolves through
//  the chain of inline regions that contain it, innermost first.
//
//  Without time (perf maps: "valid for the whole process"): load at time 0; where two such
//  entries overlap the later one in the file wins, because writers append.
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
#include "jitscope/symbolize/symbol_index.h"
#include "jitscope/trace/format.h"

namespace jitscope::symbolize {

// iJIT_CodeArchitecture values (intel-jit-api.md §1.3).
enum class CodeArch : uint8_t { kNative = 0, k32 = 1, k64 = 2 };

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
  // Room for `count` more reports: importers know how many records they hold, and reserving
  // spares the copies and page faults of growing arrays of a million entries.
  void Reserve(size_t count);

  // A note from an importer, kept with the index's warnings.
  void Warn(std::string message);

  SymbolIndex Build() &&;

 private:
  enum class OpKind : uint8_t {
    kLoad,
    kInline,
    kUpdate,
    kRangeUpdate,
    kUnloadMethod,
    kUnloadAddress,
    kMove
  };
  struct Op {
    uint64_t time;
    OpKind kind;
    uint32_t item;  // index into reports_ (load/inline/update) or moves_/plain_
  };
  // A reported region before replay.
  struct Report {
    uint64_t address;
    uint32_t size;
    uint32_t method;
    uint32_t parent_method;  // inline only
    uint32_t program;
    uint32_t name_offset, name_size;  // in the string arena; kNoName when not reported
    StringId file;                    // kInheritFile when not reported
    uint32_t module;                  // SymbolIndex::kNoModule when not reported
  };
  static constexpr uint32_t kNoName = UINT32_MAX;
  struct Plain {  // range update, unloads and moves
    uint64_t a, b;
    uint32_t method;
  };
  class Replay;

  uint32_t MethodFor(const CodeReport& code);
  bool InSparseTable(uint32_t space, uint64_t id) const;
  uint32_t AddReport(const CodeReport& code, uint32_t method, uint32_t parent_method);
  void AddPlain(uint64_t time, OpKind kind, Plain plain);

  CodeArch native_arch_;
  uint32_t next_space_ = 1;
  StringTable strings_;
  base::HugeVector<uint8_t> programs_;
  base::HugeVector<Report> reports_;
  std::vector<Plain> plain_;
  base::HugeVector<Op> ops_;
  base::HugeVector<uint64_t> method_ids_;  // per method: its id (if it has one)
  base::HugeVector<uint8_t> method_has_id_;
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
  std::vector<std::pair<StringId, CodeArch>> modules_;
  std::unordered_map<uint64_t, uint32_t> modules_by_key_;
  std::vector<std::string> warnings_;
  uint64_t warning_count_ = 0;
};

}  // namespace jitscope::symbolize
