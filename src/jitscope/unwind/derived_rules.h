// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Unwind rules for JIT code that came with none, derived from its bytes: a stack-height analysis
// of one code version (a function's regions as they were loaded, the first one starting at its
// entry). It decodes by following control flow from the entry — never by a linear sweep, since
// engines put data tables and stubs next to their code — and tracks, at every instruction it
// reaches:
//  - where the CFA is: rsp + k while rsp is known (push, pop, sub/add rsp with an immediate, lea
//    rsp, [reg + k], mov rsp, reg); after `mov rbp, rsp` (or a copy of rsp into any register)
//    also reg + k, which stays true across `and rsp, -N` realignment, `leave` and `enter`. Where
//    rbp holds a height the rule is rbp + k, as compilers' CFI has it: a call is taken to leave
//    rsp as it was, which is the ABI's word but not every engine's (V8's callees pop their
//    arguments), and a frame pointer outlives such a call;
//  - that the return address is at CFA - 8, until the code overwrites or pops it (and where it
//    is after a pop that pushes it back elsewhere);
//  - where the caller's callee-saved registers (rbx, rbp, r12-r15) are: unchanged, saved in a
//    slot at CFA + k (push, or a store while the register still holds the caller's value), or
//    lost (written before it was saved).
// A call is taken to keep to the ABI (stack balanced, callee-saved registers kept) unless the
// caller of Analyze knows better: a direct call whose target's effect (call_effect.h) departs
// from it, V8's out-of-line prologue, takes that effect.
// A direct jump into another region of the same version (a split function's cold region) carries
// its state there. Paths that meet with different states merge to "unknown" field by field, and
// the analysis runs to a fixed point, bounded by the number of instructions. A switch's cases,
// reached only through a jump table the analysis cannot read, take the state of the table jump
// where they hold together in it, or rejoin the other paths with the same frame, merged there
// (stack_state.h). An offset no path reaches, that does not
// decode, whose CFA is not known, or whose return address was overwritten, has no rule: the walk
// stops there rather than guess.
//
// A block of code a perf map names as one may hold several functions laid end to end (HotSpot
// names a blob of many stubs `StubRoutines (1)`, among them the call stub every Java thread's
// stack passes through). Analysed as such a block (CodeBlock::kFunctionsEndToEnd), the code that
// directly follows an instruction after which control never goes on (a return, an unconditional
// jump, a trap) and that no path reaches, alignment padding skipped, is taken as a further
// function's entry, in address order. Its state there is a function's at its entry, an
// assumption kept only while nothing contradicts it: the code it reaches must all decode, must
// return, with the return address on top at every `ret` and every jump out of the block, and must
// meet code analysed from another entry only where both give the same rule at the same
// instruction boundary. Code that is no function's entry fails: a stub's tail that jumps back
// into another's frame (HotSpot's exception path to the call stub's return address), a block of
// a function's middle reached only through a table (V8's generator resume points), which never
// returns or tears down a frame it does not have. A sweep of the bytes finds the candidates; only
// the analysis gives rules. Where the code at the block's start only leaves it by a jump (no
// call, no return: an engine patched a jump over the function's first instruction, as HotSpot
// does to compiled code it makes not entrant, whose frames still return into it), each of the
// bytes within one instruction's length after that jump is a candidate in turn, until one holds
// together: the rest of the instruction the jump overwrote lies between them. An overwritten
// instruction that moved the stack leaves no candidate that returns as a function must.
//
// The rules are offered as CFI rows (cfi_module.h), so the walk steps through JIT code exactly as
// through ELF code. The analysis also records where its calls end, so a walk can check that a
// return address it found follows a call (call-consistency): bytes can be stale when an engine
// patches code after reporting it.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "jitscope/disasm/decoder.h"
#include "jitscope/unwind/cfi_module.h"

namespace jitscope::unwind {

class CallTargets;  // call_effect.h

// One region of a code version: its address and its bytes as they were loaded.
struct CodeRegion {
  uint64_t address = 0;
  std::span<const uint8_t> bytes;
};

// Where a caller's callee-saved register is, relative to the CFA.
struct SavedRegister {
  enum class Where : uint8_t { kSame, kAt, kLost };
  Where where = Where::kSame;
  int32_t offset = 0;  // kAt: the value is at CFA + offset
  bool operator==(const SavedRegister&) const = default;
};

// The rule at one instruction. Registers are DWARF numbers (registers.h).
struct DerivedRule {
  int cfa_register = 7;  // the CFA is this register's value + cfa_offset
  int64_t cfa_offset = 8;
  // The return address is at CFA + return_address_offset: CFA - 8 but where the code moved it
  // (V8's API call builtin pops it, pushes the call's arguments, and pushes it back below them).
  int32_t return_address_offset = -8;
  // By DWARF number; only the callee-saved ones (3 rbx, 6 rbp, 12-15) are meaningful.
  std::array<SavedRegister, 16> saved{};
  bool operator==(const DerivedRule&) const = default;
};

inline constexpr int kCalleeSavedDwarf[] = {3, 6, 12, 13, 14, 15};

// What a code version holds: one function whose entry is its start (a JIT file's code load), or
// functions laid end to end, the first at its start (a perf map's block whose engine may name a
// blob of several as one).
enum class CodeBlock : uint8_t { kOneFunction, kFunctionsEndToEnd };

class DerivedRules {
 public:
  // Analyses the code version made of `regions`; regions[0].address is its entry. The bytes are
  // read only during the call.
  // `targets` (may be nullptr: every call keeps to the ABI) names the effects of direct calls.
  static DerivedRules Analyze(const disasm::Decoder& decoder, std::span<const CodeRegion> regions,
                              CallTargets* targets = nullptr,
                              CodeBlock block = CodeBlock::kOneFunction);

  // The rule for the instruction that holds `address`, or nullptr: unknown.
  const DerivedRule* Find(uint64_t address) const;
  // The same rule as a CFI row, for the walk; nullptr: unknown.
  const CfiRow* FindRow(uint64_t address) const;
  // True when a call instruction the analysis reached ends at `address`.
  bool IsReturnAddress(uint64_t address) const;
  // Instructions the analysis decoded (reached from the entry, or the entries), with and without
  // a rule.
  size_t instructions() const { return instructions_; }
  size_t instructions_with_rules() const { return instructions_with_rules_; }

 private:
  static constexpr uint16_t kNoRule = 0xffff;
  struct Region {
    uint64_t address = 0;
    std::vector<uint16_t> rule_at;  // per byte: an index into rules_, or kNoRule
  };
  void BuildRows();

  std::vector<Region> regions_;
  std::vector<DerivedRule> rules_;   // distinct rules
  std::vector<CfiRow> rows_;         // rows_[i] is rules_[i] as a CFI row
  std::vector<uint64_t> call_ends_;  // sorted
  size_t instructions_ = 0;
  size_t instructions_with_rules_ = 0;
};

// The derived rules of each code version, computed once per version: the first walk through a
// version pays for the analysis, later ones look it up. A version is named by the caller (a
// pointer that stays unique for the cache's life: symbolize's CodeVersion).
class DerivedRulesCache {
 public:
  static std::optional<DerivedRulesCache> Create();
  // The rules of `version` if they were derived already, or nullptr.
  const DerivedRules* Find(const void* version) const;
  // Derives the rules of `version` from `regions` and keeps them. The effects `targets` names
  // are taken as they are at this first analysis, which its rules keep.
  const DerivedRules& Add(const void* version, std::span<const CodeRegion> regions,
                          CallTargets* targets = nullptr,
                          CodeBlock block = CodeBlock::kOneFunction);
  const disasm::Decoder& decoder() const { return decoder_; }

 private:
  explicit DerivedRulesCache(disasm::Decoder decoder) : decoder_(decoder) {}
  disasm::Decoder decoder_;
  std::unordered_map<const void*, std::unique_ptr<DerivedRules>> rules_;
};

}  // namespace jitscope::unwind
