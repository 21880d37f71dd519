// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The recording unwinder's two threads (walk/recording_unwinder.h): the recorder's, which
// gathers records into batches and hands them over, and the one that unwinds them into the
// samples file. Whatever the batch size, every record reaches the file once, in the order it was
// appended, each sample either unwound or as recorded. (unwound_session_test.cc checks what the
// unwound samples say; the TSan build runs this one.)
#include "jitscope/walk/recording_unwinder.h"

#include <linux/perf_event.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/session/samples_file.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::walk {
namespace {

// What a file's records are, in order: a record but a sample as it is, a sample as its time.
std::vector<std::string> Outline(std::string_view bytes, size_t offset) {
  std::vector<std::string> outline;
  while (const std::optional<std::string_view> record = session::RecordAt(bytes, offset)) {
    offset += record->size();
    const uint32_t type = session::RecordHeader(*record).type;
    if (type != PERF_RECORD_SAMPLE && type != session::kRecordUnwoundSample) {
      outline.emplace_back(*record);
      continue;
    }
    session::Sample sample;
    EXPECT_TRUE(session::ParseSampleRecord(*record, session::SampleLayout{}, sample).ok());
    outline.push_back("sample at " + std::to_string(sample.time_ns));
  }
  return outline;
}

class RecordingUnwinderTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RecordingUnwinderTest, EveryRecordReachesTheFileOnceInOrder) {
  test_support::TempDir tmp;
  const std::string dir = tmp.path() + "/onednn";
  std::filesystem::copy(std::string(RECORDED_SESSIONS) + "/onednn", dir,
                        std::filesystem::copy_options::recursive);
  const std::string recorded = test_support::ReadFile(dir + "/" + session::kSamplesFileName);
  const base::StatusOr<session::SamplesHeader> header = session::ReadSamplesHeader(recorded);
  ASSERT_TRUE(header.ok()) << header.status().message();
  std::filesystem::remove(dir + "/" + session::kSamplesFileName);

  auto done = std::make_shared<RecordingUnwinding>();
  {
    auto unwinder = RecordingUnwinder::Create(dir, header->flags, header->format, GetParam(), done);
    ASSERT_TRUE(unwinder.ok()) << unwinder.status().message();
    size_t offset = header->size;
    while (const std::optional<std::string_view> record = session::RecordAt(recorded, offset)) {
      offset += record->size();
      ASSERT_TRUE((*unwinder)->Append(*record).ok());
    }
    ASSERT_TRUE((*unwinder)->Flush().ok());
  }
  const std::string written = test_support::ReadFile(dir + "/" + session::kSamplesFileName);
  const std::vector<std::string> expected = Outline(recorded, header->size);
  EXPECT_EQ(Outline(written, header->size), expected);
  const size_t samples = static_cast<size_t>(
      std::count_if(expected.begin(), expected.end(),
                    [](const std::string& line) { return line.starts_with("sample at "); }));
  EXPECT_EQ(done->unwound + done->deferred, samples);
  EXPECT_GT(done->unwound, 0u);
  EXPECT_GE(done->batches, 1u);
}

// One record a batch, a few, and all of them in one.
INSTANTIATE_TEST_SUITE_P(BatchSizes, RecordingUnwinderTest,
                         ::testing::Values(1, 16 << 10, 64 << 20));

// Samples without registers cannot be unwound: the unwinder is for --call-graph dwarf files.
TEST(RecordingUnwinderErrors, ASessionWithoutStackCopiesIsRefused) {
  test_support::TempDir tmp;
  auto unwinder = RecordingUnwinder::Create(tmp.path(), 0, session::SamplesFormat{}, 1 << 20);
  ASSERT_FALSE(unwinder.ok());
  EXPECT_EQ(unwinder.status().message(),
            "only samples with registers and stack copies are unwound");
}

}  // namespace
}  // namespace jitscope::walk
