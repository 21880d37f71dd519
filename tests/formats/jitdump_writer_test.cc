// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The jitdump records as perf reads them (perf's jitdump
// specification: the header and the record types): exact bytes for the fixed parts, and a round
// trip through the test reader.
#include "jitscope/formats/jitdump_writer.h"

#include <elf.h>

#include <cstring>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "jitdump_test_reader.h"

namespace jitscope::formats {
namespace {

using Lines = std::vector<JitdumpLine>;

template <typename T>
T At(const std::vector<uint8_t>& bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

TEST(JitdumpWriter, HeaderIsVersionOneFortyBytesNoFlags) {
  std::vector<uint8_t> out;
  AppendJitdumpHeader(out, 1234, 5678);
  ASSERT_EQ(40u, out.size());
  // "JiTD" as a native u32: the bytes 44 54 69 4A on little-endian machines.
  EXPECT_EQ(0x4A695444u, At<uint32_t>(out, 0));
  EXPECT_EQ(1u, At<uint32_t>(out, 4));
  EXPECT_EQ(40u, At<uint32_t>(out, 8));
  EXPECT_EQ(HostElfMachine(), At<uint32_t>(out, 12));
#if defined(__x86_64__)
  EXPECT_EQ(static_cast<uint32_t>(EM_X86_64), HostElfMachine());
#endif
  EXPECT_EQ(0u, At<uint32_t>(out, 16));
  EXPECT_EQ(1234u, At<uint32_t>(out, 20));
  EXPECT_EQ(5678u, At<uint64_t>(out, 24));
  EXPECT_EQ(0u, At<uint64_t>(out, 32));
}

TEST(JitdumpWriter, LinesOfTheSeedsTableStartEachRangeAndCloseTheLast) {
  // Offsets 1, 12, 15, 18, 21 (lines 2, 4, 2, 1, 30) are the ranges 0-1, 1-12, 12-15, 15-18,
  // 18-21. jitdump entries mark starts, and perf's line program ends at the last entry, so the
  // last range needs a closing entry (line 0: no line) at 21.
  const std::vector<trace::LineEntry> table = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}};
  const auto ranges = RangesFromLineTable(table, 32, 0);
  EXPECT_EQ((Lines{{0x1000, 2, 0},
                   {0x1001, 4, 0},
                   {0x100c, 2, 0},
                   {0x100f, 1, 0},
                   {0x1012, 30, 0},
                   {0x1015, 0, 0}}),
            JitdumpLinesFromRanges(0x1000, ranges));
}

TEST(JitdumpWriter, GapsBetweenRangesHaveNoLine) {
  const std::vector<LineRange> ranges = {{0, 4, 1, 0}, {8, 12, 2, 1}};
  EXPECT_EQ((Lines{{0x10, 1, 0}, {0x14, 0, 0}, {0x18, 2, 1}, {0x1c, 0, 1}}),
            JitdumpLinesFromRanges(0x10, ranges));
}

TEST(JitdumpWriter, ContiguousRangesOfOneLineCollapse) {
  const std::vector<LineRange> ranges = {{0, 4, 5, 0}, {4, 8, 5, 0}, {8, 9, 5, 1}};
  EXPECT_EQ((Lines{{0x10, 5, 0}, {0x18, 5, 1}, {0x19, 0, 1}}),
            JitdumpLinesFromRanges(0x10, ranges));
  EXPECT_TRUE(JitdumpLinesFromRanges(0x10, {}).empty());
}

TEST(JitdumpWriter, CodeLoadHasNameThenCodeAndNoPadding) {
  std::vector<uint8_t> out;
  JitdumpCodeLoadFields fields;
  fields.timestamp = 99;
  fields.pid = 7;
  fields.tid = 8;
  fields.code_address = 0x7f0000001000;
  fields.code_size = 3;
  fields.code_index = 5;
  fields.name = "kernel";
  ASSERT_TRUE(AppendJitdumpCodeLoadPrefix(out, fields));
  ASSERT_EQ(56u + 7, out.size());
  out.insert(out.end(), {0x90, 0x90, 0xc3});          // the code follows the name
  EXPECT_EQ(0u, At<uint32_t>(out, 0));                // JIT_CODE_LOAD
  EXPECT_EQ(66u, At<uint32_t>(out, 4));               // total_size
  EXPECT_EQ(99u, At<uint64_t>(out, 8));               // timestamp
  EXPECT_EQ(7u, At<uint32_t>(out, 16));               // pid
  EXPECT_EQ(8u, At<uint32_t>(out, 20));               // tid
  EXPECT_EQ(0x7f0000001000u, At<uint64_t>(out, 24));  // vma
  EXPECT_EQ(0x7f0000001000u, At<uint64_t>(out, 32));  // code_addr
  EXPECT_EQ(3u, At<uint64_t>(out, 40));               // code_size
  EXPECT_EQ(5u, At<uint64_t>(out, 48));               // code_index
  EXPECT_EQ("kernel", std::string_view(reinterpret_cast<const char*>(out.data() + 56)));
  // perf reads the code at record end - code_size.
  EXPECT_EQ(0x90, out[63]);
  EXPECT_EQ(0xc3, out[65]);
}

TEST(JitdumpWriter, RecordsThatCannotFitThirtyTwoBitsAreRefused) {
  std::vector<uint8_t> out;
  JitdumpCodeLoadFields fields;
  fields.code_size = uint64_t{1} << 32;
  fields.name = "huge";
  EXPECT_FALSE(AppendJitdumpCodeLoadPrefix(out, fields));
  EXPECT_TRUE(out.empty());
}

TEST(JitdumpWriter, DebugInfoAndCloseRoundTrip) {
  std::vector<uint8_t> out;
  AppendJitdumpHeader(out, 1, 10);
  const std::vector<std::string_view> files = {"/src/a.js", "/src/b.js"};
  const Lines lines = {{0x1000, 3, 0}, {0x1004, 9, 1}, {0x1008, 0, 1}};
  ASSERT_TRUE(AppendJitdumpDebugInfo(out, 11, 0x1000, lines, files));
  // 32-byte fixed part, then per entry 16 bytes and the full file name with its NUL.
  EXPECT_EQ(40u + 32 + 3 * 16 + 10 + 10 + 10, out.size());
  JitdumpCodeLoadFields fields;
  fields.timestamp = 11;
  fields.code_address = 0x1000;
  fields.code_size = 8;
  fields.code_index = 1;
  fields.name = "f";
  ASSERT_TRUE(AppendJitdumpCodeLoadPrefix(out, fields));
  out.insert(out.end(), 8, 0xcc);
  AppendJitdumpClose(out, 12);

  auto dump = testing::ParseTestJitdump(out);
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  ASSERT_EQ(3u, dump->records.size());
  EXPECT_EQ(0u, dump->torn_tail_bytes);
  const auto& debug = dump->records[0];
  EXPECT_EQ(JitdumpRecordId::kCodeDebugInfo, debug.id);
  EXPECT_EQ(0x1000u, debug.code_address);
  ASSERT_EQ(3u, debug.entries.size());
  EXPECT_EQ(0x1004u, debug.entries[1].address);
  EXPECT_EQ(9u, debug.entries[1].line);
  EXPECT_EQ("/src/b.js", debug.entries[1].file);
  EXPECT_EQ("/src/a.js", debug.entries[0].file);
  EXPECT_EQ(0u, debug.entries[2].line);
  EXPECT_EQ(JitdumpRecordId::kCodeLoad, dump->records[1].id);
  EXPECT_EQ(std::vector<uint8_t>(8, 0xcc), dump->records[1].code);
  EXPECT_EQ(JitdumpRecordId::kCodeClose, dump->records[2].id);
  EXPECT_EQ(12u, dump->records[2].timestamp);
}

}  // namespace
}  // namespace jitscope::formats
