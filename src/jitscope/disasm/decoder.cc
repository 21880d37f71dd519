// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/disasm/decoder.h"

#include <string_view>

namespace jitscope::disasm {

std::optional<uint64_t> Instruction::BranchTarget() const {
  if (!IsCall() && !IsJump()) return std::nullopt;
  if (raw.operand_count_visible == 0) return std::nullopt;
  const ZydisDecodedOperand& target = operands[0];
  if (target.type != ZYDIS_OPERAND_TYPE_IMMEDIATE || !target.imm.is_relative) return std::nullopt;
  ZyanU64 absolute = 0;
  if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&raw, &target, address, &absolute))) {
    return std::nullopt;
  }
  return absolute;
}

bool Instruction::EndsFlow() const {
  switch (raw.mnemonic) {
    case ZYDIS_MNEMONIC_INT3:
    case ZYDIS_MNEMONIC_UD0:
    case ZYDIS_MNEMONIC_UD1:
    case ZYDIS_MNEMONIC_UD2:
    case ZYDIS_MNEMONIC_HLT:
      return true;
    default:
      return IsReturn() || (IsJump() && !IsConditionalJump());
  }
}

std::optional<Decoder> Decoder::Create(Mode mode) {
  Decoder decoder;
  decoder.mode_ = mode;
  const bool is_64 = mode == Mode::kX86_64;
  if (!ZYAN_SUCCESS(ZydisDecoderInit(
          &decoder.decoder_, is_64 ? ZYDIS_MACHINE_MODE_LONG_64 : ZYDIS_MACHINE_MODE_LEGACY_32,
          is_64 ? ZYDIS_STACK_WIDTH_64 : ZYDIS_STACK_WIDTH_32))) {
    return std::nullopt;
  }
  if (!ZYAN_SUCCESS(ZydisFormatterInit(&decoder.att_, ZYDIS_FORMATTER_STYLE_ATT)) ||
      !ZYAN_SUCCESS(ZydisFormatterInit(&decoder.intel_, ZYDIS_FORMATTER_STYLE_INTEL))) {
    return std::nullopt;
  }
  // objdump's number format: lower-case hex without zero padding, negative displacements as
  // "-0x8(%rbp)", immediates as the unsigned value of the operand's width ("and
  // $0xffffffffffffffc0,%rsp"), and rip-relative operands as written ("0x100(%rip)").
  static constexpr struct {
    ZydisFormatterProperty property;
    ZyanUPointer value;
  } kProperties[] = {
      {ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE},
      {ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE},
      {ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
       static_cast<ZyanUPointer>(ZYDIS_PADDING_DISABLED)},
      {ZYDIS_FORMATTER_PROP_ADDR_PADDING_RELATIVE,
       static_cast<ZyanUPointer>(ZYDIS_PADDING_DISABLED)},
      {ZYDIS_FORMATTER_PROP_DISP_SIGNEDNESS, ZYDIS_SIGNEDNESS_SIGNED},
      {ZYDIS_FORMATTER_PROP_DISP_PADDING, static_cast<ZyanUPointer>(ZYDIS_PADDING_DISABLED)},
      {ZYDIS_FORMATTER_PROP_IMM_SIGNEDNESS, ZYDIS_SIGNEDNESS_UNSIGNED},
      {ZYDIS_FORMATTER_PROP_IMM_PADDING, static_cast<ZyanUPointer>(ZYDIS_PADDING_DISABLED)},
  };
  for (ZydisFormatter* formatter : {&decoder.att_, &decoder.intel_}) {
    for (const auto& [property, value] : kProperties) {
      if (!ZYAN_SUCCESS(ZydisFormatterSetProperty(formatter, property, value))) return std::nullopt;
    }
  }
  return decoder;
}

std::optional<Instruction> Decoder::Decode(std::span<const uint8_t> bytes, uint64_t address) const {
  Instruction instruction;
  instruction.address = address;
  // Zydis reports an instruction cut short by the end of the buffer as NO_MORE_DATA and bytes that
  // are no instruction as a decoding error: both are "does not decode" here.
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder_, bytes.data(), bytes.size(), &instruction.raw,
                                           instruction.operands.data()))) {
    return std::nullopt;
  }
  instruction.length = instruction.raw.length;
  instruction.operand_count = instruction.raw.operand_count;
  return instruction;
}

std::string Decoder::Format(const Instruction& instruction, Syntax syntax) const {
  char buffer[256];
  const ZydisFormatter& formatter = syntax == Syntax::kAtt ? att_ : intel_;
  if (!ZYAN_SUCCESS(
          ZydisFormatterFormatInstruction(&formatter, &instruction.raw, instruction.operands.data(),
                                          instruction.raw.operand_count_visible, buffer,
                                          sizeof(buffer), instruction.address, nullptr))) {
    return "(bad)";
  }
  // Zydis separates operands with ", " and decorators with " {"; objdump writes "," and "{".
  // Neither sequence occurs inside an operand, so dropping those spaces gives objdump's spelling.
  std::string text;
  for (const char* p = buffer; *p != '\0'; ++p) {
    if (*p == ' ' && ((p != buffer && p[-1] == ',') || p[1] == '{')) continue;
    text.push_back(*p);
  }
  // The shift-by-one forms (d0, d1 /0-7) have an implicit count of 1 that objdump leaves out
  // ("rol %r12"). It is the first AT&T operand and the last Intel one.
  const uint8_t shown = instruction.raw.operand_count_visible;
  if (shown > 1 && instruction.operands[shown - 1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
      instruction.operands[shown - 1].visibility == ZYDIS_OPERAND_VISIBILITY_IMPLICIT) {
    const std::string_view count = syntax == Syntax::kAtt ? "$0x1," : ",0x1";
    const size_t at = syntax == Syntax::kAtt ? text.find(count) : text.rfind(count);
    if (at != std::string::npos) text.erase(at, count.size());
  }
  // objdump marks the target of an indirect call or jump with '*' in AT&T syntax ("call
  // *0x8(%rax)", "jmp *%rax"), which tells it apart from a direct target at a glance.
  if (syntax == Syntax::kAtt && (instruction.IsCall() || instruction.IsJump()) &&
      instruction.raw.operand_count_visible > 0 &&
      instruction.operands[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE) {
    const size_t space = text.find(' ');
    if (space != std::string::npos) text.insert(space + 1, 1, '*');
  }
  return text;
}

}  // namespace jitscope::disasm
