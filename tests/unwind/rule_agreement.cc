// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "unwind/rule_agreement.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cstring>

#include <fmt/format.h>

#include "jitscope/unwind/derived_rules.h"

namespace jitscope::unwind::testing {

namespace {

constexpr size_t kExamples = 10;
constexpr size_t kReturnAddressRegister = 16;

void Example(RuleAgreement& agreement, uint64_t differences_before, std::string line) {
  if (differences_before < kExamples) agreement.examples += line + "\n";
}

// The 64-bit register of DWARF number `reg` (x86-64), or none.
ZydisRegister Gpr64(int reg) {
  static constexpr ZydisRegister kByDwarf[16] = {
      ZYDIS_REGISTER_RAX, ZYDIS_REGISTER_RDX, ZYDIS_REGISTER_RCX, ZYDIS_REGISTER_RBX,
      ZYDIS_REGISTER_RSI, ZYDIS_REGISTER_RDI, ZYDIS_REGISTER_RBP, ZYDIS_REGISTER_RSP,
      ZYDIS_REGISTER_R8,  ZYDIS_REGISTER_R9,  ZYDIS_REGISTER_R10, ZYDIS_REGISTER_R11,
      ZYDIS_REGISTER_R12, ZYDIS_REGISTER_R13, ZYDIS_REGISTER_R14, ZYDIS_REGISTER_R15};
  return reg >= 0 && reg < 16 ? kByDwarf[reg] : ZYDIS_REGISTER_NONE;
}

// True when `instruction` copies one of the two registers into the other (`mov rsp, rbp`), so
// after it they hold the same value.
bool CopiesBetween(const disasm::Instruction& instruction, int a, int b) {
  if (instruction.raw.mnemonic != ZYDIS_MNEMONIC_MOV || instruction.operand_count < 2) return false;
  const ZydisDecodedOperand& to = instruction.operands[0];
  const ZydisDecodedOperand& from = instruction.operands[1];
  if (to.type != ZYDIS_OPERAND_TYPE_REGISTER || from.type != ZYDIS_OPERAND_TYPE_REGISTER) {
    return false;
  }
  const ZydisRegister ra = Gpr64(a), rb = Gpr64(b);
  return (to.reg.value == ra && from.reg.value == rb) ||
         (to.reg.value == rb && from.reg.value == ra);
}

// Alignment padding, which never runs.
bool IsPadding(const disasm::Instruction& instruction) {
  return instruction.raw.mnemonic == ZYDIS_MNEMONIC_NOP ||
         instruction.raw.mnemonic == ZYDIS_MNEMONIC_INT3;
}

uint64_t Differences(const RuleAgreement& a) {
  return a.other_base + a.cfa_differs + a.return_address_differs + a.saved_differs +
         a.saved_only_derived;
}

// Where the CFI row says the register is: true and the slot's offset from the CFA when it is
// saved there; false otherwise, with `unchanged` set when it keeps its value.
bool SavedAt(const RegisterRule& rule, int64_t& offset, bool& unchanged) {
  unchanged = rule.kind == RegisterRule::Kind::kSameValue;
  if (rule.kind != RegisterRule::Kind::kLocation ||
      rule.form.kind != CommonForm::Kind::kAtCfaPlus) {
    return false;
  }
  offset = static_cast<int64_t>(rule.form.offset);
  return true;
}

}  // namespace

std::vector<ElfFunction> ElfFunctions(const std::string& path) {
  std::vector<ElfFunction> functions;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return functions;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  for (Elf_Scn* scn = nullptr; elf != nullptr && (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_SYMTAB) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    const size_t count = shdr.sh_entsize == 0 ? 0 : shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 0; data != nullptr && i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
      if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size == 0 || sym.st_shndx == SHN_UNDEF) {
        continue;
      }
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (name == nullptr || std::strstr(name, ".cold") != nullptr) continue;
      functions.push_back({name, sym.st_value, sym.st_size});
    }
  }
  if (elf != nullptr) elf_end(elf);
  ::close(fd);
  return functions;
}

void RuleAgreement::Add(const RuleAgreement& other) {
  const uint64_t differences_before = Differences(*this);
  instructions += other.instructions;
  claimed += other.claimed;
  padding += other.padding;
  compared += other.compared;
  not_compared += other.not_compared;
  padding_not_compared += other.padding_not_compared;
  if (uncompared_examples.size() < 1000) uncompared_examples += other.uncompared_examples;
  other_base += other.other_base;
  copied_base += other.copied_base;
  cfa_differs += other.cfa_differs;
  return_address_differs += other.return_address_differs;
  saved_compared += other.saved_compared;
  saved_differs += other.saved_differs;
  saved_only_derived += other.saved_only_derived;
  saved_only_cfi += other.saved_only_cfi;
  lost += other.lost;
  if (differences_before < kExamples) examples += other.examples;
}

std::string RuleAgreement::Describe() const {
  return fmt::format(
      "{} instructions, {} with a derived rule, {} padding without one, {} compared with the "
      "CFI: CFA on another register "
      "{} (and {} on a register just copied from it), CFA offset differs {}, return address "
      "differs {}; {} saved registers compared, slot differs {}, saved only by the analysis {}, "
      "only by the CFI {}; lost where the CFI has it {}\n{}{}",
      instructions, claimed, padding, compared, other_base, copied_base, cfa_differs,
      return_address_differs, saved_compared, saved_differs, saved_only_derived, saved_only_cfi,
      lost, examples, uncompared_examples);
}

RuleAgreement CompareWithCfi(const disasm::Decoder& decoder, std::span<const uint8_t> code,
                             uint64_t code_address, CfiModule& module, uint64_t cfi_address) {
  RuleAgreement agreement;
  const CodeRegion region{code_address, code};
  const DerivedRules rules = DerivedRules::Analyze(decoder, std::span(&region, 1));
  std::optional<disasm::Instruction> previous, instruction;
  for (uint64_t offset = 0; offset < code.size(); previous = instruction) {
    instruction = decoder.Decode(code.subspan(offset), code_address + offset);
    if (!instruction) break;
    const uint64_t at = offset;
    offset += instruction->length;
    ++agreement.instructions;
    const DerivedRule* rule = rules.Find(code_address + at);
    if (rule == nullptr) {
      if (IsPadding(*instruction)) ++agreement.padding;
      continue;
    }
    ++agreement.claimed;
    const CfiRow* row = module.Find(cfi_address + at);
    const std::string where = fmt::format("+{:#x} (CFI at {:#x})", at, cfi_address + at);
    const uint64_t differences = Differences(agreement);
    if (row == nullptr || row->cfa_form.kind != CommonForm::Kind::kRegisterPlus) {
      ++agreement.not_compared;
      if (IsPadding(*instruction)) ++agreement.padding_not_compared;
      if (agreement.not_compared <= kExamples) {
        agreement.uncompared_examples +=
            fmt::format("{}: {} {}\n", where, ZydisMnemonicGetString(instruction->raw.mnemonic),
                        row == nullptr ? "has no CFI row" : "has a CFA of another form");
      }
      continue;
    }
    ++agreement.compared;
    const bool same_offset = static_cast<int64_t>(row->cfa_form.offset) == rule->cfa_offset;
    if (row->cfa_form.reg != rule->cfa_register && same_offset && previous &&
        previous->End() == code_address + at &&
        CopiesBetween(*previous, row->cfa_form.reg, rule->cfa_register)) {
      ++agreement.copied_base;
    } else if (row->cfa_form.reg != rule->cfa_register) {
      ++agreement.other_base;
      Example(agreement, differences,
              fmt::format("{}: CFA derived r{}{:+}, CFI r{}{:+}", where, rule->cfa_register,
                          rule->cfa_offset, row->cfa_form.reg,
                          static_cast<int64_t>(row->cfa_form.offset)));
      continue;
    }
    if (!same_offset) {
      ++agreement.cfa_differs;
      Example(agreement, differences,
              fmt::format("{}: CFA derived r{}{:+}, CFI {:+}", where, rule->cfa_register,
                          rule->cfa_offset, static_cast<int64_t>(row->cfa_form.offset)));
    }
    int64_t slot = 0;
    bool unchanged = false;
    if (!SavedAt(row->registers[kReturnAddressRegister], slot, unchanged) || slot != -8) {
      ++agreement.return_address_differs;
      Example(agreement, differences,
              fmt::format("{}: the CFI's return address is elsewhere", where));
    }
    for (int reg : kCalleeSavedDwarf) {
      const SavedRegister& derived = rule->saved[static_cast<size_t>(reg)];
      const bool cfi_saved = SavedAt(row->registers[static_cast<size_t>(reg)], slot, unchanged);
      if (derived.where == SavedRegister::Where::kLost) {
        if (cfi_saved || unchanged) ++agreement.lost;
        continue;
      }
      const bool derived_saved = derived.where == SavedRegister::Where::kAt;
      if (derived_saved && cfi_saved) {
        ++agreement.saved_compared;
        if (slot == derived.offset) continue;
        ++agreement.saved_differs;
      } else if (derived_saved && unchanged) {
        ++agreement.saved_only_derived;
      } else if (!derived_saved && cfi_saved) {
        ++agreement.saved_only_cfi;
        continue;
      } else {
        continue;  // both unchanged, or a CFI rule of another kind, which is not compared
      }
      Example(agreement, differences,
              fmt::format("{}: r{} derived {}, CFI {}", where, reg,
                          derived_saved ? fmt::format("at CFA{:+}", derived.offset) : "unchanged",
                          cfi_saved ? fmt::format("at CFA{:+}", slot) : "unchanged"));
    }
  }
  return agreement;
}

}  // namespace jitscope::unwind::testing
