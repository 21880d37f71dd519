// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Where the functions of an ELF file that has no call-frame information for them begin and end,
// so that rules can be derived from their bytes as from JIT code's (derived_rules.h). Engines
// ship such code in their own files: V8's embedded builtins in the node binary
// (Builtins_CallApiCallback, Builtins_CEntry_*: assembly V8 generates at build time, with symbols
// but no CFI), hand-written assembly, and static functions a stripped file names nowhere.
//
// A function is what the file's symbol table says (.symtab, else .dynsym: a function symbol with
// a size, the innermost that holds the address), else the gap between the code the tables do
// describe: from the end of the symbol or .eh_frame FDE before the address to the start of the
// one after it, inside the executable section that holds it, past the padding (int3, nop) that
// aligns a function's start. A gap is a guess at a function's bounds, a symbol a statement; the
// rules derived from either are checked by the walk like JIT code's (a return address must follow
// a call the analysis found), so a gap that holds two functions, or data, stops a walk rather
// than misleads it.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "jitscope/formats/eh_frame_ranges.h"

namespace jitscope::unwind {

class ElfFunctions {
 public:
  // A function longer than this is not analysed (no engine's builtin comes near).
  static constexpr uint64_t kMaxFunctionSize = 256 * 1024;

  // Reads the symbol table, the .eh_frame's FDE ranges and the executable sections of `elf`.
  static ElfFunctions Read(Elf* elf);
  // From parts, for tests: function symbols and FDE ranges (any order), executable sections.
  static ElfFunctions FromRanges(std::vector<formats::CodeRange> symbols,
                                 std::vector<formats::CodeRange> fdes,
                                 std::vector<formats::CodeRange> executable);

  // The function that holds `address` (a file address), by its symbol or as a gap between
  // described code; nullopt when `address` is in no executable section, or the function is
  // longer than kMaxFunctionSize. `code` reads the file's bytes at an address range (for the
  // padding at a gap's start; may return fewer). `bounds`, if given, gets the start of each
  // symbol or FDE that bounds the answer (the symbol; the described code a gap lies between):
  // what a compact copy of the file must keep for the same answer.
  std::optional<formats::CodeRange> At(
      uint64_t address,
      const std::function<std::span<const uint8_t>(uint64_t, std::span<uint8_t>)>& code,
      std::vector<uint64_t>* bounds = nullptr) const;

 private:
  std::vector<formats::CodeRange> symbols_;    // sorted by begin, then longest first
  std::vector<formats::CodeRange> described_;  // symbols and FDEs, sorted by begin
  std::vector<uint64_t> reach_;                // reach_[i]: the furthest end of described_[0..i]
  std::vector<uint64_t> reached_by_;  // reached_by_[i]: the start of the range that ends there
  std::vector<formats::CodeRange> executable_;  // sorted
  uint64_t longest_symbol_ = 0;
};

}  // namespace jitscope::unwind
