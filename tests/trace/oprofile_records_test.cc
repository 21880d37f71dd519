// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The native trace's OProfile record kinds (format.h kOprofile*): every event survives the
// encoder and decoder with all its fields, through a real TraceWriter and reader, and a damaged
// debug-lines record is refused instead of handing out out-of-range file indices.
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/trace/reader.h"
#include "jitscope/trace/record_codec.h"
#include "jitscope/trace/writer.h"
#include "support/temp_dir.h"

namespace jitscope::trace {
namespace {

const uint8_t kCode[] = {0x90, 0x90, 0xc3};
const OprofileLineEntry kLines[] = {{0x1000, 3, 0}, {0x1001, 4, 1}, {0x1002, 3, 0}};
const uint32_t kEnds[] = {6, 16};

std::vector<Event> AllOprofileEvents() {
  return {
      OprofileOpenEvent{1},
      OprofileCodeLoadEvent{1, 0x1000, 0x9000, 3, "pkg.A.f()V", {kCode, 3}},
      OprofileCodeLoadEvent{2, 0x2000, 0, 64, "stub", {}},
      OprofileDebugLinesEvent{1, 0x9000, 0x1000, 3, kLines, FileTable{kEnds, "A.javapkg/B.java"}},
      OprofileUnloadEvent{1, 0x1000, 3},
      OprofileCloseEvent{2},
  };
}

// Compares by printing every field: the events hold views, which have no operator==.
struct DescribeVisitor {
  std::string operator()(const OprofileOpenEvent& e) const {
    return "open " + std::to_string(e.agent);
  }
  std::string operator()(const OprofileCloseEvent& e) const {
    return "close " + std::to_string(e.agent);
  }
  std::string operator()(const OprofileCodeLoadEvent& e) const {
    std::string s = "load " + std::to_string(e.agent) + " " + std::to_string(e.address) + " " +
                    std::to_string(e.code_address) + " " + std::to_string(e.size) + " " +
                    std::string(e.name) + " [";
    for (uint8_t b : e.code) s += std::to_string(b) + ",";
    return s + "]";
  }
  std::string operator()(const OprofileDebugLinesEvent& e) const {
    std::string s = "lines " + std::to_string(e.agent) + " " + std::to_string(e.code_address) +
                    " " + std::to_string(e.address) + " " + std::to_string(e.size) + " [";
    for (const auto& l : e.lines) {
      s += std::to_string(l.address) + ":" + std::to_string(l.line) + ":" +
           std::string(e.files[l.file]) + ",";
    }
    return s + "]";
  }
  std::string operator()(const OprofileUnloadEvent& e) const {
    return "unload " + std::to_string(e.agent) + " " + std::to_string(e.address) + " " +
           std::to_string(e.size);
  }
  template <typename T>
  std::string operator()(const T&) const {
    return "other";
  }
};

std::string Describe(const Event& event) { return std::visit(DescribeVisitor{}, event); }

TEST(OprofileRecordsTest, RoundTripThroughTheCodec) {
  for (const Event& event : AllOprofileEvents()) {
    const size_t size = EncodedRecordSize(event);
    ASSERT_NE(size, 0u);
    ASSERT_EQ(size % 8, 0u);
    std::vector<uint64_t> storage(size / 8, ~uint64_t{0});  // 8-aligned, garbage-filled
    auto* bytes = reinterpret_cast<uint8_t*>(storage.data());
    const RecordHeader header = EncodeRecordBody(event, 42, bytes + sizeof(RecordHeader));
    EXPECT_EQ(header.size, size);
    auto decoded = DecodeRecordBody(static_cast<RecordType>(header.type),
                                    {bytes + sizeof(RecordHeader), size - sizeof(RecordHeader)});
    ASSERT_TRUE(decoded.ok()) << decoded.status().message();
    EXPECT_EQ(decoded->timestamp, 42u);
    EXPECT_EQ(Describe(decoded->event), Describe(event));
    EXPECT_EQ(CallOf(decoded->event), CallOf(event));
  }
}

TEST(OprofileRecordsTest, RoundTripThroughAFile) {
  const test_support::TempDir dir;
  const std::string path = dir.path() + "/t.jsc";
  auto fd = base::CreateExclusive(dir.path(), "t.jsc");
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  auto writer = TraceWriter::Create(std::move(fd).value(), TraceIdentity{7, "/bin/jvm", 1, 2});
  ASSERT_TRUE(writer.ok());
  const auto events = AllOprofileEvents();
  for (size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ((*writer)->Append(events[i], 100 + i, 7), TraceWriter::AppendResult::kOk);
  }
  auto file = TraceFile::Open(path);
  ::unlink(path.c_str());
  ASSERT_TRUE(file.ok()) << file.status().message();
  const ParsedTrace& t = file->trace();
  EXPECT_TRUE(t.damage.ok());
  EXPECT_EQ(t.stats.unknown_records, 0u);
  ASSERT_EQ(t.records.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(Describe(t.records[i].event), Describe(events[i]));
    EXPECT_EQ(t.records[i].timestamp, 100 + i);
  }
}

TEST(OprofileRecordsTest, RefusesDebugLinesWithBadFileTable) {
  const Event event =
      OprofileDebugLinesEvent{1, 0x9000, 0x1000, 3, kLines, FileTable{kEnds, "A.javapkg/B.java"}};
  const size_t size = EncodedRecordSize(event);
  std::vector<uint64_t> storage(size / 8);
  auto* body = reinterpret_cast<uint8_t*>(storage.data()) + sizeof(RecordHeader);
  EncodeRecordBody(event, 1, body);
  const std::span<const uint8_t> span{body, size - sizeof(RecordHeader)};

  // An entry naming file 2 of 2.
  uint32_t file = 2;
  std::memcpy(body + sizeof(OprofileDebugLinesRecord) + 12, &file, sizeof(file));
  auto decoded = DecodeRecordBody(RecordType::kOprofileDebugLines, span);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().message(), "debug-lines record names file 2 of 2");

  // File name ends past the names.
  EncodeRecordBody(event, 1, body);
  uint32_t end = 1000;
  std::memcpy(body + sizeof(OprofileDebugLinesRecord) + sizeof(kLines) + 4, &end, sizeof(end));
  decoded = DecodeRecordBody(RecordType::kOprofileDebugLines, span);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().message(), "debug-lines record has an invalid file table");
}

}  // namespace
}  // namespace jitscope::trace
