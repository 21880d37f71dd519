// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The call-frame information of one ELF file, through elfutils' low-level CFI interface: its
// .eh_frame (dwarf_getcfi_elf), then its .debug_frame (dwarf_getcfi), then the .debug_frame of
// its separate debug file — found as elfutils finds it (dwfl_standard_find_debuginfo: by
// build-id under the debug roots, or by .gnu_debuglink beside the file, in its .debug/ and under
// the roots, checked by build-id or the link's CRC), opened only when the file's own sections miss
// a pc. A lookup turns libdw's Dwarf_Frame into a CfiRow of our own — the CFA rule and each
// register's rule — kept with the pc range it covers, so a pc inside a range already read needs
// no walk of the CFI, and a hot pc costs one hash lookup after the first time.
// A module can also be the .eh_frame an engine supplied for its JIT code (FromEhFrame): the same
// rows, found by the code's own addresses.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <libelf.h>

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/formats/eh_frame_ranges.h"
#include "jitscope/session/compact_elf.h"
#include "jitscope/unwind/dwarf_expression.h"
#include "jitscope/unwind/elf_functions.h"
#include "jitscope/unwind/registers.h"

namespace jitscope::unwind {

struct RegisterRule {
  enum class Kind : uint8_t { kUndefined, kSameValue, kLocation };
  Kind kind = Kind::kUndefined;
  std::vector<Dwarf_Op> location;  // kLocation: a location description (dwarf_expression.h)
  CommonForm form;                 // the location's, set by CfiRow::Recognize
};

// What CFI says at one pc: how to find the CFA and each of the caller's registers.
struct CfiRow {
  uint64_t start = 0;  // the pc range [start, end) the row covers, in the file's addresses
  uint64_t end = 0;
  std::vector<Dwarf_Op> cfa;  // a DWARF expression; empty: the CFA is not known here
  std::array<RegisterRule, kMaxDwarfRegisters> registers;
  int return_address_register = 16;
  bool signal_frame = false;  // the 'S' augmentation: the caller was interrupted, not calling
  // Set by Recognize, once the rules are: the CFA's form, and which registers have a rule other
  // than undefined (bit i: register i), the only ones a step looks at.
  CommonForm cfa_form;
  uint32_t defined = 0;
  void Recognize();
};

class CfiModule {
 public:
  // Where separate debug files are looked for, in elfutils' debuginfo_path syntax: the
  // default, ":.debug:/usr/lib/debug", is the file's directory, its .debug/ and /usr/lib/debug.
  static constexpr char kDefaultDebugPath[] = ":.debug:/usr/lib/debug";

  // Opens `path`. A file without any CFI opens and finds no rows.
  static base::StatusOr<std::unique_ptr<CfiModule>> Open(
      const std::string& path, std::string debug_path = kDefaultDebugPath);
  // The CFI of an x86-64 .eh_frame an engine supplied for its JIT code (jitdump UNWINDING_INFO),
  // whose pointers take it to lie at `address`: its rows are found by the code's own addresses.
  // The bytes are copied. Fails when libdw cannot read them as an .eh_frame.
  static base::StatusOr<std::unique_ptr<CfiModule>> FromEhFrame(std::span<const uint8_t> eh_frame,
                                                                uint64_t address);
  ~CfiModule();
  CfiModule(const CfiModule&) = delete;
  CfiModule& operator=(const CfiModule&) = delete;

  // The row covering `address` (an address of the file, as its program headers lay it out), or
  // nullptr when neither section has one.
  const CfiRow* Find(uint64_t address);

  // The file's address of the byte at `file_offset` in it, through its PT_LOAD headers; false
  // when no loaded segment holds that offset.
  bool FileOffsetToAddress(uint64_t file_offset, uint64_t& address) const;

  bool is_64bit() const { return is_64bit_; }
  // The tables are an engine's, for its JIT code (FromEhFrame), not an ELF file's.
  bool supplied_by_engine() const { return !image_.empty(); }
  // The file's entry point (ELF e_entry), where the kernel starts a process, if it has one.
  std::optional<uint64_t> entry() const { return entry_; }

  // Reads the file's bytes at its addresses [address, address + out.size()), which one loaded
  // segment must hold; false otherwise or on a read error.
  bool ReadCode(uint64_t address, std::span<uint8_t> out) const;
  // Reads as much of [address, address + out.size()) as the loaded segment holding `address`
  // has; the bytes read (none if no segment holds it, or on a read error). Of a compact copy
  // (session/compact_elf.h), only the code it kept is read.
  std::span<uint8_t> ReadCodePrefix(uint64_t address, std::span<uint8_t> out) const;
  // From now on, logs every range of the file's addresses [start, end) ReadCodePrefix reads, as
  // read, in order, and every address whose row Find reads from the tables: what a compact copy
  // of the file keeps for the walks that read them (record/compact_copy.h).
  void LogReads() { log_reads_ = true; }
  const std::vector<std::pair<uint64_t, uint64_t>>& code_read() const { return code_read_; }
  const std::vector<uint64_t>& rows_read() const { return rows_read_; }
  // The starts of the symbols and FDEs that bounded the functions FunctionWithoutCfiAt found,
  // with the addresses it was asked about (logged as LogReads says): a compact copy keeps those
  // symbols and FDEs, so the functions are the same in it.
  const std::vector<uint64_t>& function_bounds_read() const { return function_bounds_read_; }
  // The file is a compact copy.
  bool compact() const { return kept_code_.has_value(); }
  // A table of the file's CFI was refused as hostile (cfi_sanity.h): no row comes from it.
  bool refused_cfi() const { return refused_cfi_; }
  // The function that holds `address`, a file address that Find() has no row for, by the file's
  // symbols or the gap between the code its tables describe (elf_functions.h): code whose rules
  // can be derived from the file's bytes. nullopt for an engine's tables, or where there is none.
  std::optional<formats::CodeRange> FunctionWithoutCfiAt(uint64_t address);
  // What call_check.h found for a return address of this file, once it has looked.
  std::optional<bool> FollowsCallCached(uint64_t address) const {
    auto it = follows_call_.find(address);
    return it == follows_call_.end() ? std::nullopt : std::optional<bool>(it->second);
  }
  void CacheFollowsCall(uint64_t address, bool follows) { follows_call_[address] = follows; }
  // Where call_check.h found the entry point's first call to end (0: it found none), once it
  // has looked.
  std::optional<uint64_t> entry_call_end;

 private:
  CfiModule() = default;
  bool Lookup(Dwarf_CFI* cfi, uint64_t address, CfiRow& row) const;
  // The index in rows_ of the row read before whose range holds `address`, or -1.
  int32_t RowContaining(uint64_t address) const;
  // Reads the row at `address` from the tables, in order, and keeps it; -1 when none has one.
  int32_t ReadRow(uint64_t address);
  // Looks over the file's own tables at the first call (cfi_sanity.h), dropping one refused.
  void CheckOwnTables();
  // The separate debug file's .debug_frame, found, opened and looked over at the first call.
  Dwarf_CFI* SeparateDebugFrame();

  base::ScopedFd fd_;
  std::vector<char> image_;  // FromEhFrame: the ELF image elf_ reads
  Elf* elf_ = nullptr;
  Dwarf* dwarf_ = nullptr;
  Dwarf_CFI* eh_frame_ = nullptr;     // owned: dwarf_cfi_end
  Dwarf_CFI* debug_frame_ = nullptr;  // owned by dwarf_
  bool checked_own_tables_ = false;
  bool refused_cfi_ = false;
  std::string path_;
  std::string debug_path_;
  char* debug_path_for_dwfl_ = nullptr;  // points into debug_path_, for dwfl's callbacks
  Dwfl_Callbacks dwfl_callbacks_{};
  Dwfl* dwfl_ = nullptr;  // owned: dwfl_end; the search for the separate debug file
  bool searched_debug_file_ = false;
  Dwarf_CFI* separate_debug_frame_ = nullptr;  // owned by dwfl_
  uint64_t separate_bias_ = 0;                 // what the separate CFI's addresses are off by
  bool is_64bit_ = true;
  std::optional<uint64_t> entry_;
  struct Segment {
    uint64_t offset, size, vaddr;
  };
  std::vector<Segment> segments_;
  std::optional<std::vector<session::KeptCode>> kept_code_;  // of a compact copy
  bool log_reads_ = false;
  mutable std::vector<std::pair<uint64_t, uint64_t>> code_read_;
  std::vector<uint64_t> rows_read_;
  std::vector<uint64_t> function_bounds_read_;
  std::deque<CfiRow> rows_;                          // a deque: rows handed out stay where they are
  std::map<uint64_t, int32_t> row_by_start_;         // a row's start → rows_
  std::unordered_map<uint64_t, int32_t> row_at_pc_;  // -1: no row
  std::unordered_map<uint64_t, bool> follows_call_;
  std::optional<ElfFunctions> functions_;  // read at the first FunctionWithoutCfiAt
};

}  // namespace jitscope::unwind
