// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// CfiModule hands libdw no table an entry of which names a register past 255 (cfi_sanity.h):
// such a table finds no rows, at once and without gigabytes, whether the register is in a CIE or
// an FDE, an engine's .eh_frame or a file's, and whether libdw reaches the entry by walking the
// table or through the .eh_frame_hdr index. An entry libdw cannot reach refuses nothing.
#include <elf.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/registered_frames.h"
#include "jitscope/unwind/cfi_module.h"
#include "support/byte_builder.h"
#include "support/eh_frame_builder.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::unwind {
namespace {

using test_support::ByteBuilder;
using test_support::EhFrameBuilder;
using test_support::UndefinedRegister;

constexpr uint8_t kPcRelSdata4 = 0x1b;
constexpr uint64_t kEhFrame = 0x7f0000100000;
constexpr uint64_t kCode = 0x7f0000200000;

// A CIE, then an FDE for [kCode, kCode + 0x10) naming `fde_register`, then the terminator.
EhFrameBuilder OneFunction(uint64_t cie_register, uint64_t fde_register) {
  EhFrameBuilder eh;
  eh.set_address(kEhFrame);
  const std::string cie_instructions =
      std::string(test_support::kDefCfaRspPlus8) + UndefinedRegister(cie_register);
  const size_t cie = eh.Cie(kPcRelSdata4, "", cie_instructions);
  eh.Fde(cie, kCode, 0x10, kPcRelSdata4, true, UndefinedRegister(fde_register));
  return eh;
}

TEST(CfiSanityTest, AnEnginesTableNamingARegisterPast255FindsNoRows) {
  for (const auto& [cie_register, fde_register, sane] : {std::tuple{1, 2, true},
                                                         {255, 255, true},
                                                         {uint64_t{1} << 31, 2, false},
                                                         {1, uint64_t{1} << 31, false},
                                                         {1, 256, false}}) {
    SCOPED_TRACE(testing::Message() << cie_register << " " << fde_register);
    EhFrameBuilder eh = OneFunction(cie_register, fde_register);
    eh.Terminator();
    auto module = CfiModule::FromEhFrame(eh.bytes(), kEhFrame);
    ASSERT_TRUE(module.ok()) << module.status().message();
    const CfiRow* row = (*module)->Find(kCode + 4);
    EXPECT_EQ(row != nullptr, sane);
    EXPECT_EQ((*module)->refused_cfi(), !sane);
  }
}

TEST(CfiSanityTest, AnEntryLibdwCannotReachRefusesNothing) {
  // A hostile FDE after the terminator: libdw's walk ends before it.
  EhFrameBuilder eh = OneFunction(1, 2);
  eh.Terminator();
  const size_t cie = eh.Cie(kPcRelSdata4);
  eh.Fde(cie, kCode + 0x100, 0x10, kPcRelSdata4, true, UndefinedRegister(uint64_t{1} << 31));
  auto module = CfiModule::FromEhFrame(eh.bytes(), kEhFrame);
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_NE((*module)->Find(kCode + 4), nullptr);
  EXPECT_EQ((*module)->Find(kCode + 0x104), nullptr);
  EXPECT_FALSE((*module)->refused_cfi());
}

// An ELF file of sections .eh_frame_hdr (when `hdr` is not empty) and .eh_frame, at their
// addresses, as a linker lays them out for dwarf_getcfi_elf.
std::string ElfFile(const std::string& hdr, uint64_t hdr_address, const std::vector<uint8_t>& eh,
                    uint64_t eh_address) {
  const std::string names = std::string("\0.eh_frame_hdr\0.eh_frame\0.shstrtab\0", 35);
  struct Section {
    uint32_t name;
    uint32_t type;
    uint64_t address;
    std::string bytes;
  };
  std::vector<Section> sections = {{0, SHT_NULL, 0, ""}};
  if (!hdr.empty()) sections.push_back({1, SHT_PROGBITS, hdr_address, hdr});
  sections.push_back({15, SHT_PROGBITS, eh_address, std::string(eh.begin(), eh.end())});
  sections.push_back({25, SHT_STRTAB, 0, names});
  std::string file(sizeof(Elf64_Ehdr), '\0');
  std::vector<Elf64_Shdr> headers;
  for (const Section& section : sections) {
    file.resize((file.size() + 7) / 8 * 8, '\0');
    Elf64_Shdr header{};
    header.sh_name = section.name;
    header.sh_type = section.type;
    header.sh_flags = section.type == SHT_PROGBITS ? SHF_ALLOC : 0;
    header.sh_addr = section.address;
    header.sh_offset = section.bytes.empty() ? 0 : file.size();
    header.sh_size = section.bytes.size();
    header.sh_addralign = 1;
    headers.push_back(header);
    file += section.bytes;
  }
  file.resize((file.size() + 7) / 8 * 8, '\0');
  Elf64_Ehdr ehdr{};
  std::memcpy(ehdr.e_ident, ELFMAG, SELFMAG);
  ehdr.e_ident[EI_CLASS] = ELFCLASS64;
  ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
  ehdr.e_ident[EI_VERSION] = EV_CURRENT;
  ehdr.e_type = ET_DYN;
  ehdr.e_machine = EM_X86_64;
  ehdr.e_version = EV_CURRENT;
  ehdr.e_ehsize = sizeof(Elf64_Ehdr);
  ehdr.e_shoff = file.size();
  ehdr.e_shentsize = sizeof(Elf64_Shdr);
  ehdr.e_shnum = static_cast<uint16_t>(headers.size());
  ehdr.e_shstrndx = static_cast<uint16_t>(headers.size() - 1);
  std::memcpy(file.data(), &ehdr, sizeof(ehdr));
  file.append(reinterpret_cast<const char*>(headers.data()), headers.size() * sizeof(Elf64_Shdr));
  return file;
}

// An .eh_frame_hdr at `address` whose search table holds one entry: `pc` → the FDE at
// `fde_offset` of the .eh_frame at kEhFrame.
std::string Index(uint64_t address, uint64_t pc, uint64_t fde_offset) {
  ByteBuilder hdr;
  hdr.Int<uint8_t>(1).Int<uint8_t>(0x1b).Int<uint8_t>(0x03).Int<uint8_t>(0x3b);
  hdr.Int<int32_t>(static_cast<int32_t>(kEhFrame - (address + 4)));
  hdr.U32(1);
  hdr.Int<int32_t>(static_cast<int32_t>(pc - address));
  hdr.Int<int32_t>(static_cast<int32_t>(kEhFrame + fde_offset - address));
  return hdr.str();
}

TEST(CfiSanityTest, AFileWhoseIndexLeadsToAHostileEntryFindsNoRows) {
  // A sane function, the terminator, then a hostile FDE only the index leads to.
  EhFrameBuilder eh = OneFunction(1, 2);
  eh.Terminator();
  const size_t cie = eh.Cie(kPcRelSdata4);
  const size_t hostile =
      eh.Fde(cie, kCode + 0x100, 0x10, kPcRelSdata4, true, UndefinedRegister(uint64_t{1} << 31));
  constexpr uint64_t kHdr = kEhFrame - 0x100;
  test_support::TempDir temp;
  const auto open = [&](const std::string& name, const std::string& hdr) {
    const std::string path = temp.path() + "/" + name;
    EXPECT_TRUE(test_support::WriteFile(path, ElfFile(hdr, kHdr, eh.bytes(), kEhFrame)));
    auto module = CfiModule::Open(path);
    EXPECT_TRUE(module.ok()) << module.status().message();
    return std::move(*module);
  };

  auto unindexed = open("unindexed", "");
  EXPECT_NE(unindexed->Find(kCode + 4), nullptr);
  EXPECT_FALSE(unindexed->refused_cfi());

  auto indexed = open("indexed", Index(kHdr, kCode + 0x100, hostile));
  EXPECT_EQ(indexed->Find(kCode + 0x104), nullptr);
  EXPECT_EQ(indexed->Find(kCode + 4), nullptr);
  EXPECT_TRUE(indexed->refused_cfi());
}

TEST(CfiSanityTest, TheFuzzersTableNamingRegister260MillionIsRefused) {
  // The registered_frames fuzzer's input whose second FDE says DW_CFA_restore_extended for
  // register 262,019,596: libdw allocated and cleared gigabytes at a lookup before it was
  // refused.
  const std::string file = test_support::ReadFile(JITSCOPE_FRAMES_SEEDS "/hostile_register.jsf");
  ASSERT_FALSE(file.empty());
  auto parsed = formats::ParseRegisteredFrames(test_support::AsBytes(file), "hostile_register");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->registrations.size(), 1u);
  const formats::FrameRegistration& registration = parsed->registrations[0];
  ASSERT_FALSE(registration.ranges.empty());
  auto module = CfiModule::FromEhFrame(registration.eh_frame, registration.address);
  ASSERT_TRUE(module.ok()) << module.status().message();
  for (const formats::CodeRange& range : registration.ranges) {
    EXPECT_EQ((*module)->Find(range.begin), nullptr);
  }
  EXPECT_TRUE((*module)->refused_cfi());
}

}  // namespace
}  // namespace jitscope::unwind
