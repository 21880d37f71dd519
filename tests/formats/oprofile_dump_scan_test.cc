// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/oprofile_dump_scan.h"

#include <gtest/gtest.h>

#include "formats/byte_builder.h"

namespace jitscope::formats::scan {
namespace {

constexpr uint32_t kOprofileDumpMagic = 0x4F74496A;  // fact sheet §4.3

using testing::ByteBuilder;

// An OProfile dump as libopagent writes it on x86-64 (fact sheet §4.3): records padded to 8.
class Dump {
 public:
  Dump() {
    b_.U32(kOprofileDumpMagic).U32(1).U32(48).U32(9).U32(64).U32(0).U64(1700000000);
    b_.Str("elf64-x86-64").Zeros(3);
  }
  Dump& Load(uint64_t seconds, uint64_t vma, uint32_t size, std::string_view name, bool code) {
    ByteBuilder r;
    r.U32(0).U32(0).U64(seconds).U64(vma).U64(code ? vma : 0).U32(size).U32(0).Str(name);
    if (code) r.Zeros(size);
    return Record(r);
  }
  Dump& Debug(uint64_t seconds, uint64_t code,
              std::vector<std::tuple<uint64_t, uint32_t, std::string_view>> entries) {
    ByteBuilder r;
    r.U32(3).U32(0).U64(seconds).U64(code).U32(static_cast<uint32_t>(entries.size())).U32(0);
    for (auto [vma, line, file] : entries) r.U64(vma).U32(line).Str(file);
    return Record(r);
  }
  Dump& Unload(uint64_t seconds, uint64_t vma) {
    return Record(ByteBuilder().U32(1).U32(0).U64(seconds).U64(vma));
  }
  Dump& Close(uint64_t seconds) { return Record(ByteBuilder().U32(2).U32(0).U64(seconds)); }
  Dump& Raw(std::string_view s) {
    b_.Raw(s);
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return b_.bytes(); }

 private:
  Dump& Record(ByteBuilder r) {
    r.Zeros((8 - r.size() % 8) % 8);
    r.PatchU32(4, static_cast<uint32_t>(r.size()));
    b_.Append(r);
    return *this;
  }
  ByteBuilder b_;
};

ParsedOprofileDump Parse(const std::vector<uint8_t>& bytes) {
  auto parsed = ParseOprofileDump(bytes, "1234.dump");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(parsed).value() : ParsedOprofileDump{};
}

TEST(OprofileDumpReader, ReadsLoadsLinesAndUnloads) {
  Dump d;
  d.Load(1700000001, 0x4000, 0x20, "Lfoo;bar()V", true)
      .Debug(1700000001, 0x4000, {{0x4000, 7, "Foo.java"}, {0x4010, 9, "Foo.java"}})
      .Load(1700000002, 0x5000, 0x10, "stub", false)
      .Unload(1700000003, 0x4000)
      .Close(1700000004);
  const ParsedOprofileDump p = Parse(d.bytes());
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  EXPECT_EQ(p.header.target, "elf64-x86-64");
  EXPECT_EQ(p.header.timestamp_seconds, 1700000000u);
  ASSERT_EQ(p.records.size(), 3u);
  EXPECT_EQ(p.records[0].name, "Lfoo;bar()V");
  EXPECT_EQ(p.records[0].vma, 0x4000u);
  EXPECT_EQ(p.records[0].code_size, 0x20u);
  ASSERT_EQ(p.records[0].line_count, 2u);
  EXPECT_EQ(p.lines[p.records[0].first_line + 1].address, 0x4010u);
  EXPECT_EQ(p.lines[p.records[0].first_line + 1].line, 9u);
  EXPECT_EQ(p.lines[p.records[0].first_line + 1].file, "Foo.java");
  EXPECT_EQ(p.records[1].name, "stub");
  EXPECT_EQ(p.records[1].code_addr, 0u);
  EXPECT_EQ(p.records[2].kind, OprofileRecordKind::kCodeUnload);
  EXPECT_EQ(p.records[2].vma, 0x4000u);
  EXPECT_EQ(p.records[2].timestamp_seconds, 1700000003u);
  EXPECT_EQ(p.stats.closes, 1u);
}

TEST(OprofileDumpReader, MalformedRecordStopsWithFileAndOffset) {
  Dump d;
  d.Load(1, 0x4000, 0x8, "kept", true);
  const size_t bad = d.bytes().size();
  d.Raw(std::string("\x03\0\0\0\x28\0\0\0", 8)).Raw(std::string(8, '\0'));  // DEBUG_INFO
  d.Raw(std::string("\0\x40\0\0\0\0\0\0\xff\0\0\0\0\0\0\0", 16));  // 255 entries in 40 bytes
  d.Load(2, 0x5000, 0x8, "unreached", true);
  const ParsedOprofileDump p = Parse(d.bytes());
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.error.message(),
            "1234.dump: offset " + std::to_string(bad) +
                ": DEBUG_INFO claims 255 entries, more than its record can hold");
}

// A dump from a 32-bit x86 process (fact sheet §4.3): 28-byte header, target name at 28,
// timestamp at 20, 4-byte vma in the debug entries. Read whatever this reader's word size.
TEST(OprofileDumpReader, ReadsI386Dumps) {
  ByteBuilder b;
  b.U32(kOprofileDumpMagic).U32(1).U32(40).U32(8).U32(4).U64(1700000000);
  b.Str("elf32-i386").Zeros(1);
  ByteBuilder load;
  load.U32(0).U32(48).U64(1700000001).U64(0x8049000).U64(0x8049000).U32(4).U32(0).Str("f");
  load.Zeros(6);  // 4 code bytes, padding
  b.Append(load);
  ByteBuilder debug;
  debug.U32(3).U32(64).U64(1700000001).U64(0x8049000).U32(2).U32(0);
  debug.U32(0x8049000).U32(7).Str("A.java").U32(0x8049002).U32(8).Str("A.java").Zeros(2);
  b.Append(debug);
  const ParsedOprofileDump p = Parse(b.bytes());
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  EXPECT_EQ(p.header.target, "elf32-i386");
  EXPECT_EQ(p.header.timestamp_seconds, 1700000000u);
  EXPECT_EQ(p.header.line_vma_size, 4u);
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.records[0].name, "f");
  EXPECT_EQ(p.records[0].vma, 0x8049000u);
  ASSERT_EQ(p.records[0].line_count, 2u);
  const OprofileLineEntry& second = p.lines[p.records[0].first_line + 1];
  EXPECT_EQ(second.address, 0x8049002u);
  EXPECT_EQ(second.line, 8u);
  EXPECT_EQ(second.file, "A.java");
}

TEST(OprofileDumpReader, RejectsOtherFiles) {
  EXPECT_FALSE(ParseOprofileDump(std::vector<uint8_t>(8, 0), "x").ok());
  ByteBuilder unterminated;
  unterminated.U32(kOprofileDumpMagic).U32(1).U32(40).U32(8).U32(8).U32(0).U64(1700000000);
  unterminated.Raw("elf64-x86");
  auto parsed = ParseOprofileDump(unterminated.bytes(), "9.dump");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "9.dump: offset 32: OProfile dump target name is not NUL-terminated");
  EXPECT_EQ(OprofileDumpPid("/tmp/.oprofile/jitdump/4321.dump"), 4321u);
  EXPECT_EQ(OprofileDumpPid("jit-4321.dump"), std::nullopt);
}

}  // namespace
}  // namespace jitscope::formats::scan
