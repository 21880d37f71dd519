// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A --call-graph dwarf session unwound when `jitscope record` ends (walk/unwound_session.h):
// the checked-in recorded sessions (recorded/README.md), each copied and unwound, give the very
// report their stack copies give when report unwinds them, from a samples file that keeps
// addresses instead of stack copies.
#include "jitscope/walk/unwound_session.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/formats/jitdump_reader.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/walk/recording_unwinder.h"
#include "support/files.h"
#include "support/process.h"
#include "support/report_header.h"
#include "support/temp_dir.h"

namespace jitscope::walk {
namespace {

using test_support::RunProgram;

const std::string kRecorded = RECORDED_SESSIONS;

// `jitscope report DIR` with `arguments`: what it printed, with DIR's path replaced by "DIR" so
// that reports of two copies of a session compare.
std::string Report(const std::string& dir, const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {JITSCOPE_CLI, "report", dir};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  auto result = RunProgram(argv);
  EXPECT_TRUE(result.ok()) << result.Describe();
  std::string out = result.out;
  for (size_t at = out.find(dir); at != std::string::npos; at = out.find(dir, at)) {
    out.replace(at, dir.size(), "DIR");
  }
  return out;
}

session::SamplesHeader HeaderOf(const std::string& dir) {
  auto mapped = base::MappedFile::Open(dir + "/" + session::kSamplesFileName);
  EXPECT_TRUE(mapped.ok()) << mapped.status().message();
  if (!mapped.ok()) return {};
  auto header = session::ReadSamplesHeader(mapped->bytes());
  EXPECT_TRUE(header.ok()) << header.status().message();
  return header.ok() ? *header : session::SamplesHeader{};
}

// How many walks of the session in `dir` found no rule, as its report says.
uint64_t NoRuleWalks(const std::string& dir) {
  const std::map<std::string, uint64_t> ends =
      test_support::CountsAfter(Report(dir, {}), "walks ending in: ");
  return ends.count("no rule") ? ends.at("no rule") : 0;
}

class UnwoundSessionTest : public ::testing::TestWithParam<const char*> {
 protected:
  // A copy of the recorded session, which the test may change.
  std::string CopyOfSession() {
    const std::string copy = temp_.path() + "/" + GetParam();
    std::filesystem::copy(kRecorded + "/" + GetParam(), copy,
                          std::filesystem::copy_options::recursive);
    return copy;
  }
  test_support::TempDir temp_;
};

TEST_P(UnwoundSessionTest, ReportsAsTheStackCopiesDo) {
  const std::string original = CopyOfSession();
  const std::string unwound = temp_.path() + "/unwound";
  std::filesystem::copy(original, unwound, std::filesystem::copy_options::recursive);

  base::StatusOr<SessionUnwinding> result = UnwindSession(unwound);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_GT(result->samples, 0u);
  EXPECT_EQ(result->dropped, 0u);
  EXPECT_EQ(result->bytes_before, std::filesystem::file_size(original + "/samples.jss"));
  EXPECT_EQ(result->bytes_after, std::filesystem::file_size(unwound + "/samples.jss"));
  // Addresses instead of kilobytes of stack per sample.
  EXPECT_LT(result->bytes_after * 3, result->bytes_before);
  EXPECT_FALSE(std::filesystem::exists(unwound + "/" + kUnwindingFileName));

  const session::SamplesHeader header = HeaderOf(unwound);
  EXPECT_TRUE(header.format.layout.unwound);
  EXPECT_EQ(header.format.layout.sample_type, session::kSampleType);
  EXPECT_EQ(header.format.stack_size, HeaderOf(original).format.stack_size);

  for (const std::vector<std::string>& arguments : std::vector<std::vector<std::string>>{
           {"--format", "folded"}, {"--top", "0"}, {"--sort", "line", "--top", "0"}}) {
    const std::string expected = Report(original, arguments);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(Report(unwound, arguments), expected) << arguments.front();
  }
  // The report says how the walks ended, whichever unwound them.
  EXPECT_NE(Report(unwound, {}).find("walks ending in: "), std::string::npos);
}

TEST_P(UnwoundSessionTest, IsUnwoundOnce) {
  const std::string dir = CopyOfSession();
  ASSERT_TRUE(UnwindSession(dir).ok());
  const std::string before = Report(dir, {"--format", "folded"});
  base::StatusOr<SessionUnwinding> again = UnwindSession(dir);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message(), dir + ": its samples are unwound already");
  EXPECT_EQ(Report(dir, {"--format", "folded"}), before);
}

// A file of an earlier unwinding that did not finish (the recorder was killed) is replaced.
TEST_P(UnwoundSessionTest, ReplacesAnUnfinishedUnwinding) {
  const std::string dir = CopyOfSession();
  const std::string expected = Report(dir, {"--format", "folded"});
  ASSERT_TRUE(test_support::WriteFile(dir + "/" + kUnwindingFileName, "JSSAMPLE torn"));
  ASSERT_TRUE(UnwindSession(dir).ok());
  EXPECT_EQ(Report(dir, {"--format", "folded"}), expected);
}

// Stopped midway (record's Ctrl-C), the unwinding leaves the session as recorded and no file of
// its own: the next unwinding, or report, starts from the stack copies.
TEST_P(UnwoundSessionTest, AnInterruptedUnwindingLeavesTheSessionAsRecorded) {
  const std::string dir = CopyOfSession();
  const std::string expected = Report(dir, {"--format", "folded"});
  const std::string recorded = test_support::ReadFile(dir + "/samples.jss");
  int asked = 0;
  base::StatusOr<SessionUnwinding> stopped = UnwindSession(dir, [&asked] { return ++asked > 0; });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().message(), "interrupted");
  EXPECT_EQ(asked, 1) << "asked before the first sample, and stopped there";
  EXPECT_FALSE(std::filesystem::exists(dir + "/" + kUnwindingFileName));
  EXPECT_EQ(test_support::ReadFile(dir + "/samples.jss"), recorded);
  EXPECT_FALSE(HeaderOf(dir).format.layout.unwound);
  EXPECT_EQ(Report(dir, {"--format", "folded"}), expected);
  EXPECT_TRUE(UnwindSession(dir, [] { return false; }).ok());
  EXPECT_EQ(Report(dir, {"--format", "folded"}), expected);
}

// `record` (of `format`) as the kernel wrote it: a sample's stack copy the whole size asked for,
// where the session keeps the bytes of the stack in use (dyn_size).
std::string AsTheKernelWroteIt(std::string_view record, const session::SamplesFormat& format) {
  session::Sample sample;
  if (session::RecordHeader(record).type != PERF_RECORD_SAMPLE ||
      !session::ParseSampleRecord(record, format.layout, sample).ok() ||
      sample.stack.data() == nullptr) {
    return std::string(record);
  }
  const size_t data_at = static_cast<size_t>(sample.stack.data() - record.data());
  uint64_t kept = 0;
  std::memcpy(&kept, record.data() + data_at - sizeof(kept), sizeof(kept));
  const uint64_t size = format.stack_size;
  std::string out(record.substr(0, data_at - sizeof(size)));
  out.append(reinterpret_cast<const char*>(&size), sizeof(size));
  out.append(record.substr(data_at, kept));
  out.append(size - kept, '\xaa');
  if (kept == 0) out.append(sizeof(uint64_t), '\0');  // dyn_size, left out after no data
  out.append(record.substr(data_at + kept));
  const auto new_size = static_cast<uint16_t>(out.size());
  std::memcpy(out.data() + offsetof(perf_event_header, size), &new_size, sizeof(new_size));
  return out;
}

// The session's records, as `jitscope record` drained them from the kernel's rings, through a
// RecordingUnwinder with batches of `batch_bytes` into a new samples file in `dir`; what it did.
// Without `exits`, the recording never saw a process exit.
RecordingUnwinding RecordAgain(const std::string& dir, uint64_t batch_bytes, bool exits = true) {
  const std::string recorded = test_support::ReadFile(dir + "/" + session::kSamplesFileName);
  const base::StatusOr<session::SamplesHeader> header = session::ReadSamplesHeader(recorded);
  EXPECT_TRUE(header.ok()) << header.status().message();
  if (!header.ok()) return {};
  std::filesystem::remove(dir + "/" + session::kSamplesFileName);
  auto done = std::make_shared<RecordingUnwinding>();
  auto unwinder = RecordingUnwinder::Create(dir, header->flags, header->format, batch_bytes, done);
  EXPECT_TRUE(unwinder.ok()) << unwinder.status().message();
  if (!unwinder.ok()) return {};
  size_t offset = header->size;
  while (const std::optional<std::string_view> record = session::RecordAt(recorded, offset)) {
    offset += record->size();
    if (!exits && session::RecordHeader(*record).type == PERF_RECORD_EXIT) continue;
    EXPECT_TRUE((*unwinder)->Append(AsTheKernelWroteIt(*record, header->format)).ok());
  }
  EXPECT_TRUE((*unwinder)->Flush().ok());
  return *done;
}

// Unwound while it was recorded, batch by batch, the session gives the report its stack copies
// give: each sample unwound then is stored as it would have been at the end, the others are
// unwound by report (the file mixes both), and the unwinding at the end makes the same file an
// unwound one.
TEST_P(UnwoundSessionTest, UnwoundWhileRecordedReportsAsTheStackCopiesDo) {
  const std::string original = CopyOfSession();
  const std::string mixed = temp_.path() + "/mixed";
  std::filesystem::copy(original, mixed, std::filesystem::copy_options::recursive);
  const size_t samples = session::ReadSamplesFile(original + "/samples.jss")->samples.size();

  const RecordingUnwinding counts = RecordAgain(mixed, 32 << 10);
  EXPECT_GT(counts.batches, 2u);
  EXPECT_EQ(counts.unwound + counts.deferred, samples);
  // What is left for the end is the walks with no rule, few: the native files are the session's
  // archived copies, the JIT code is in the collector's trace, written as it is loaded, and LLVM
  // writes its jitdump record by record, before it runs the code.
  EXPECT_EQ(counts.deferred, NoRuleWalks(original));
  EXPECT_GT(counts.unwound * 10, samples * 9) << counts.deferred << " deferred";
  EXPECT_EQ(HeaderOf(mixed).format, HeaderOf(original).format);

  const std::vector<std::vector<std::string>> reports = {
      {"--format", "folded"}, {"--top", "0"}, {"--sort", "line", "--top", "0"}};
  for (const std::vector<std::string>& arguments : reports) {
    EXPECT_EQ(Report(mixed, arguments), Report(original, arguments)) << arguments.front();
  }
  base::StatusOr<SessionUnwinding> result = UnwindSession(mixed);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->samples, samples);
  EXPECT_EQ(result->dropped, 0u);
  EXPECT_TRUE(HeaderOf(mixed).format.layout.unwound);
  for (const std::vector<std::string>& arguments : reports) {
    EXPECT_EQ(Report(mixed, arguments), Report(original, arguments)) << arguments.front();
  }
}

INSTANTIATE_TEST_SUITE_P(RecordedSessions, UnwoundSessionTest,
                         ::testing::Values("jitvm-nofp", "lli", "onednn"), [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

// A jitdump written through a stdio buffer, flushed a block at a time (V8's), may not hold the
// code its engine loaded last yet: the samples taken after its last record wait for the end,
// unless the recording has seen the process exit, which flushed the buffer.
TEST(UnwoundWhileRecorded, ABufferedJitdumpsLaterSamplesWaitUntilItsProcessExits) {
  test_support::TempDir temp;
  const std::string original = temp.path() + "/lli";
  std::filesystem::copy(kRecorded + "/lli", original, std::filesystem::copy_options::recursive);
  const std::string jitdump = original + "/jit-24752.dump";
  std::string bytes = test_support::ReadFile(jitdump);
  base::StatusOr<formats::ParsedJitdump> parsed = formats::ParseJitdump(
      std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), jitdump);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  uint64_t last = 0;
  for (const formats::JitdumpRecord& record : parsed->records) {
    last = std::max(last, record.timestamp);
  }
  // What such a flush leaves: a record torn where the block ends.
  const uint32_t torn[4] = {0, 8192, 0, 0};
  bytes.append(reinterpret_cast<const char*>(torn), sizeof(torn));
  ASSERT_LT(bytes.size(), 4096u);
  bytes.resize(4096, '\x5a');
  ASSERT_TRUE(test_support::WriteFile(jitdump, bytes));

  uint64_t later = 0;
  session::ReadSamplesFile(original + "/samples.jss")->ForEachSample([&](const auto& sample) {
    later += sample.time_ns > last;
  });
  ASSERT_GT(later, 20u);
  const uint64_t no_rule = NoRuleWalks(original);

  const std::string running = temp.path() + "/running";
  std::filesystem::copy(original, running, std::filesystem::copy_options::recursive);
  const RecordingUnwinding waited = RecordAgain(running, 32 << 10, /*exits=*/false);
  EXPECT_GE(waited.deferred, later);
  EXPECT_LE(waited.deferred, later + no_rule);

  const std::string exited = temp.path() + "/exited";
  std::filesystem::copy(original, exited, std::filesystem::copy_options::recursive);
  const RecordingUnwinding whole = RecordAgain(exited, bytes.size() + (1 << 20));
  EXPECT_EQ(whole.batches, 1u);
  EXPECT_EQ(whole.deferred, no_rule);
  EXPECT_EQ(Report(exited, {"--format", "folded"}), Report(original, {"--format", "folded"}));
}

TEST(UnwoundSessionErrors, AFramePointerSessionHasNothingToUnwind) {
  test_support::TempDir temp;
  const std::string dir = temp.path() + "/fp";
  std::filesystem::create_directory(dir);
  {
    auto writer = session::SamplesWriter::Create(dir, 0);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    ASSERT_TRUE(writer->Flush().ok());
  }
  base::StatusOr<SessionUnwinding> result = UnwindSession(dir);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), dir + ": not a --call-graph dwarf session");
}

TEST(UnwoundSessionErrors, NoSessionThere) {
  test_support::TempDir temp;
  EXPECT_FALSE(UnwindSession(temp.path() + "/none").ok());
}

}  // namespace
}  // namespace jitscope::walk
