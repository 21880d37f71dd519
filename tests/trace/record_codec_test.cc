// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/record_codec.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "trace_test_util.h"

namespace jitscope::trace {
namespace {

constexpr LineEntry kLines[] = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}};

std::string RoundTrip(const Event& event, uint64_t timestamp) {
  const size_t size = EncodedRecordSize(event);
  EXPECT_GT(size, 0u);
  EXPECT_EQ(size % 8, 0u);
  std::vector<uint64_t> storage(size / 8, 0xAAAAAAAAAAAAAAAAull);  // 8-aligned, dirty
  auto* bytes = reinterpret_cast<uint8_t*>(storage.data());
  const RecordHeader header = EncodeRecordBody(event, timestamp, bytes + sizeof(RecordHeader));
  EXPECT_EQ(header.size, size);
  EXPECT_EQ(header.flags, 0);
  auto decoded = DecodeRecordBody(static_cast<RecordType>(header.type),
                                  {bytes + sizeof(RecordHeader), size - sizeof(RecordHeader)});
  if (!decoded.ok()) return "error: " + decoded.status().message();
  decoded->tid = 7;
  return Describe(*decoded);
}

TEST(RecordCodecTest, CodeEventRoundTripsEveryField) {
  CodeEvent code;
  code.api_event = kEventMethodLoadFinishedV3;
  code.method_id = 1000;
  code.parent_method_id = 0;
  code.address = 0x7f0012345678;
  code.size = 21;
  code.class_id = 3;
  code.arch = 2;
  code.name = "answer";
  code.class_file = "Answer.class";
  code.source_file = "demo.js";
  code.module = "tier1";
  code.lines = kLines;
  EXPECT_EQ(RoundTrip(code, 123),
            "123 tid=7 code event=22 id=1000 parent=0 addr=139638282147448 size=21 class_id=3 "
            "arch=2 name=\"answer\" class=\"Answer.class\" source=\"demo.js\" module=\"tier1\" "
            "lines=1:2,12:4,15:2,18:1,21:30,");
}

TEST(RecordCodecTest, AbsentAndEmptyStringsStayDistinct) {
  CodeEvent code;
  code.api_event = kEventMethodInlineLoadFinished;
  code.method_id = 2000;
  code.parent_method_id = 1000;
  code.address = 8;
  code.size = 1;
  code.name = "";
  EXPECT_EQ(RoundTrip(code, 1),
            "1 tid=7 code event=16 id=2000 parent=1000 addr=8 size=1 class_id=0 arch=0 name=\"\" "
            "class=null source=null module=null lines=");
}

TEST(RecordCodecTest, OtherEventsRoundTrip) {
  EXPECT_EQ(RoundTrip(RangeUpdateEvent{0x1000, 16, 2, "%d"}, 5),
            "5 tid=7 range_update addr=4096 size=16 type=2 format=\"%d\"");
  EXPECT_EQ(RoundTrip(RangeUpdateEvent{0x1000, 16, 1, std::nullopt}, 5),
            "5 tid=7 range_update addr=4096 size=16 type=1 format=null");
  EXPECT_EQ(RoundTrip(UnloadEvent{1234}, 6), "6 tid=7 unload id=1234");
  EXPECT_EQ(RoundTrip(ShutdownEvent{}, 7), "7 tid=7 shutdown");
  EXPECT_EQ(RoundTrip(RejectedEvent{99, RejectReason::kUnknownEvent}, 8),
            "8 tid=7 rejected event=99 reason=unknown_event");
}

TEST(RecordCodecTest, CodeBytesRoundTripWithAndWithoutTheirBytes) {
  constexpr uint8_t kCode[] = {0x55, 0x48, 0x89, 0xe5, 0xc3};
  EXPECT_EQ(RoundTrip(CodeBytesEvent{0x2000, 5, kCode}, 9),
            "9 tid=7 code_bytes addr=8192 size=5 bytes=85,72,137,229,195,");
  EXPECT_EQ(RoundTrip(CodeBytesEvent{0x2000, 5, {}}, 9),
            "9 tid=7 code_bytes addr=8192 size=5 bytes=");
  // Bytes that are neither the whole region nor none cannot be encoded.
  EXPECT_EQ(EncodedRecordSize(CodeBytesEvent{0x2000, 6, kCode}), 0u);
}

TEST(RecordCodecTest, ChainRecordsRoundTrip) {
  EXPECT_EQ(RoundTrip(ChainLinkEvent{3, 1 << 20, "jit-42.2.jsc"}, 10),
            "10 tid=7 chain_link sequence=3 previous=\"jit-42.2.jsc\" previous_size=1048576");
  EXPECT_EQ(RoundTrip(SnapshotEndEvent{12345}, 11), "11 tid=7 snapshot_end records=12345");
}

TEST(RecordCodecTest, IttRecordsRoundTrip) {
  EXPECT_EQ(RoundTrip(IttStringEvent{3, "dnnl::primitive::execute"}, 12),
            "12 tid=7 itt_string 3=\"dnnl::primitive::execute\"");
  EXPECT_EQ(RoundTrip(IttStringEvent{4, ""}, 12), "12 tid=7 itt_string 4=\"\"");
  EXPECT_EQ(RoundTrip(IttThreadNameEvent{4242, "TBB Worker Thread"}, 13),
            "13 tid=7 itt_thread_name thread=4242 name=\"TBB Worker Thread\"");
  EXPECT_EQ(RoundTrip(IttBeginEvent{IttKind::kTask, 3, 5, {1, 2}, {0x7fff0000, 0}, 0x401000}, 14),
            "14 tid=7 itt_begin kind=1 domain=3 name=5 id=1:2 parent=2147418112:0 fn=4198400");
  EXPECT_EQ(RoundTrip(IttBeginEvent{IttKind::kTaskGroup, 3, 6, {9, 0}, {0, 0}, 0}, 14),
            "14 tid=7 itt_begin kind=5 domain=3 name=6 id=9:0 parent=0:0 fn=0");
  EXPECT_EQ(RoundTrip(IttEndEvent{IttKind::kRegion, 3, {9, 1}}, 15),
            "15 tid=7 itt_end kind=3 domain=3 id=9:1");
  EXPECT_EQ(RoundTrip(IttMarkerEvent{3, 7, 1, {0, 0}}, 16),
            "16 tid=7 itt_marker domain=3 name=7 scope=1 id=0:0");
  EXPECT_EQ(RoundTrip(IttCounterEvent{1, 8, 3, 8}, 17),
            "17 tid=7 itt_counter 1 name=8 domain=3 type=8");
  EXPECT_EQ(RoundTrip(IttCounterValueEvent{1, 0xFFFFFFFFFFFFFFFF}, 18),
            "18 tid=7 itt_counter_value 1=18446744073709551615");
}

TEST(RecordCodecTest, AnIttKindOutsideTheEnumIsDamage) {
  for (const uint32_t kind : {0u, kMaxIttKind + 1}) {
    const IttBeginRecord begin{1, {0, 0}, {0, 0}, 0, 1, 1, kind, 0};
    auto decoded = DecodeRecordBody(RecordType::kIttBegin,
                                    {reinterpret_cast<const uint8_t*>(&begin), sizeof(begin)});
    ASSERT_FALSE(decoded.ok());
    EXPECT_EQ(decoded.status().message(),
              "ITT record of type 16 has an unknown kind " + std::to_string(kind));
    const IttEndRecord end{1, {0, 0}, 1, kind};
    EXPECT_FALSE(
        DecodeRecordBody(RecordType::kIttEnd, {reinterpret_cast<const uint8_t*>(&end), sizeof(end)})
            .ok());
  }
  // A string that claims more bytes than its record holds.
  const IttStringRecord string{1, 1, 100};
  EXPECT_FALSE(DecodeRecordBody(RecordType::kIttString,
                                {reinterpret_cast<const uint8_t*>(&string), sizeof(string)})
                   .ok());
}

TEST(RecordCodecTest, ARecordsFlagsAreInItsHeaderOnly) {
  const Event event = UnloadEvent{5};
  const size_t size = EncodedRecordSize(event);
  std::vector<uint64_t> plain(size / 8), flagged(size / 8);
  const RecordHeader a =
      EncodeRecordBody(event, 1, reinterpret_cast<uint8_t*>(plain.data()) + sizeof(RecordHeader));
  const RecordHeader b =
      EncodeRecordBody(event, 1, reinterpret_cast<uint8_t*>(flagged.data()) + sizeof(RecordHeader),
                       kRecordFlagSnapshot);
  EXPECT_EQ(a.flags, 0);
  EXPECT_EQ(b.flags, kRecordFlagSnapshot);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(plain, flagged);
}

TEST(RecordCodecTest, AChainLinkWithoutItsNameIsDamage) {
  const ChainLinkRecord fixed{1, 2, 3, kAbsentString};
  uint64_t body[3] = {};
  std::memcpy(body, &fixed, sizeof(fixed));
  EXPECT_FALSE(DecodeRecordBody(RecordType::kChainLink,
                                {reinterpret_cast<const uint8_t*>(body), sizeof(body)})
                   .ok());
  const ChainLinkRecord longer{1, 2, 3, 100};
  std::memcpy(body, &longer, sizeof(longer));
  EXPECT_FALSE(DecodeRecordBody(RecordType::kChainLink,
                                {reinterpret_cast<const uint8_t*>(body), sizeof(body)})
                   .ok());
}

TEST(RecordCodecTest, CodeBytesOfAnotherLengthThanTheirRegionAreDamage) {
  const CodeBytesRecord fixed{1, 0x2000, 8, 4};
  uint64_t body[4] = {};
  std::memcpy(body, &fixed, sizeof(fixed));
  auto decoded = DecodeRecordBody(RecordType::kCodeBytes,
                                  {reinterpret_cast<const uint8_t*>(body), sizeof(body)});
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().message(), "code-bytes record holds 4 bytes of a 8-byte region");
}

TEST(RecordCodecTest, PaddingIsZeroed) {
  CodeEvent code;
  code.api_event = kEventMethodLoadFinished;
  code.method_id = 1;
  code.address = 1;
  code.size = 1;
  code.name = "abc";  // 64 + 3 bytes of body: 5 bytes of padding
  const size_t size = EncodedRecordSize(code);
  std::vector<uint8_t> bytes(size, 0xEE);
  EncodeRecordBody(code, 0, bytes.data() + sizeof(RecordHeader));
  for (size_t i = sizeof(RecordHeader) + sizeof(CodeRecord) + 3; i < size; ++i) {
    EXPECT_EQ(bytes[i], 0) << "offset " << i;
  }
}

TEST(RecordCodecTest, TruncatedBodiesAreErrorsNotCrashes) {
  CodeEvent code;
  code.api_event = kEventMethodLoadFinished;
  code.method_id = 1;
  code.address = 1;
  code.size = 1;
  code.name = "a-long-enough-name";
  code.lines = kLines;
  const size_t size = EncodedRecordSize(code);
  std::vector<uint64_t> storage(size / 8);
  auto* bytes = reinterpret_cast<uint8_t*>(storage.data());
  EncodeRecordBody(code, 0, bytes + sizeof(RecordHeader));
  const size_t body = size - sizeof(RecordHeader);
  for (size_t cut = 0; cut < body - 8; ++cut) {
    auto decoded = DecodeRecordBody(RecordType::kCode, {bytes + sizeof(RecordHeader), cut});
    ASSERT_FALSE(decoded.ok()) << "cut at " << cut;
    EXPECT_EQ(decoded.status().message(), "record of type 1 is shorter than its fields say");
  }
  // A line count that claims more entries than the body holds.
  CodeRecord fixed{};
  std::memcpy(&fixed, bytes + sizeof(RecordHeader), sizeof(fixed));
  fixed.line_count = 0xFFFFFFFF;
  std::memcpy(bytes + sizeof(RecordHeader), &fixed, sizeof(fixed));
  EXPECT_FALSE(DecodeRecordBody(RecordType::kCode, {bytes + sizeof(RecordHeader), body}).ok());
}

}  // namespace
}  // namespace jitscope::trace
