// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope dump` on traces written here with the trace writer: exact text output, and what a
// damaged or foreign file gives.
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/trace/format.h"
#include "jitscope/trace/writer.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope {
namespace {

using test_support::RunProgram;
using test_support::TempDir;

std::string WriteTrace(const std::string& dir) {
  auto fd = base::CreateExclusive(dir, "t.jsc");
  EXPECT_TRUE(fd.ok());
  auto writer = trace::TraceWriter::Create(std::move(fd).value(), {99, "/bin/jit", 5, 6});
  EXPECT_TRUE(writer.ok());
  static constexpr trace::LineEntry kLines[] = {{1, 2}, {12, 4}};
  trace::CodeEvent v3;
  v3.api_event = trace::kEventMethodLoadFinishedV3;
  v3.method_id = 1000;
  v3.address = 0x1000;
  v3.size = 12;
  v3.name = "say \"hi\"\n";
  v3.source_file = "a.js";
  v3.module = "tier1";
  v3.arch = 2;
  v3.lines = kLines;
  trace::CodeEvent in;
  in.api_event = trace::kEventMethodInlineLoadFinished;
  in.method_id = 2000;
  in.parent_method_id = 1000;
  in.address = 0x1004;
  in.size = 4;
  in.name = "callee";
  (*writer)->Append(v3, 10, 3);
  (*writer)->Append(in, 11, 3);
  (*writer)->Append(trace::RangeUpdateEvent{0x1008, 4, 1, std::nullopt}, 12, 3);
  // Another thread: its records land in a chunk of their own (the tid is per chunk).
  std::thread([&] {
    (*writer)->Append(trace::UnloadEvent{1000}, 13, 4);
    (*writer)->Append(trace::RejectedEvent{13, trace::RejectReason::kNullName}, 14, 4);
    (*writer)->Append(trace::ShutdownEvent{}, 15, 4);
  }).join();
  return dir + "/t.jsc";
}

TEST(DumpCommandTest, TextHasOneStableLinePerRecord) {
  TempDir dir;
  const std::string path = WriteTrace(dir.path());
  auto dump = RunProgram({JITSCOPE_CLI, "dump", path});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(
      dump.out,
      "# jitscope trace v2 pid=99 exe=\"/bin/jit\" start_monotonic_ns=5\n"
      "10 tid=3 METHOD_LOAD_FINISHED_V3 id=1000 addr=0x1000 size=12 name=\"say \\\"hi\\\"\\n\" "
      "class=- source=\"a.js\" module=\"tier1\" arch=2 lines=[1:2 12:4]\n"
      "11 tid=3 METHOD_INLINE_LOAD_FINISHED id=2000 parent=1000 addr=0x1004 size=4 "
      "name=\"callee\" class=- source=- lines=[]\n"
      "12 tid=3 METHOD_UPDATE_V2 addr=0x1008 size=4 type=1 format=-\n"
      "13 tid=4 METHOD_UNLOAD_START id=1000\n"
      "14 tid=4 REJECTED event=METHOD_LOAD_FINISHED reason=null_name\n"
      "15 tid=4 SHUTDOWN\n"
      "# 6 records, rejected null_name=1\n");
  EXPECT_EQ(dump.err, "");
}

TEST(DumpCommandTest, AChainFileShowsItsLinkAndMarksItsRepeats) {
  TempDir dir;
  auto fd = base::CreateExclusive(dir.path(), "jit-99.1.jsc");
  ASSERT_TRUE(fd.ok());
  auto writer = trace::TraceWriter::Create(std::move(fd).value(), {99, "/bin/jit", 5, 6});
  ASSERT_TRUE(writer.ok());
  (*writer)->Append(trace::ChainLinkEvent{1, 8192, "jit-99.jsc"}, 20, 3);
  (*writer)->Append(trace::UnloadEvent{7}, 4, 3, trace::kRecordFlagSnapshot);
  (*writer)->Append(trace::SnapshotEndEvent{1}, 20, 3);
  const std::string path = dir.path() + "/jit-99.1.jsc";
  auto text = RunProgram({JITSCOPE_CLI, "dump", path});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out,
            "# jitscope trace v2 pid=99 exe=\"/bin/jit\" start_monotonic_ns=5\n"
            "snapshot 4 tid=3 METHOD_UNLOAD_START id=7\n"
            "20 tid=3 CHAIN_LINK sequence=1 previous=\"jit-99.jsc\" previous_size=8192\n"
            "20 tid=3 SNAPSHOT_END records=1\n"
            "# 3 records\n");
  auto json = RunProgram({JITSCOPE_CLI, "dump", "--json", path});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out,
            "{\"exe\":\"/bin/jit\",\"pid\":99,\"pointer_size\":" + std::to_string(sizeof(void*)) +
                ",\"start_monotonic_ns\":5,\"start_realtime_ns\":6,\"type\":\"header\","
                "\"version\":2}\n"
                "{\"event\":\"METHOD_UNLOAD_START\",\"method_id\":7,\"snapshot\":true,\"tid\":3,"
                "\"timestamp\":4,\"type\":\"unload\"}\n"
                "{\"event\":\"CHAIN_LINK\",\"previous\":\"jit-99.jsc\",\"previous_size\":8192,"
                "\"sequence\":1,\"tid\":3,\"timestamp\":20,\"type\":\"chain_link\"}\n"
                "{\"event\":\"SNAPSHOT_END\",\"records\":1,\"tid\":3,\"timestamp\":20,"
                "\"type\":\"snapshot_end\"}\n"
                "{\"damaged_regions\":0,\"records\":3,\"rejected\":{},\"torn_records\":0,"
                "\"type\":\"summary\",\"unknown_records\":0}\n");
}

TEST(DumpCommandTest, DamagedFilePrintsWhatIsReadableThenOneErrorLine) {
  TempDir dir;
  const std::string path = WriteTrace(dir.path());
  {
    // Break the size of the third record of the first chunk, found by walking the chunk.
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    uint64_t offset = trace::kGranule + sizeof(trace::ChunkHeader);
    for (int i = 0; i < 2; ++i) {
      uint32_t size = 0;
      file.seekg(static_cast<std::streamoff>(offset));
      file.read(reinterpret_cast<char*>(&size), sizeof(size));
      offset += size;
    }
    const uint32_t bad = 12;
    file.seekp(static_cast<std::streamoff>(offset));
    file.write(reinterpret_cast<const char*>(&bad), sizeof(bad));
  }
  auto dump = RunProgram({JITSCOPE_CLI, "dump", path});
  EXPECT_EQ(dump.exit_code, 1);
  EXPECT_NE(dump.out.find("11 tid=3 METHOD_INLINE_LOAD_FINISHED"), std::string::npos);
  EXPECT_EQ(dump.out.find("METHOD_UPDATE_V2"), std::string::npos);
  EXPECT_NE(dump.out.find("13 tid=4 METHOD_UNLOAD_START"), std::string::npos)
      << "records of other chunks are still read";
  EXPECT_EQ(dump.err, "jitscope dump: error: " + path +
                          ": damaged trace at offset 4304: invalid record size\n");
}

TEST(DumpCommandTest, ForeignAndMissingFiles) {
  TempDir dir;
  std::ofstream(dir.path() + "/text") << "hello";
  auto dump = RunProgram({JITSCOPE_CLI, "dump", dir.path() + "/text"});
  EXPECT_EQ(dump.exit_code, 1);
  EXPECT_EQ(dump.out, "");
  EXPECT_EQ(dump.err,
            "jitscope dump: error: " + dir.path() + "/text: not a jitscope trace (bad magic)\n");
  dump = RunProgram({JITSCOPE_CLI, "dump", dir.path() + "/missing"});
  EXPECT_EQ(dump.exit_code, 1);
  EXPECT_EQ(dump.err, "jitscope dump: error: cannot open " + dir.path() +
                          "/missing: No such file or directory\n");
}

TEST(CommandLineTest, WrongArgumentsGiveOneLineAndAUsageHint) {
  auto result = RunProgram({JITSCOPE_CLI, "dump"});
  EXPECT_EQ(result.exit_code, 2);
  // A mistake in a command's arguments names the command's help.
  EXPECT_EQ(result.err,
            "jitscope dump: error: FILE is required\nRun 'jitscope dump --help' for usage.\n");
  result = RunProgram({JITSCOPE_CLI, "frobnicate"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("Run 'jitscope --help' for usage."), std::string::npos);
  result = RunProgram({JITSCOPE_CLI, "--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find("dump"), std::string::npos);
}

// The peak resident memory of the largest of this process's children is below `kib` (not checked
// in sanitized builds, whose runtimes take memory of their own).
void ExpectChildrenPeakBelow(long kib, const std::string& what) {
  struct rusage usage {};
  ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &usage), 0);
  std::printf("largest child: %ld KiB\n", usage.ru_maxrss);
#ifndef JITSCOPE_SANITIZED_BUILD
  EXPECT_LT(usage.ru_maxrss, kib) << "KiB to dump " << what;
#else
  (void)kib;
  (void)what;
#endif
}

// A record with 2 million line entries (16 MB of the file): dump writes a line table as it goes,
// so what it holds is the mapped file and a row at a time, however long the table (a table of 10
// million entries took 2.1 GB to print, 3.8 GB as JSON: every row as cells, then as text).
TEST(DumpCommandTest, AHugeLineTableIsWrittenWithoutHoldingIt) {
  TempDir dir;
  constexpr uint32_t kEntries = 2'000'000;
  std::vector<trace::LineEntry> lines(kEntries);
  for (uint32_t i = 0; i < kEntries; ++i) lines[i] = {i % 4096, i + 1};
  {
    auto fd = base::CreateExclusive(dir.path(), "big.jsc");
    ASSERT_TRUE(fd.ok());
    auto writer = trace::TraceWriter::Create(std::move(fd).value(), {99, "/bin/jit", 5, 6});
    ASSERT_TRUE(writer.ok());
    trace::CodeEvent code;
    code.api_event = trace::kEventMethodLoadFinished;
    code.method_id = 1000;
    code.address = 0x1000;
    code.size = 4096;
    code.name = "big";
    code.lines = lines;
    ASSERT_EQ((*writer)->Append(code, 10, 3), trace::TraceWriter::AppendResult::kOk);
  }
  for (const bool json : {false, true}) {
    SCOPED_TRACE(json ? "--json" : "text");
    std::vector<std::string> argv = {JITSCOPE_CLI, "dump", dir.path() + "/big.jsc"};
    if (json) argv.insert(argv.begin() + 2, "--json");
    const auto run = RunProgram(argv);
    ASSERT_TRUE(run.ok()) << run.Describe().substr(0, 2000);
    // The table whole and in order: its first rows, its last, and one separator between rows.
    const std::string first =
        json ? "[{\"line\":1,\"offset\":0},{\"line\":2,\"offset\":1}," : "[0:1 1:2 ";
    const std::string last = json ? ",{\"line\":2000000,\"offset\":1151}]" : " 1151:2000000]";
    EXPECT_NE(run.out.find(first), std::string::npos);
    EXPECT_NE(run.out.find(last), std::string::npos);
    const std::string row = json ? "\"offset\":" : ":";
    size_t rows = 0;
    for (size_t at = run.out.find(row); at != std::string::npos; at = run.out.find(row, at + 1)) {
      ++rows;
    }
    EXPECT_EQ(rows, kEntries);
  }
  // The largest of this test's children (the dumps, and the short runs of the tests before).
  ExpectChildrenPeakBelow(96 * 1024, "a 16 MB line table");
}

// The peak resident memory of this process made what it is now (proc(5), clear_refs). A program
// it starts takes on that peak (posix_spawn's child shares this process's memory until exec), so
// a test that measures its children's peak (RUSAGE_CHILDREN) calls this before starting each.
// What this process freed goes back to the system first: the tens of megabytes of the run before
// (its output, what it was compared with) can stay in malloc's heap, resident, depending on the
// sizes in which the output was read, and the child would take them on.
void ResetPeakMemory() {
  ::malloc_trim(0);
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
  clear_refs.close();
  ASSERT_TRUE(clear_refs) << "cannot reset the peak memory of the test";
}

// A trace of a million records, whose time goes back every thousand records (as the chunks of two
// threads interleave): dump writes each record as it reads it, in time order, and holds neither
// the records (the old dump held them all: ~400 MB for these) nor the whole file.
TEST(DumpCommandTest, AMillionRecordsAreWrittenWithoutHoldingThem) {
  TempDir dir;
  constexpr uint32_t kRecords = 1'000'000;
  constexpr uint32_t kBlock = 1000;
  // Record i is of block i / kBlock; blocks 2k and 2k + 1 have the same times.
  const auto time_of = [](uint32_t i) { return uint64_t{i / kBlock / 2 * kBlock + i % kBlock}; };
  {
    auto fd = base::CreateExclusive(dir.path(), "many.jsc");
    ASSERT_TRUE(fd.ok());
    auto writer = trace::TraceWriter::Create(std::move(fd).value(), {99, "/bin/jit", 5, 6});
    ASSERT_TRUE(writer.ok());
    for (uint32_t i = 0; i < kRecords; ++i) {
      ASSERT_EQ((*writer)->Append(trace::UnloadEvent{i}, time_of(i), 3),
                trace::TraceWriter::AppendResult::kOk);
    }
  }
  for (const bool json : {false, true}) {
    SCOPED_TRACE(json ? "--json" : "text");
    std::vector<std::string> argv = {JITSCOPE_CLI, "dump", dir.path() + "/many.jsc"};
    if (json) argv.insert(argv.begin() + 2, "--json");
    ResetPeakMemory();
    const auto run = RunProgram(argv);
    ASSERT_TRUE(run.ok()) << run.Describe().substr(0, 2000);
    if (json) {
      EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), kRecords + 2);
      EXPECT_NE(run.out.find(R"({"event":"METHOD_UNLOAD_START","method_id":1000,"tid":3,)"
                             R"("timestamp":0,"type":"unload"})"),
                std::string::npos);
      continue;
    }
    // In time order; of two records of one time, the one first in the file first.
    std::string expected;
    for (uint32_t pair = 0; pair < kRecords / kBlock / 2; ++pair) {
      for (uint32_t j = 0; j < kBlock; ++j) {
        for (const uint32_t block : {2 * pair, 2 * pair + 1}) {
          const uint32_t i = block * kBlock + j;
          expected += fmt::format("{} tid=3 METHOD_UNLOAD_START id={}\n", time_of(i), i);
        }
      }
    }
    const size_t body = run.out.find('\n') + 1;
    const std::string summary = "# 1000000 records\n";
    ASSERT_GE(run.out.size(), body + summary.size());
    EXPECT_TRUE(run.out.compare(body, run.out.size() - body - summary.size(), expected) == 0)
        << run.out.substr(body, 400);
    EXPECT_EQ(run.out.substr(run.out.size() - summary.size()), summary);
  }
  ExpectChildrenPeakBelow(32 * 1024, "a million records (a 24 MB trace)");
}

}  // namespace
}  // namespace jitscope
