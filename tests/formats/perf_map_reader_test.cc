// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/perf_map_reader.h"

#include <gtest/gtest.h>

namespace jitscope::formats {
namespace {

std::string Entries(const ParsedPerfMap& map) {
  std::string out;
  for (const auto& e : map.entries) {
    out += std::to_string(e.start) + "+" + std::to_string(e.size) + "=" + std::string(e.name) + ";";
  }
  return out;
}

TEST(PerfMapReader, ParsesLinesAsPerfWritesThem) {
  const ParsedPerfMap map = ParsePerfMap(
      "10 20 simple\n"
      "0x30 0x8 with 0x prefixes\n"
      "A0 f LazyCompile:*run /app/main.js:12\r\n"
      "\n"
      "ff 0 empty entry\n"
      "100 4 last line\n",
      "perf-1.map");
  EXPECT_TRUE(map.error.ok()) << map.error.message();
  EXPECT_EQ(Entries(map),
            "16+32=simple;48+8=with 0x prefixes;160+15=LazyCompile:*run /app/main.js:12;"
            "256+4=last line;");
  EXPECT_EQ(map.empty_entries, 1u);
  EXPECT_EQ(map.entries[3].line_number, 6u);
  EXPECT_EQ(map.torn_tail_bytes, 0u);
}

// Writers write a line at a time, its newline last: a last line without one was cut short (a
// crash, a stdio buffer flushed in the middle of it), and was read as a name cut short too
// ("jitvm-"). It is left out and counted.
TEST(PerfMapReader, ALastLineWithoutItsNewlineIsCutShortNotAName) {
  const ParsedPerfMap map = ParsePerfMap("10 20 jitvm-hot\n30 20 jitvm-", "perf-1.map");
  EXPECT_TRUE(map.error.ok()) << map.error.message();
  EXPECT_EQ(Entries(map), "16+32=jitvm-hot;");
  EXPECT_EQ(map.torn_tail_bytes, 12u);  // "30 20 jitvm-"
}

TEST(PerfMapReader, MalformedLineStopsWithOffsetAndLine) {
  const ParsedPerfMap map = ParsePerfMap("10 20 ok\nzz 10 bad start\n30 10 unreached\n", "m.map");
  EXPECT_EQ(Entries(map), "16+32=ok;");
  EXPECT_EQ(map.error.message(),
            "m.map: offset 9 (line 2): expected \"START SIZE NAME\" with hexadecimal START and "
            "SIZE");
  for (const char* bad : {"10 20\n", "10  20 two spaces\n", "10 20 \n", "10\n", "10 x name\n"}) {
    EXPECT_FALSE(ParsePerfMap(bad, "m.map").error.ok()) << bad;
  }
}

TEST(PerfMapReader, DetectsContentAndPid) {
  const std::string map = "7f00 10 foo\n";
  EXPECT_TRUE(LooksLikePerfMap({reinterpret_cast<const uint8_t*>(map.data()), map.size()}));
  const std::string text = "hello world\n";
  EXPECT_FALSE(LooksLikePerfMap({reinterpret_cast<const uint8_t*>(text.data()), text.size()}));
  EXPECT_EQ(PerfMapPid("/tmp/perf-1234.map"), 1234u);
  EXPECT_EQ(PerfMapPid("perf-77.map"), 77u);
  EXPECT_EQ(PerfMapPid("/tmp/perf-x.map"), std::nullopt);
  EXPECT_EQ(PerfMapPid("/tmp/perf-12.map.old"), std::nullopt);
}

}  // namespace
}  // namespace jitscope::formats
