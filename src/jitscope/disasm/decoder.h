// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// One instruction at a time, from bytes that may be anything: JIT code as the engine reported it,
// possibly patched since, possibly data. Every analysis of machine code (derived unwind rules,
// annotation) decodes through this wrapper, so there is one decoder and one idea of an
// instruction's length: a wrong length desynchronises everything after it.
#pragma once

#include <Zydis/Zydis.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace jitscope::disasm {

enum class Mode : uint8_t { kX86_64, kI386 };
// kAtt is objdump's default syntax; kIntel is objdump's -M intel.
enum class Syntax : uint8_t { kAtt, kIntel };

// One decoded instruction, with the decoder's full result for analyses that need more than the
// conveniences below (operand details, registers read and written, CPU flags).
struct Instruction {
  uint64_t address = 0;
  uint8_t length = 0;
  ZydisDecodedInstruction raw{};
  // All operands, hidden ones (rsp of a push, flags) included; the visible ones come first.
  std::array<ZydisDecodedOperand, ZYDIS_MAX_OPERAND_COUNT> operands{};
  uint8_t operand_count = 0;

  bool IsCall() const { return raw.meta.category == ZYDIS_CATEGORY_CALL; }
  bool IsReturn() const { return raw.meta.category == ZYDIS_CATEGORY_RET; }
  // A jump, conditional or not (jcc, jmp, loop, jrcxz).
  bool IsJump() const {
    return IsConditionalJump() || raw.meta.category == ZYDIS_CATEGORY_UNCOND_BR;
  }
  bool IsConditionalJump() const { return raw.meta.category == ZYDIS_CATEGORY_COND_BR; }
  // True when flow never goes on to the next instruction in memory: a return, an unconditional
  // jump, or an instruction that traps (int3, ud0-ud2, hlt).
  bool EndsFlow() const;
  // The target of a direct (relative) call or jump; nullopt for indirect ones and everything else.
  std::optional<uint64_t> BranchTarget() const;
  // The address of the next instruction in memory.
  uint64_t End() const { return address + length; }
};

// Cheap to copy or move: the decoder and formatter state is a few plain structs, no heap.
class Decoder {
 public:
  static std::optional<Decoder> Create(Mode mode);

  Mode mode() const { return mode_; }
  // The instruction at the start of `bytes`, which sit at `address`. nullopt: the bytes do not
  // decode, or the instruction is cut short by the end of the span.
  std::optional<Instruction> Decode(std::span<const uint8_t> bytes, uint64_t address) const;
  // objdump-like text ("vfmadd231ps %zmm1,%zmm2,%zmm3"; with kIntel "vfmadd231ps zmm3,zmm2,zmm1"):
  // operands separated by a bare comma, direct branch targets as absolute hex addresses.
  std::string Format(const Instruction& instruction, Syntax syntax) const;

 private:
  Decoder() = default;

  Mode mode_ = Mode::kX86_64;
  ZydisDecoder decoder_{};
  ZydisFormatter att_{};
  ZydisFormatter intel_{};
};

}  // namespace jitscope::disasm
