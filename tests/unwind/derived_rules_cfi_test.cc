// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The analysis against an oracle: the compiler's own call-frame information. Every function of
// this test program (optimised C++ from jitscope's and gtest's sources, and in sanitized builds
// the sanitizer runtime) is analysed from its bytes as if it were JIT code, and wherever the
// analysis claims a rule whose CFA has the same base register as the CFI row there, the two must
// agree on the offset, and on the slot of every callee-saved register both say is saved.
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include <gtest/gtest.h>

#include "jitscope/unwind/cfi_module.h"
#include "jitscope/unwind/derived_rules.h"

namespace jitscope::unwind {
namespace {

uint64_t MainProgramBias() {
  uint64_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        *static_cast<uint64_t*>(data) = info->dlpi_addr;
        return 1;  // the first entry is the program itself
      },
      &bias);
  return bias;
}

struct Function {
  uint64_t address;  // in the file
  uint64_t size;
};

std::vector<Function> FunctionsOf(const std::string& path) {
  std::vector<Function> functions;
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
      // GCC's "f.cold" parts are no entries: f jumps into them with its frame set up (as into
      // a JIT function's cold region), and their CFI continues f's.
      const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
      if (name != nullptr && std::strstr(name, ".cold") != nullptr) continue;
      functions.push_back({sym.st_value, sym.st_size});
    }
  }
  if (elf != nullptr) elf_end(elf);
  ::close(fd);
  return functions;
}

TEST(DerivedRulesCfiTest, AgreesWithTheCompilersCfiWhereBothHaveARule) {
  const std::string path = "/proc/self/exe";
  auto module = CfiModule::Open(path);
  ASSERT_TRUE(module.ok()) << module.status().message();
  const std::vector<Function> functions = FunctionsOf(path);
  ASSERT_GT(functions.size(), 1000u);
  const uint64_t bias = MainProgramBias();
  auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());
  uint64_t compared = 0, claimed = 0, mismatches = 0, saved_compared = 0, saved_mismatches = 0;
  std::string first_mismatches;
  for (const Function& f : functions) {
    const auto* code = reinterpret_cast<const uint8_t*>(bias + f.address);
    const CodeRegion region{f.address, std::span<const uint8_t>(code, f.size)};
    const DerivedRules rules = DerivedRules::Analyze(*decoder, std::span(&region, 1));
    for (uint64_t offset = 0; offset < f.size; ++offset) {
      const DerivedRule* rule = rules.Find(f.address + offset);
      if (rule == nullptr) continue;
      ++claimed;
      const CfiRow* row = (*module)->Find(f.address + offset);
      if (row == nullptr || row->cfa.size() != 1) continue;
      // libdw hands out a CFA rule as one DW_OP_bregN or DW_OP_bregx.
      const Dwarf_Op& op = row->cfa[0];
      int cfi_register = -1;
      int64_t cfi_offset = 0;
      if (op.atom >= DW_OP_breg0 && op.atom <= DW_OP_breg31) {
        cfi_register = op.atom - DW_OP_breg0;
        cfi_offset = static_cast<int64_t>(op.number);
      } else if (op.atom == DW_OP_bregx) {
        cfi_register = static_cast<int>(op.number);
        cfi_offset = static_cast<int64_t>(op.number2);
      }
      if (cfi_register != rule->cfa_register) continue;
      ++compared;
      // Callee-saved registers both say are saved must be in the same slot. libdw hands out
      // offset(N) as DW_OP_call_frame_cfa; DW_OP_plus_uconst N.
      for (int reg : kCalleeSavedDwarf) {
        const SavedRegister& derived = rule->saved[static_cast<size_t>(reg)];
        const RegisterRule& cfi = row->registers[static_cast<size_t>(reg)];
        if (derived.where != SavedRegister::Where::kAt ||
            cfi.kind != RegisterRule::Kind::kLocation || cfi.location.size() != 2 ||
            cfi.location[0].atom != DW_OP_call_frame_cfa ||
            cfi.location[1].atom != DW_OP_plus_uconst) {
          continue;
        }
        ++saved_compared;
        if (static_cast<int64_t>(cfi.location[1].number) != derived.offset &&
            ++saved_mismatches <= 10) {
          char line[160];
          std::snprintf(line, sizeof line, "at 0x%llx: r%d saved at CFA%+d, CFI CFA%+lld\n",
                        static_cast<unsigned long long>(f.address + offset), reg, derived.offset,
                        static_cast<long long>(cfi.location[1].number));
          first_mismatches += line;
        }
      }
      if (cfi_offset != rule->cfa_offset) {
        if (++mismatches <= 10) {
          char line[160];
          std::snprintf(line, sizeof line, "at 0x%llx (+%llu): derived r%d%+lld, CFI %+lld\n",
                        static_cast<unsigned long long>(f.address + offset),
                        static_cast<unsigned long long>(offset), rule->cfa_register,
                        static_cast<long long>(rule->cfa_offset),
                        static_cast<long long>(cfi_offset));
          first_mismatches += line;
        }
      }
    }
  }
  EXPECT_GT(compared, 100000u) << claimed << " bytes with a rule";
  // The oracle is not exact everywhere either: LLVM leaves the `add rsp, 8` of an epilogue in the
  // middle of a function without a CFA update (clang's sanitizer runtime has a few), and
  // hand-written clone code switches stacks in a syscall. GCC's CFI of this program agrees at every
  // byte compared (0 of 391,237 at the time of writing); any real disagreement would be many.
  EXPECT_GT(saved_compared, 100000u);
  EXPECT_LE(saved_mismatches * 10000, saved_compared)
      << saved_mismatches << " of " << saved_compared << " saved registers compared\n"
      << first_mismatches;
  EXPECT_LE(mismatches * 10000, compared) << mismatches << " of " << compared << " bytes compared\n"
                                          << first_mismatches;
}

}  // namespace
}  // namespace jitscope::unwind
