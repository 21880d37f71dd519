// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A compact copy of an ELF file (record/compact_copy.h, session/compact_elf.h), of this test's
// own program, for a session that names and unwinds one of its functions: the same headers and
// build id, of the symbol and unwind tables what names and unwinds that function, the code asked
// for kept at its addresses, the rest left out; the report's symbolizer and unwind::CfiModule
// find the same in it for that function, and nothing for another.
#include "jitscope/record/compact_copy.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/record/eh_frame_subset.h"
#include "jitscope/report/native_symbolizer.h"
#include "jitscope/session/compact_elf.h"
#include "jitscope/session/elf_build_id.h"
#include "jitscope/unwind/cfi_module.h"
#include "support/eh_frame_builder.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::record {
namespace {

// Functions of this program whose addresses in its file the test knows.
__attribute__((noinline)) int Plus(int a, int b) {
  asm volatile("" ::: "memory");
  return a + b;
}
__attribute__((noinline)) int Times(int a, int b) {
  asm volatile("" ::: "memory");
  return a * b;
}

// The address of `code` in this program's file.
uint64_t FileAddressOf(const void* code) {
  Dl_info info{};
  EXPECT_NE(dladdr(code, &info), 0);
  return reinterpret_cast<uintptr_t>(code) - reinterpret_cast<uintptr_t>(info.dli_fbase);
}

// The offset in this program's file of its address `address`.
uint64_t FileOffsetOf(uint64_t address) {
  auto module = unwind::CfiModule::Open("/proc/self/exe");
  EXPECT_TRUE(module.ok());
  for (uint64_t offset = address & ~uint64_t{0xfff}; module.ok() && offset < (1u << 30);
       offset += 0x1000) {
    uint64_t at = 0;
    if ((*module)->FileOffsetToAddress(offset, at) && at == (address & ~uint64_t{0xfff})) {
      return offset + (address & 0xfff);
    }
  }
  ADD_FAILURE() << "no offset for " << address;
  return 0;
}

// The address of the function that follows the one at `address` in the symbol table of `path`:
// the compiler, not the source, orders functions (clang emits internal ones as they are used).
uint64_t NextFunctionAfter(const std::string& path, uint64_t address) {
  uint64_t next = UINT64_MAX;
  const base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr);
  for (Elf_Scn* scn = nullptr; elf != nullptr && (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr header;
    if (gelf_getshdr(scn, &header) == nullptr || header.sh_type != SHT_SYMTAB) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t i = 0; data != nullptr && i < header.sh_size / header.sh_entsize; ++i) {
      GElf_Sym symbol;
      if (gelf_getsym(data, static_cast<int>(i), &symbol) != nullptr &&
          GELF_ST_TYPE(symbol.st_info) == STT_FUNC && symbol.st_value > address) {
        next = std::min<uint64_t>(next, symbol.st_value);
      }
    }
  }
  if (elf != nullptr) elf_end(elf);
  EXPECT_NE(next, UINT64_MAX) << "no function after " << address << " in " << path;
  return next;
}

struct Section {
  std::string name;
  GElf_Shdr header;
  std::string bytes;  // "" for SHT_NOBITS
};

std::vector<Section> SectionsOf(const std::string& path, std::vector<GElf_Phdr>* phdrs = nullptr) {
  std::vector<Section> sections;
  const base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_TRUE(fd) << path;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr);
  EXPECT_NE(elf, nullptr) << path;
  if (elf == nullptr) return sections;
  size_t names = 0;
  EXPECT_EQ(elf_getshdrstrndx(elf, &names), 0);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    Section section;
    gelf_getshdr(scn, &section.header);
    section.name = elf_strptr(elf, names, section.header.sh_name);
    if (section.header.sh_type != SHT_NOBITS) {
      Elf_Data* data = elf_rawdata(scn, nullptr);
      if (data != nullptr && data->d_buf != nullptr) {
        section.bytes.assign(static_cast<const char*>(data->d_buf), data->d_size);
      }
    }
    sections.push_back(std::move(section));
  }
  size_t count = 0;
  if (phdrs != nullptr && elf_getphdrnum(elf, &count) == 0) {
    for (size_t i = 0; i < count; ++i) {
      GElf_Phdr phdr;
      gelf_getphdr(elf, static_cast<int>(i), &phdr);
      phdrs->push_back(phdr);
    }
  }
  elf_end(elf);
  return sections;
}

class CompactCopyTest : public ::testing::Test {
 protected:
  // Writes the compact copy of this program for a session that reads `parts` of it.
  std::string Copy(const SessionParts& parts) {
    const base::ScopedFd source(::open(kProgram, O_RDONLY | O_CLOEXEC));
    EXPECT_TRUE(source);
    const std::string copy = temp_.path() + "/copy";
    const base::ScopedFd out(::open(copy.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    EXPECT_TRUE(out);
    const base::Status written = WriteCompactCopy(source.get(), kProgram, parts, out.get());
    EXPECT_TRUE(written.ok()) << written.message();
    return copy;
  }
  static constexpr char kProgram[] = "/proc/self/exe";
  test_support::TempDir temp_;
};

TEST_F(CompactCopyTest, KeepsTheHeadersNamesAndUnwindTablesAndLeavesOutTheRest) {
  const uint64_t plus = FileAddressOf(reinterpret_cast<const void*>(&Plus));
  const std::string copy =
      Copy({.code = {{plus, plus + 16}}, .rows = {plus + 1}, .named = {FileOffsetOf(plus + 2)}});
  EXPECT_EQ(session::BuildIdOfFile(copy), session::BuildIdOfFile(kProgram));
  EXPECT_FALSE(session::BuildIdOfFile(copy).empty());

  std::vector<GElf_Phdr> original_phdrs, copy_phdrs;
  const std::vector<Section> original = SectionsOf(kProgram, &original_phdrs);
  const std::vector<Section> compact = SectionsOf(copy, &copy_phdrs);
  ASSERT_EQ(copy_phdrs.size(), original_phdrs.size());
  for (size_t i = 0; i < original_phdrs.size(); ++i) {
    EXPECT_EQ(std::memcmp(&copy_phdrs[i], &original_phdrs[i], sizeof(GElf_Phdr)), 0) << i;
  }
  // The original's sections, then the marker and the piece of code.
  ASSERT_EQ(compact.size(), original.size() + 2);
  std::vector<std::string> kept;
  for (size_t i = 0; i < original.size(); ++i) {
    const Section& was = original[i];
    const Section& is = compact[i];
    EXPECT_EQ(is.name, was.name);
    EXPECT_EQ(is.header.sh_addr, was.header.sh_addr) << was.name;
    EXPECT_EQ(is.header.sh_link, was.header.sh_link) << was.name;
    if (was.header.sh_type != SHT_SYMTAB && was.header.sh_type != SHT_DYNSYM) {
      EXPECT_EQ(is.header.sh_info, was.header.sh_info) << was.name;  // its local symbols' count
    }
    if (is.header.sh_type == SHT_NOBITS) {
      EXPECT_EQ(is.header.sh_size, was.header.sh_size) << was.name;
      EXPECT_TRUE(is.bytes.empty()) << was.name;
      continue;
    }
    EXPECT_EQ(is.header.sh_type, was.header.sh_type) << was.name;
    kept.push_back(was.name);
    if (was.name == ".shstrtab") {  // with the copy's two names
      EXPECT_EQ(is.bytes, was.bytes + session::kCompactMarker + std::string(1, '\0') +
                              session::kKeptCode + std::string(1, '\0'));
      continue;
    }
    // The symbol and string tables and the .eh_frame are parts of what they were (below).
    if (was.header.sh_type == SHT_SYMTAB || was.header.sh_type == SHT_DYNSYM ||
        was.header.sh_type == SHT_STRTAB || was.name == ".eh_frame") {
      EXPECT_LT(is.bytes.size(), was.bytes.size()) << was.name;
      continue;
    }
    EXPECT_EQ(is.bytes, was.bytes) << was.name;
  }
  for (const char* name :
       {".note.gnu.build-id", ".dynsym", ".dynstr", ".symtab", ".strtab", ".eh_frame"}) {
    EXPECT_NE(std::find(kept.begin(), kept.end(), name), kept.end()) << name;
  }
  // The index of the .eh_frame's FDEs, which would point at those left out, goes too.
  for (const char* name :
       {".text", ".rodata", ".data", ".debug_info", ".debug_line", ".eh_frame_hdr"}) {
    EXPECT_EQ(std::find(kept.begin(), kept.end(), name), kept.end()) << name;
  }
  EXPECT_EQ(compact[original.size()].name, session::kCompactMarker);
  const Section& piece = compact[original.size() + 1];
  EXPECT_EQ(piece.name, session::kKeptCode);
  EXPECT_EQ(piece.header.sh_addr, plus);
  EXPECT_EQ(piece.header.sh_flags & SHF_ALLOC, 0u);
  EXPECT_EQ(piece.bytes, std::string(reinterpret_cast<const char*>(&Plus), 16));
  EXPECT_LT(std::filesystem::file_size(copy), std::filesystem::file_size(kProgram) / 2);
}

TEST_F(CompactCopyTest, NamesAndUnwindsAlikeWhatTheSessionReads) {
  const uint64_t plus = FileAddressOf(reinterpret_cast<const void*>(&Plus));
  const uint64_t times = FileAddressOf(reinterpret_cast<const void*>(&Times));
  const std::string path = Copy({.rows = {plus + 1}, .named = {FileOffsetOf(plus)}});
  report::NativeSymbolizer symbolizer;
  const auto named = symbolizer.FunctionAt(kProgram, FileOffsetOf(plus + 1));
  ASSERT_TRUE(named.has_value());
  EXPECT_EQ(report::Demangle(named->symbol),
            "jitscope::record::(anonymous namespace)::Plus(int, int)");
  const auto copy_named = symbolizer.FunctionAt(path, FileOffsetOf(plus + 1));
  ASSERT_TRUE(copy_named.has_value());
  EXPECT_STREQ(copy_named->symbol, named->symbol);
  EXPECT_EQ(copy_named->file_offset, named->file_offset);
  EXPECT_EQ(copy_named->size, named->size);
  // The next function is kept (it ends one without a size), one further on is not.
  const uint64_t next = NextFunctionAfter(kProgram, plus);
  EXPECT_TRUE(symbolizer.FunctionAt(path, FileOffsetOf(next)).has_value());
  uint64_t other = FileAddressOf(reinterpret_cast<const void*>(&SectionsOf));
  if (other == next) other = FileAddressOf(reinterpret_cast<const void*>(&FileOffsetOf));
  ASSERT_TRUE(symbolizer.FunctionAt(kProgram, FileOffsetOf(other)).has_value());
  EXPECT_FALSE(symbolizer.FunctionAt(path, FileOffsetOf(other)).has_value());

  auto whole = unwind::CfiModule::Open(kProgram);
  auto compact = unwind::CfiModule::Open(path);
  ASSERT_TRUE(whole.ok() && compact.ok());
  (*whole)->LogReads();
  (*compact)->LogReads();
  EXPECT_FALSE((*whole)->compact());
  EXPECT_TRUE((*compact)->compact());
  EXPECT_NE((*whole)->Find(times), nullptr);
  EXPECT_EQ((*compact)->Find(times), nullptr);  // no row looked up there, nor a name
  for (const uint64_t address : {plus, plus + 4}) {
    const unwind::CfiRow* was = (*whole)->Find(address);
    const unwind::CfiRow* is = (*compact)->Find(address);
    ASSERT_NE(was, nullptr);
    ASSERT_NE(is, nullptr);
    EXPECT_EQ(is->start, was->start);
    EXPECT_EQ(is->end, was->end);
    EXPECT_EQ(is->cfa.size(), was->cfa.size());
    EXPECT_EQ(is->return_address_register, was->return_address_register);
    EXPECT_EQ(is->defined, was->defined);
  }
  // The rows read from the tables, as read (one of Plus's rows covers the other address, or not).
  ASSERT_GE((*whole)->rows_read().size(), 2u);
  EXPECT_EQ((*whole)->rows_read()[0], times);
  EXPECT_EQ((*whole)->rows_read()[1], plus);
}

TEST_F(CompactCopyTest, ReadsOnlyTheCodeItKept) {
  const uint64_t plus = FileAddressOf(reinterpret_cast<const void*>(&Plus));
  const std::string path = Copy({.code = {{plus, plus + 8}}});
  auto whole = unwind::CfiModule::Open(kProgram);
  auto compact = unwind::CfiModule::Open(path);
  ASSERT_TRUE(whole.ok() && compact.ok());
  (*whole)->LogReads();
  (*compact)->LogReads();
  std::array<uint8_t, 8> was{}, is{};
  ASSERT_TRUE((*whole)->ReadCode(plus, was));
  ASSERT_TRUE((*compact)->ReadCode(plus, is));
  EXPECT_EQ(is, was);
  // Past the code kept, only what it has.
  std::array<uint8_t, 16> longer{};
  EXPECT_EQ((*compact)->ReadCodePrefix(plus + 4, longer).size(), 4u);
  EXPECT_FALSE((*compact)->ReadCode(plus - 1, is));
  EXPECT_TRUE((*whole)->ReadCode(plus - 1, is));
  // Each read, as read: what a compact copy of a walked file keeps.
  EXPECT_EQ((*compact)->code_read(),
            (std::vector<std::pair<uint64_t, uint64_t>>{{plus, plus + 8}, {plus + 4, plus + 8}}));
  EXPECT_EQ((*whole)->code_read(),
            (std::vector<std::pair<uint64_t, uint64_t>>{{plus, plus + 8}, {plus - 1, plus + 7}}));
}

// The functions of code without CFI (unwind/elf_functions.h) are found in a compact copy as in the
// file, from the symbols and FDEs that bounded them when the session was walked; its code
// sections, whose bytes it keeps apart, still say where code is.
TEST_F(CompactCopyTest, FindsTheFunctionsOfCodeWithoutCfiAsTheFileDoes) {
  const uint64_t plus = FileAddressOf(reinterpret_cast<const void*>(&Plus));
  auto whole = unwind::CfiModule::Open(kProgram);
  ASSERT_TRUE(whole.ok());
  (*whole)->LogReads();
  const std::optional<formats::CodeRange> function = (*whole)->FunctionWithoutCfiAt(plus + 2);
  ASSERT_TRUE(function.has_value());
  EXPECT_EQ(function->begin, plus);
  EXPECT_EQ((*whole)->function_bounds_read(), (std::vector<uint64_t>{plus + 2, plus}));
  const std::string path = Copy({.function_bounds = (*whole)->function_bounds_read()});
  auto compact = unwind::CfiModule::Open(path);
  ASSERT_TRUE(compact.ok());
  EXPECT_EQ((*compact)->FunctionWithoutCfiAt(plus + 2), function);
}

TEST(CodeRangesTest, OverlappingAndTouchingRangesAreOne) {
  CodeRanges ranges;
  AddCodeRange(ranges, 10, 20);
  AddCodeRange(ranges, 30, 40);
  AddCodeRange(ranges, 20, 25);  // touches the first
  AddCodeRange(ranges, 50, 50);  // empty
  EXPECT_EQ(ranges, (CodeRanges{{10, 25}, {30, 40}}));
  AddCodeRange(ranges, 5, 35);
  EXPECT_EQ(ranges, (CodeRanges{{5, 40}}));
  AddCodeRange(ranges, 12, 13);
  EXPECT_EQ(ranges, (CodeRanges{{5, 40}}));
}

TEST(CompactCopyErrors, NotAnElfFile) {
  test_support::TempDir temp;
  ASSERT_TRUE(test_support::WriteFile(temp.path() + "/text", "not an ELF file"));
  const base::ScopedFd source(::open((temp.path() + "/text").c_str(), O_RDONLY | O_CLOEXEC));
  const base::ScopedFd out(
      ::open((temp.path() + "/copy").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  const base::Status written = WriteCompactCopy(source.get(), "text", {}, out.get());
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.message(), "text: not an ELF file");
}

// An .eh_frame at 0x1000 of one CIE ("zR", pc-relative 4-byte pointers) whose instructions say
// DW_CFA_undefined `reg`, and one FDE for [0x2000, 0x2010).
std::string EhFrameNaming(uint64_t reg) {
  test_support::EhFrameBuilder eh;
  eh.set_address(0x1000);
  const size_t cie = eh.Cie(0x1b, "", test_support::UndefinedRegister(reg));
  eh.Fde(cie, 0x2000, 0x10, 0x1b);
  eh.Terminator();
  return std::string(eh.bytes().begin(), eh.bytes().end());
}

TEST(EhFrameSubsetTest, InstructionsNamingAHostileRegisterAreRefused) {
  // libdw would size every row it reads for 2^31 registers: gigabytes per lookup.
  const std::optional<std::string> sane = EhFrameSubset(EhFrameNaming(6), 0x1000, {0x2004});
  ASSERT_TRUE(sane.has_value());
  EXPECT_EQ(*sane, EhFrameNaming(6));  // the FDE covers the pc: everything is kept
  EXPECT_FALSE(EhFrameSubset(EhFrameNaming(uint64_t{1} << 31), 0x1000, {0x2004}).has_value());
  EXPECT_FALSE(EhFrameSubset(EhFrameNaming(256), 0x1000, {0x2004}).has_value());
  EXPECT_TRUE(EhFrameSubset(EhFrameNaming(255), 0x1000, {0x2004}).has_value());
}

}  // namespace
}  // namespace jitscope::record
