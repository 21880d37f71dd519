// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The OProfile dump writer and reader (formats/oprofile_dump_*). The expected bytes are spelled
// out from the layout in the fact sheet (../shared/reference/perf-jitdump-oprofile.md §4.3), not
// from oprofile_dump_format.h, so a wrong struct there fails here.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/le_bytes.h"
#include "../support/subprocess.h"
#include "jitscope/base/files.h"
#include "jitscope/formats/oprofile_dump_reader.h"
#include "jitscope/formats/oprofile_dump_writer.h"

namespace jitscope::formats {
namespace {

using test_support::AsBytes;
using test_support::LeBytes;
using test_support::ReadFile;
using test_support::TempDir;

constexpr uint64_t kT0 = 1700000000;
const uint8_t kCode[] = {0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3};

// A writer over a fresh file in `dir`.
OprofileDumpWriter NewWriter(const TempDir& dir, uint64_t timestamp,
                             const OprofileBfdTarget& target = kOprofileBfdX86_64) {
  auto fd = base::CreateExclusive(dir.path(), "t.dump");
  EXPECT_TRUE(fd.ok());
  auto writer = OprofileDumpWriter::Create(std::move(fd).value(), target, timestamp);
  EXPECT_TRUE(writer.ok()) << writer.status().message();
  return std::move(writer).value();
}

LeBytes ExpectedHeader() {
  LeBytes b;
  b.U32(0x4F74496A)  // magic
      .U32(1)        // version
      .U32(48)       // 32 + "elf64-x86-64\0" (13) = 45, padded to 48
      .U32(8)        // bfd_arch_i386 (binutils 2.40)
      .U32(8)        // bfd_mach_x86_64
      .U32(0)        // alignment hole
      .U64(kT0)
      .CString("elf64-x86-64")
      .PadTo8();
  return b;
}

TEST(OprofileDumpWriterTest, WritesOprofileBytesExactly) {
  TempDir dir;
  auto writer = NewWriter(dir, kT0);

  trace::OprofileCodeLoadEvent with_code{1,
                                         0x7f0000001000,
                                         reinterpret_cast<uintptr_t>(kCode),
                                         sizeof(kCode),
                                         "Foo.bar()V",
                                         {kCode, sizeof(kCode)}};
  trace::OprofileCodeLoadEvent without_code{2, 0x7f0000002000, 0, 64, "stub", {}};
  const trace::OprofileLineEntry lines[] = {
      {0x7f0000001000, 10, 0}, {0x7f0000001002, 11, 1}, {0x7f0000001004, 12, 0}};
  const uint32_t ends[] = {8, 16};
  trace::OprofileDebugLinesEvent debug{
      1,     reinterpret_cast<uintptr_t>(kCode),        0x7f0000001000, sizeof(kCode),
      lines, trace::FileTable{ends, "Foo.javaBar.java"}};
  ASSERT_TRUE(writer.Write(with_code, kT0 + 1).ok());
  ASSERT_TRUE(writer.Write(without_code, kT0 + 2).ok());
  ASSERT_TRUE(writer.Write(debug, kT0 + 3).ok());
  ASSERT_TRUE(writer.Write(trace::OprofileDebugLinesEvent{}, kT0 + 4).ok());  // 0 entries: nothing
  ASSERT_TRUE(writer.Write(trace::OprofileUnloadEvent{1, 0x7f0000001000, 6}, kT0 + 5).ok());
  ASSERT_TRUE(writer.Write(trace::OprofileOpenEvent{3}, kT0 + 6).ok());  // nothing
  ASSERT_TRUE(writer.Write(trace::OprofileCloseEvent{1}, kT0 + 7).ok());
  EXPECT_FALSE(writer.Write(trace::ShutdownEvent{}, kT0 + 8).ok());

  LeBytes e = ExpectedHeader();
  // CODE_LOAD with code: 40 + "Foo.bar()V\0" (11) + 6 code bytes = 57 → 64.
  e.U32(0).U32(64).U64(kT0 + 1).U64(0x7f0000001000).U64(reinterpret_cast<uintptr_t>(kCode));
  e.U32(6).U32(0).CString("Foo.bar()V");
  e.Raw({reinterpret_cast<const char*>(kCode), sizeof(kCode)}).PadTo8();
  // CODE_LOAD without code: code_addr 0, code_size kept, no bytes: 40 + 5 = 45 → 48.
  e.U32(0).U32(48).U64(kT0 + 2).U64(0x7f0000002000).U64(0).U32(64).U32(0);
  e.CString("stub").PadTo8();
  // DEBUG_INFO: 32 + 3 × (12 + 9) = 95 → 96; entries packed, each with its full file name.
  e.U32(3).U32(96).U64(kT0 + 3).U64(reinterpret_cast<uintptr_t>(kCode)).U32(3).U32(0);
  e.U64(0x7f0000001000).U32(10).CString("Foo.java");
  e.U64(0x7f0000001002).U32(11).CString("Bar.java");
  e.U64(0x7f0000001004).U32(12).CString("Foo.java").PadTo8();
  e.U32(1).U32(24).U64(kT0 + 5).U64(0x7f0000001000);  // UNLOAD: 24 bytes
  e.U32(2).U32(16).U64(kT0 + 7);                      // CLOSE: 16 bytes

  EXPECT_EQ(ReadFile(dir.path() + "/t.dump"), e.str());
}

TEST(OprofileDumpReaderTest, ReadsWhatTheWriterWrote) {
  TempDir dir;
  auto writer = NewWriter(dir, kT0);
  const trace::OprofileLineEntry lines[] = {{0x1000, 7, 0}};
  const uint32_t ends[] = {6};
  ASSERT_TRUE(
      writer.Write(trace::OprofileCodeLoadEvent{1, 0x1000, 0x5000, 6, "f", {kCode, 6}}, kT0).ok());
  ASSERT_TRUE(
      writer
          .Write(trace::OprofileDebugLinesEvent{1, 0x5000, 0x1000, 6, lines, {ends, "f.java"}}, kT0)
          .ok());
  ASSERT_TRUE(writer.Write(trace::OprofileCloseEvent{1}, kT0 + 1).ok());
  const std::string file = ReadFile(dir.path() + "/t.dump");
  const auto bytes = AsBytes(file);
  auto dump = ParseOprofileDump(bytes);
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_TRUE(dump->damage.ok());
  EXPECT_EQ(dump->header.bfd_target, "elf64-x86-64");
  EXPECT_EQ(dump->header.timestamp, kT0);
  ASSERT_EQ(dump->records.size(), 3u);
  const auto& load = std::get<OprofileDumpCodeLoad>(dump->records[0].body);
  EXPECT_EQ(load.vma, 0x1000u);
  EXPECT_EQ(load.code_addr, 0x5000u);
  EXPECT_EQ(load.name, "f");
  EXPECT_EQ(std::vector<uint8_t>(load.code.begin(), load.code.end()),
            std::vector<uint8_t>(kCode, kCode + 6));
  const auto& info = std::get<OprofileDumpDebugInfo>(dump->records[1].body);
  ASSERT_EQ(info.lines.size(), 1u);
  EXPECT_EQ(info.lines[0].vma, 0x1000u);
  EXPECT_EQ(info.lines[0].line, 7u);
  EXPECT_EQ(info.lines[0].file, "f.java");
  EXPECT_TRUE(std::holds_alternative<OprofileDumpClose>(dump->records[2].body));
  EXPECT_EQ(dump->records[2].timestamp, kT0 + 1);

  // Every prefix of the file is either the header error or a clean/torn parse: never a crash.
  for (size_t size = 0; size < bytes.size(); ++size) {
    auto partial = ParseOprofileDump({bytes.data(), size});
    if (!partial.ok()) continue;
    EXPECT_LE(partial->records.size(), 3u);
    EXPECT_TRUE(partial->damage.ok()) << size;
  }
}

// What libopagent writes in a 32-bit x86 process: `struct jitheader` is 28 bytes there (the u64
// timestamp is 4-aligned, so no hole before it) and each debug entry's `unsigned long vma` is 4
// bytes; the records themselves are the same as on LP64.
TEST(OprofileDumpWriterTest, WritesTheI386LayoutExactly) {
  TempDir dir;
  auto writer = NewWriter(dir, kT0, kOprofileBfdI386);
  const trace::OprofileLineEntry lines[] = {{0x8049000, 10, 0}, {0x8049004, 11, 1}};
  const uint32_t ends[] = {8, 16};
  ASSERT_TRUE(
      writer
          .Write(trace::OprofileCodeLoadEvent{1, 0x8049000, 0x8049000, 6, "f", {kCode, 6}}, kT0 + 1)
          .ok());
  ASSERT_TRUE(writer
                  .Write(
                      trace::OprofileDebugLinesEvent{
                          1, 0x8049000, 0x8049000, 6, lines, {ends, "Foo.javaBar.java"}},
                      kT0 + 2)
                  .ok());
  ASSERT_TRUE(writer.Write(trace::OprofileUnloadEvent{1, 0x8049000, 6}, kT0 + 3).ok());
  // A 64-bit address cannot be written in a 4-byte vma: refused, nothing written.
  const trace::OprofileLineEntry far[] = {{0x100000000, 1, 0}};
  EXPECT_EQ(
      writer
          .Write(
              trace::OprofileDebugLinesEvent{1, 0x8049000, 0x8049000, 6, far, {ends, "Foo.java"}},
              kT0 + 4)
          .message(),
      "line address 0x100000000 does not fit the i386 layout's vma");

  LeBytes e;
  e.U32(0x4F74496A)  // magic
      .U32(1)        // version
      .U32(40)       // 28 + "elf32-i386\0" (11) = 39, padded to 40
      .U32(8)        // bfd_arch_i386
      .U32(4)        // bfd_mach_i386_i386
      .U64(kT0)      // at offset 20
      .CString("elf32-i386")
      .PadTo8();
  // CODE_LOAD: 40 + "f\0" + 6 code bytes = 48.
  e.U32(0).U32(48).U64(kT0 + 1).U64(0x8049000).U64(0x8049000).U32(6).U32(0).CString("f");
  e.Raw({reinterpret_cast<const char*>(kCode), sizeof(kCode)}).PadTo8();
  // DEBUG_INFO: 32 + 2 × (4 + 4 + 9) = 66 → 72.
  e.U32(3).U32(72).U64(kT0 + 2).U64(0x8049000).U32(2).U32(0);
  e.U32(0x8049000).U32(10).CString("Foo.java");
  e.U32(0x8049004).U32(11).CString("Bar.java").PadTo8();
  e.U32(1).U32(24).U64(kT0 + 3).U64(0x8049000);  // UNLOAD
  const std::string file = ReadFile(dir.path() + "/t.dump");
  EXPECT_EQ(file, e.str());

  // The 64-bit reader takes the layout from the header, not from its own word size.
  auto dump = ParseOprofileDump(AsBytes(file));
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_TRUE(dump->damage.ok()) << dump->damage.message();
  EXPECT_EQ(dump->header.bfd_target, "elf32-i386");
  EXPECT_EQ(dump->header.timestamp, kT0);
  EXPECT_EQ(dump->header.layout, kOprofileLayoutI386);
  ASSERT_EQ(dump->records.size(), 3u);
  const auto& info = std::get<OprofileDumpDebugInfo>(dump->records[1].body);
  ASSERT_EQ(info.lines.size(), 2u);
  EXPECT_EQ(info.lines[1].vma, 0x8049004u);
  EXPECT_EQ(info.lines[1].line, 11u);
  EXPECT_EQ(info.lines[1].file, "Bar.java");
  EXPECT_EQ(std::get<OprofileDumpUnload>(dump->records[2].body).vma, 0x8049000u);
}

// ILP32 ABIs that align u64 to 8 (ARM EABI, x32) keep the 32-byte header; their target name
// ("elf32-...") says the debug entries' vma is 4 bytes.
TEST(OprofileDumpReaderTest, ReadsTheAlignedIlp32Layout) {
  LeBytes b;
  b.U32(0x4F74496A).U32(1).U32(48).U32(2).U32(0).U32(0).U64(kT0);
  b.CString("elf32-littlearm").PadTo8();
  b.U32(3).U32(48).U64(kT0).U64(0x10000).U32(1).U32(0).U32(0x10000).U32(5).CString("a.js");
  b.PadTo8();
  auto dump = ParseOprofileDump(AsBytes(b.str()));
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_TRUE(dump->damage.ok()) << dump->damage.message();
  EXPECT_EQ(dump->header.bfd_target, "elf32-littlearm");
  EXPECT_EQ(dump->header.layout, kOprofileLayoutIlp32Aligned);
  EXPECT_EQ(dump->header.timestamp, kT0);
  const auto& info = std::get<OprofileDumpDebugInfo>(dump->records.at(0).body);
  ASSERT_EQ(info.lines.size(), 1u);
  EXPECT_EQ(info.lines[0].vma, 0x10000u);
  EXPECT_EQ(info.lines[0].line, 5u);
  EXPECT_EQ(info.lines[0].file, "a.js");
}

TEST(OprofileDumpReaderTest, ReportsDamageAndTornTails) {
  const LeBytes header = ExpectedHeader();
  {
    LeBytes b = header;
    b.U32(9).U32(16).U64(kT0);  // unknown id: opjitconv fails the file
    auto dump = ParseOprofileDump(AsBytes(b.str()));
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->damage.message(), "damaged OProfile dump at offset 48: unknown record id");
  }
  {
    LeBytes b = header;
    b.U32(0).U32(48).U64(kT0).U64(1).U64(0).U32(0).U32(0).Raw("xxxxxxxx");  // name without NUL
    auto dump = ParseOprofileDump(AsBytes(b.str()));
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->damage.message(),
              "damaged OProfile dump at offset 48: code load name is not terminated");
  }
  {
    LeBytes b = header;
    b.U32(3).U32(40).U64(kT0).U64(1).U32(0xFFFFFFFF).U32(0).U64(0);  // 4 billion entries in 8 bytes
    auto dump = ParseOprofileDump(AsBytes(b.str()));
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->damage.message(),
              "damaged OProfile dump at offset 48: debug info record is shorter than its entries");
  }
  {
    LeBytes b = header;
    b.U32(1).U32(4096).U64(kT0).U64(1);  // a record the writer did not finish
    auto dump = ParseOprofileDump(AsBytes(b.str()));
    ASSERT_TRUE(dump.ok());
    EXPECT_TRUE(dump->damage.ok());
    EXPECT_EQ(dump->torn_records, 1u);
  }
  {
    std::string b = header.str();
    std::swap(b[0], b[3]), std::swap(b[1], b[2]);
    auto dump = ParseOprofileDump(AsBytes(b));
    ASSERT_FALSE(dump.ok());
    EXPECT_EQ(dump.status().message(),
              "OProfile dump written on a machine of the other byte order (not supported)");
  }
}

}  // namespace
}  // namespace jitscope::formats
