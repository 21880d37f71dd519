// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The OProfile dump writer and its one reader (formats/oprofile_dump_*). The expected bytes are
// spelled out from the layout of OProfile's jitdump.h (docs/sources.md), not
// from oprofile_dump_format.h, so a wrong struct there fails here.
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/formats/oprofile_dump_reader.h"
#include "jitscope/formats/oprofile_dump_writer.h"
#include "support/byte_builder.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::formats {
namespace {

using test_support::AsBytes;
using test_support::ByteBuilder;
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

ByteBuilder ExpectedHeader() {
  ByteBuilder b;
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

  ByteBuilder e = ExpectedHeader();
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
  auto dump = ParseOprofileDump(bytes, "t.dump");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_TRUE(dump->error.ok()) << dump->error.message();
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
    auto partial = ParseOprofileDump({bytes.data(), size}, "t.dump");
    if (!partial.ok()) continue;
    EXPECT_LE(partial->records.size(), 3u);
    EXPECT_TRUE(partial->error.ok()) << size << ": " << partial->error.message();
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

  ByteBuilder e;
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
  auto dump = ParseOprofileDump(AsBytes(file), "t.dump");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_TRUE(dump->error.ok()) << dump->error.message();
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
  ByteBuilder b;
  b.U32(0x4F74496A).U32(1).U32(48).U32(2).U32(0).U32(0).U64(kT0);
  b.CString("elf32-littlearm").PadTo8();
  b.U32(3).U32(48).U64(kT0).U64(0x10000).U32(1).U32(0).U32(0x10000).U32(5).CString("a.js");
  b.PadTo8();
  auto dump = ParseOprofileDump(AsBytes(b.str()), "t.dump");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_TRUE(dump->error.ok()) << dump->error.message();
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
  const ByteBuilder header = ExpectedHeader();
  {
    ByteBuilder b = header;
    // An unknown id: opjitconv fails the file; this reader skips it, counts it, reads on.
    b.U32(9).U32(24).U64(kT0).U64(0);
    b.U32(1).U32(24).U64(kT0 + 1).U64(0x1000);
    auto dump = ParseOprofileDump(AsBytes(b.str()), "t.dump");
    ASSERT_TRUE(dump.ok());
    EXPECT_TRUE(dump->error.ok()) << dump->error.message();
    EXPECT_EQ(dump->stats.unknown_records, 1u);
    ASSERT_EQ(dump->records.size(), 1u);
    EXPECT_EQ(dump->records[0].offset, 72u);
    EXPECT_EQ(std::get<OprofileDumpUnload>(dump->records[0].body).vma, 0x1000u);
  }
  {
    ByteBuilder b = header;
    b.U32(0).U32(48).U64(kT0).U64(1).U64(0).U32(0).U32(0).Raw("xxxxxxxx");  // name without NUL
    auto dump = ParseOprofileDump(AsBytes(b.str()), "t.dump");
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->error.message(),
              "t.dump: offset 48: CODE_LOAD name is not NUL-terminated inside the record");
  }
  {
    ByteBuilder b = header;
    b.U32(0).U32(48).U64(kT0).U64(1).U64(1).U32(8).U32(0).CString("f").PadTo8();  // 6 code bytes
    auto dump = ParseOprofileDump(AsBytes(b.str()), "t.dump");
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->error.message(),
              "t.dump: offset 48: CODE_LOAD record is shorter than its code");
    EXPECT_TRUE(dump->records.empty());
  }
  {
    ByteBuilder b = header;
    b.U32(3).U32(40).U64(kT0).U64(1).U32(0xFFFFFFFF).U32(0).U64(0);  // 4 billion entries in 8 bytes
    auto dump = ParseOprofileDump(AsBytes(b.str()), "t.dump");
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->error.message(),
              "t.dump: offset 48: DEBUG_INFO claims 4294967295 entries, more than its record can "
              "hold");
  }
  {
    ByteBuilder b = header;
    b.U32(3).U32(48).U64(kT0).U64(1).U32(1).U32(0).U64(1).U32(2).CString("a").Raw("x").PadTo8();
    auto dump = ParseOprofileDump(AsBytes(b.str()), "t.dump");
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->error.message(),
              "t.dump: offset 48: DEBUG_INFO has bytes after its entries that are not padding");
  }
  {
    ByteBuilder b = header;
    b.U32(1).U32(4096).U64(kT0).U64(1);  // a record the writer did not finish
    auto dump = ParseOprofileDump(AsBytes(b.str()), "t.dump");
    ASSERT_TRUE(dump.ok());
    EXPECT_TRUE(dump->error.ok()) << dump->error.message();
    EXPECT_EQ(dump->stats.torn_records, 1u);
  }
  {
    ByteBuilder b = header;
    b.U32(2).U32(16).U64(kT0).Raw(std::string(24, '\0'));  // zero bytes after the last record
    auto dump = ParseOprofileDump(AsBytes(b.str()), "t.dump");
    ASSERT_TRUE(dump.ok());
    EXPECT_TRUE(dump->error.ok()) << dump->error.message();
    EXPECT_EQ(dump->stats.torn_records, 0u);
    EXPECT_EQ(dump->records.size(), 1u);
  }
  {
    ByteBuilder b = header;
    b.U32(2).U32(8).U64(kT0);  // smaller than its own prefix
    auto dump = ParseOprofileDump(AsBytes(b.str()), "t.dump");
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->error.message(),
              "t.dump: offset 48: record size 8 is smaller than the 16-byte record header");
  }
  {
    std::string b = header.str();
    std::swap(b[0], b[3]), std::swap(b[1], b[2]);
    auto dump = ParseOprofileDump(AsBytes(b), "t.dump");
    ASSERT_FALSE(dump.ok());
    EXPECT_EQ(dump.status().message(),
              "t.dump: OProfile dump written on a machine of the other byte order (not supported)");
  }
}

// An OProfile dump as libopagent writes it on x86-64 (OProfile's jitdump.h), built record by
// record: each record's total_size counts its prefix and its padding to 8.
class Dump {
 public:
  Dump() {
    b_.U32(0x4F74496A).U32(1).U32(48).U32(9).U32(64).U32(0).U64(1700000000);
    b_.CString("elf64-x86-64").PadTo8();
  }
  Dump& Load(uint64_t seconds, uint64_t vma, uint32_t size, std::string_view name, bool code) {
    ByteBuilder r;
    r.U64(vma).U64(code ? vma : 0).U32(size).U32(0).CString(name);
    if (code) r.Raw(std::string(size, '\0'));
    return Record(0, seconds, r);
  }
  Dump& Debug(uint64_t seconds, uint64_t code,
              std::vector<std::tuple<uint64_t, uint32_t, std::string_view>> entries) {
    ByteBuilder r;
    r.U64(code).U32(static_cast<uint32_t>(entries.size())).U32(0);
    for (auto [vma, line, file] : entries) r.U64(vma).U32(line).CString(file);
    return Record(3, seconds, r);
  }
  Dump& Unload(uint64_t seconds, uint64_t vma) {
    return Record(1, seconds, ByteBuilder().U64(vma));
  }
  Dump& Close(uint64_t seconds) { return Record(2, seconds, ByteBuilder()); }
  Dump& Raw(std::string_view s) {
    b_.Raw(s);
    return *this;
  }
  const std::string& str() const { return b_.str(); }

 private:
  Dump& Record(uint32_t id, uint64_t seconds, ByteBuilder body) {
    body.PadTo8();  // the 16-byte prefix keeps the record padded to 8
    b_.U32(id).U32(static_cast<uint32_t>(16 + body.str().size())).U64(seconds).Raw(body.str());
    return *this;
  }
  ByteBuilder b_;
};

ParsedOprofileDump Parse(const std::string& bytes) {
  auto parsed = ParseOprofileDump(AsBytes(bytes), "1234.dump");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(parsed).value() : ParsedOprofileDump{};
}

// The DEBUG_INFO the reader attached to the load `record` is, or nullptr.
const OprofileDumpDebugInfo* DebugInfoOf(const ParsedOprofileDump& p, size_t record) {
  const auto& load = std::get<OprofileDumpCodeLoad>(p.records.at(record).body);
  if (!load.debug_info) return nullptr;
  return &std::get<OprofileDumpDebugInfo>(p.records.at(*load.debug_info).body);
}

TEST(OprofileDumpReaderTest, ReadsLoadsLinesAndUnloads) {
  Dump d;
  d.Load(1700000001, 0x4000, 0x20, "Lfoo;bar()V", true)
      .Debug(1700000001, 0x4000, {{0x4000, 7, "Foo.java"}, {0x4010, 9, "Foo.java"}})
      .Load(1700000002, 0x5000, 0x10, "stub", false)
      .Unload(1700000003, 0x4000)
      .Close(1700000004);
  const ParsedOprofileDump p = Parse(d.str());
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  EXPECT_EQ(p.header.bfd_target, "elf64-x86-64");
  EXPECT_EQ(p.header.timestamp, 1700000000u);
  ASSERT_EQ(p.records.size(), 5u);
  const auto& first = std::get<OprofileDumpCodeLoad>(p.records[0].body);
  EXPECT_EQ(first.name, "Lfoo;bar()V");
  EXPECT_EQ(first.vma, 0x4000u);
  EXPECT_EQ(first.code_size, 0x20u);
  const OprofileDumpDebugInfo* lines = DebugInfoOf(p, 0);
  ASSERT_NE(lines, nullptr);
  ASSERT_EQ(lines->lines.size(), 2u);
  EXPECT_EQ(lines->lines[1].vma, 0x4010u);
  EXPECT_EQ(lines->lines[1].line, 9u);
  EXPECT_EQ(lines->lines[1].file, "Foo.java");
  const auto& stub = std::get<OprofileDumpCodeLoad>(p.records[2].body);
  EXPECT_EQ(stub.name, "stub");
  EXPECT_EQ(stub.code_addr, 0u);
  EXPECT_TRUE(stub.code.empty());
  EXPECT_EQ(DebugInfoOf(p, 2), nullptr);
  EXPECT_EQ(std::get<OprofileDumpUnload>(p.records[3].body).vma, 0x4000u);
  EXPECT_EQ(p.records[3].timestamp, 1700000003u);
  EXPECT_TRUE(std::holds_alternative<OprofileDumpClose>(p.records[4].body));
  EXPECT_EQ(p.stats.code_loads, 2u);
  EXPECT_EQ(p.stats.unloads, 1u);
  EXPECT_EQ(p.stats.debug_infos, 1u);
  EXPECT_EQ(p.stats.closes, 1u);
}

// A DEBUG_INFO goes to the latest load naming its code pointer (or vma); a later one for the same
// load replaces it; one naming no earlier load is kept in the records but describes no code.
TEST(OprofileDumpReaderTest, AttachesDebugInfoToTheLatestLoadItNames) {
  Dump d;
  d.Debug(1, 0x4000, {{0x4000, 1, "early.js"}})
      .Load(2, 0x4000, 0x10, "old", true)
      .Load(3, 0x4000, 0x10, "new", true)
      .Debug(4, 0x4000, {{0x4000, 2, "a.js"}})
      .Debug(5, 0x4000, {{0x4000, 3, "b.js"}});
  const ParsedOprofileDump p = Parse(d.str());
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  ASSERT_EQ(p.records.size(), 5u);
  EXPECT_EQ(DebugInfoOf(p, 1), nullptr);
  const OprofileDumpDebugInfo* lines = DebugInfoOf(p, 2);
  ASSERT_NE(lines, nullptr);
  ASSERT_EQ(lines->lines.size(), 1u);
  EXPECT_EQ(lines->lines[0].file, "b.js");
  EXPECT_EQ(p.stats.debug_infos, 3u);
  EXPECT_EQ(p.stats.unattached_debug_infos, 1u);
  EXPECT_EQ(p.stats.replaced_debug_infos, 1u);
}

TEST(OprofileDumpReaderTest, MalformedRecordStopsWithFileAndOffset) {
  Dump d;
  d.Load(1, 0x4000, 0x8, "kept", true);
  const size_t bad = d.str().size();
  d.Raw(std::string("\x03\0\0\0\x28\0\0\0", 8)).Raw(std::string(8, '\0'));  // DEBUG_INFO
  d.Raw(std::string("\0\x40\0\0\0\0\0\0\xff\0\0\0\0\0\0\0", 16));  // 255 entries in 40 bytes
  d.Load(2, 0x5000, 0x8, "unreached", true);
  const ParsedOprofileDump p = Parse(d.str());
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.error.message(),
            "1234.dump: offset " + std::to_string(bad) +
                ": DEBUG_INFO claims 255 entries, more than its record can hold");
}

// A dump from a 32-bit x86 process (OProfile's jitdump.h): 28-byte header, target name at 28,
// timestamp at 20, 4-byte vma in the debug entries. Read whatever this reader's word size.
TEST(OprofileDumpReaderTest, ReadsI386Dumps) {
  ByteBuilder b;
  b.U32(0x4F74496A).U32(1).U32(40).U32(8).U32(4).U64(1700000000);
  b.CString("elf32-i386").PadTo8();
  b.U32(0).U32(48).U64(1700000001).U64(0x8049000).U64(0x8049000).U32(4).U32(0).CString("f");
  b.Raw(std::string(6, '\0'));  // 4 code bytes, padding
  b.U32(3).U32(64).U64(1700000001).U64(0x8049000).U32(2).U32(0);
  b.U32(0x8049000).U32(7).CString("A.java").U32(0x8049002).U32(8).CString("A.java");
  b.Raw(std::string(2, '\0'));
  const ParsedOprofileDump p = Parse(b.str());
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  EXPECT_EQ(p.header.bfd_target, "elf32-i386");
  EXPECT_EQ(p.header.timestamp, 1700000000u);
  EXPECT_EQ(p.header.layout.line_vma_size, 4u);
  ASSERT_EQ(p.records.size(), 2u);
  const auto& load = std::get<OprofileDumpCodeLoad>(p.records[0].body);
  EXPECT_EQ(load.name, "f");
  EXPECT_EQ(load.vma, 0x8049000u);
  const OprofileDumpDebugInfo* lines = DebugInfoOf(p, 0);
  ASSERT_NE(lines, nullptr);
  ASSERT_EQ(lines->lines.size(), 2u);
  const OprofileDumpLine& second = lines->lines[1];
  EXPECT_EQ(second.vma, 0x8049002u);
  EXPECT_EQ(second.line, 8u);
  EXPECT_EQ(second.file, "A.java");
}

TEST(OprofileDumpReaderTest, RejectsOtherFiles) {
  EXPECT_FALSE(ParseOprofileDump(std::vector<uint8_t>(8, 0), "x").ok());
  ByteBuilder unterminated;
  unterminated.U32(0x4F74496A).U32(1).U32(40).U32(8).U32(8).U32(0).U64(1700000000);
  unterminated.Raw("elf64-x86");
  auto parsed = ParseOprofileDump(AsBytes(unterminated.str()), "9.dump");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "9.dump: offset 32: OProfile dump target name is not NUL-terminated");
  EXPECT_EQ(OprofileDumpPid("/tmp/.oprofile/jitdump/4321.dump"), 4321u);
  EXPECT_EQ(OprofileDumpPid("jit-4321.dump"), std::nullopt);
}

}  // namespace
}  // namespace jitscope::formats
