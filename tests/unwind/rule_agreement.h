// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The analysis of JIT code (derived_rules.h) against an oracle: the call-frame information a
// compiler wrote for the same function. The function's bytes are analysed as if they were JIT
// code, from its start, and at every instruction where the analysis claims a rule the rule is
// compared with the CFI row there: the CFA, the return address, and each callee-saved register.
// Shared by the test that holds the analysis to GCC's and clang's CFI of this test program and
// the one that holds it to LLVM's CFI of the code lli-14 JIT-compiles.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "jitscope/disasm/decoder.h"
#include "jitscope/unwind/cfi_module.h"

namespace jitscope::unwind::testing {

struct ElfFunction {
  std::string name;
  uint64_t address = 0;  // in the file
  uint64_t size = 0;
};

// The functions of `path`'s symbol table (.symtab) that have a size, except GCC's "f.cold" parts:
// they are no entries (f jumps into them with its frame set up, as into a JIT function's cold
// region) and their CFI continues f's.
std::vector<ElfFunction> ElfFunctions(const std::string& path);

struct RuleAgreement {
  uint64_t instructions = 0;  // decoded
  uint64_t claimed = 0;       // with a derived rule
  uint64_t padding = 0;       // without one, and alignment padding (nop, int3) that never runs
  uint64_t compared = 0;      // claimed, and the CFI row there has a register + offset CFA
  uint64_t not_compared = 0;  // claimed, and the CFI has no such row there
  // Of those, padding: the analysis reaches the padding after a last call that never returns
  // (V8's calls to its deoptimizer end its code), which the engine's tables leave out.
  uint64_t padding_not_compared = 0;
  std::string uncompared_examples;  // the first of those, a line each
  uint64_t other_base = 0;          // of those, the CFI's CFA is another register's
  // Not a difference: the CFI's CFA is another register's with the same offset, and the
  // instruction before copied one register into the other (V8 moves its CFA to rsp at the
  // `pop rbp` after `mov rsp, rbp`, where the analysis keeps rbp: both hold the same value).
  uint64_t copied_base = 0;
  uint64_t cfa_differs = 0;             // the same register, another offset
  uint64_t return_address_differs = 0;  // the CFI's return address is not at CFA - 8
  uint64_t saved_compared = 0;          // callee-saved registers both say are saved
  uint64_t saved_differs = 0;           // of those, in another slot
  uint64_t saved_only_derived = 0;      // the analysis says saved, the CFI unchanged
  // The CFI says saved, the analysis unchanged: after an epilogue's pop the register holds the
  // caller's value again, and compilers leave the CFI's rule as it was. Both are right there.
  uint64_t saved_only_cfi = 0;
  uint64_t lost = 0;     // the analysis says lost where the CFI has the register: cautious
  std::string examples;  // the first differences, a line each

  void Add(const RuleAgreement& other);
  // "N instructions, M claimed, ..." for a failure message.
  std::string Describe() const;
};

// Compares the rules derived from `code` (a function's bytes, at `code_address`, its entry)
// with `module`'s CFI for the same function, which starts at `cfi_address` in the file.
// Instructions are decoded one after another from the start to the end of `code`.
RuleAgreement CompareWithCfi(const disasm::Decoder& decoder, std::span<const uint8_t> code,
                             uint64_t code_address, CfiModule& module, uint64_t cfi_address);

}  // namespace jitscope::unwind::testing
