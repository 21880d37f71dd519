// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The file of code read from running processes (formats/captured_code.h): written by the
// encoder, read back exactly; damage ends the reading where it is, keeping what came before.
#include "jitscope/formats/captured_code.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace jitscope::formats {
namespace {

std::span<const uint8_t> Bytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

std::vector<uint8_t> Copy(std::span<const uint8_t> bytes) { return {bytes.begin(), bytes.end()}; }

TEST(CapturedCodeTest, ReadsRoundTrip) {
  const std::vector<uint8_t> first = {0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3};  // 6: padded to 8
  const std::vector<uint8_t> second(16, 0x90);
  const std::string file = EncodeCapturedCodeHeader(4242) +
                           EncodeCodeRead(1000, 0x7f0000001000, first) +
                           EncodeCodeRead(2000, 0x40001000, second);
  ASSERT_EQ(file.size(), 24u + (24 + 8) + (24 + 16));
  EXPECT_TRUE(LooksLikeCapturedCode(Bytes(file)));
  auto parsed = ParseCapturedCode(Bytes(file), "captured-4242.jsr");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->error.ok()) << parsed->error.message();
  EXPECT_EQ(parsed->pid, 4242u);
  ASSERT_EQ(parsed->reads.size(), 2u);
  EXPECT_EQ(parsed->reads[0].time_ns, 1000u);
  EXPECT_EQ(parsed->reads[0].address, 0x7f0000001000u);
  EXPECT_EQ(Copy(parsed->reads[0].bytes), first);
  EXPECT_EQ(parsed->reads[1].time_ns, 2000u);
  EXPECT_EQ(parsed->reads[1].address, 0x40001000u);
  EXPECT_EQ(Copy(parsed->reads[1].bytes), second);
  EXPECT_EQ(CapturedCodeFileName(4242), "captured-4242.jsr");
}

// What a recording killed while it wrote leaves: a torn last record, counted, the reads before
// it kept.
TEST(CapturedCodeTest, ATornLastRecordEndsTheReading) {
  const std::vector<uint8_t> code(40, 0xc3);
  const std::string whole = EncodeCapturedCodeHeader(7) + EncodeCodeRead(1, 0x1000, code);
  const std::string file = whole + EncodeCodeRead(2, 0x2000, code).substr(0, 30);
  auto parsed = ParseCapturedCode(Bytes(file), "captured-7.jsr");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->reads.size(), 1u);
  EXPECT_EQ(parsed->error.message(),
            "captured-7.jsr: offset " + std::to_string(whole.size()) + ": a record cut short");
}

// Hostile records: an unknown kind, an empty read, one that wraps the address space, one larger
// than any read record keeps.
TEST(CapturedCodeTest, RecordsThatCannotBeReadsEndTheReading) {
  const std::vector<uint8_t> code(8, 0x90);
  std::string kind = EncodeCodeRead(1, 0x1000, code);
  kind[0] = 9;
  std::string empty = EncodeCodeRead(1, 0x1000, code).substr(0, 24);
  empty[4] = 0;
  const std::string wraps = EncodeCodeRead(1, UINT64_MAX - 3, code);
  std::string huge = EncodeCodeRead(1, 0x1000, code);
  const uint32_t size = static_cast<uint32_t>(kMaxCapturedRead + 8);
  huge.replace(4, 4, reinterpret_cast<const char*>(&size), 4);
  for (const std::string& bad : {kind, empty, wraps, huge}) {
    const std::string file = EncodeCapturedCodeHeader(1) + EncodeCodeRead(5, 0x5000, code) + bad;
    auto parsed = ParseCapturedCode(Bytes(file), "f");
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->reads.size(), 1u);
    EXPECT_FALSE(parsed->error.ok());
  }
}

TEST(CapturedCodeTest, OtherFilesAndVersionsAreRefused) {
  EXPECT_FALSE(ParseCapturedCode(Bytes("JSFRAMES"), "f").ok());
  EXPECT_EQ(ParseCapturedCode(Bytes("JSMEMORY\x01"), "f").status().message(),
            "f: the header is cut short");
  std::string later = EncodeCapturedCodeHeader(1);
  later[8] = 2;
  EXPECT_EQ(ParseCapturedCode(Bytes(later), "f").status().message(),
            "f: version 2, this jitscope reads version 1");
}

}  // namespace
}  // namespace jitscope::formats
