// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: programs that carry an ittnotify static part (fake_static_part.h, in either layout
// of its API list; built for i386 too) load the real libjitscope-collector.so from
// INTEL_LIBITTNOTIFY64 (32) and make ITT calls; their traces are read back with the real
// `jitscope dump` and compared exactly. The hostile calls, a million names, and SIGKILL at random
// moments while threads begin and end tasks.
#include <signal.h>

#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/trace/reader.h"
#include "support/fault_runs.h"
#include "support/files.h"
#include "support/i386_kernel.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/traces.h"

namespace jitscope {
namespace {

using test_support::RunProgram;
using test_support::TempDir;

std::map<std::string, std::string> IttEnv(const std::string& dir) {
  return {{"INTEL_LIBITTNOTIFY64", JITSCOPE_COLLECTOR},
          {"JITSCOPE_OUTPUT_DIR", dir},
          {"JITSCOPE_LOG", dir + "/collector.log"}};
}

// `jitscope dump` of the one trace in `dir`, its records' lines without their timestamps and with
// the main thread's tid (the pid) spelled "main", then the summary line.
std::vector<std::string> DumpLines(const std::string& dir, std::string* timestamps = nullptr) {
  auto trace = test_support::FindTrace(dir);
  if (!trace.ok()) {
    ADD_FAILURE() << trace.status().message();
    return {};
  }
  auto dump = RunProgram({JITSCOPE_CLI, "dump", *trace});
  EXPECT_EQ(dump.exit_code, 0) << dump.Describe();
  const std::string pid =
      trace->substr(trace->rfind("jit-") + 4, trace->rfind(".jsc") - trace->rfind("jit-") - 4);
  std::vector<std::string> lines;
  std::istringstream in(dump.out);
  const std::regex record("^([0-9]+) tid=([0-9]+) (.*)$");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("# jitscope trace")) continue;
    std::smatch m;
    if (std::regex_match(line, m, record)) {
      if (timestamps != nullptr) *timestamps += m[1].str() + "\n";
      line = "tid=" + (m[2] == pid ? std::string("main") : m[2].str()) + " " + m[3].str();
      line = std::regex_replace(line, std::regex("thread=" + pid), "thread=main");
    }
    lines.push_back(line);
  }
  return lines;
}

const std::vector<std::string> kCallsTrace = {
    "tid=main ITT_STRING string=1 text=\"test.domain\"",
    "tid=main ITT_STRING string=2 text=\"outer\"",
    "tid=main ITT_STRING string=3 text=\"inner\"",
    "tid=main __itt_thread_set_name thread=main name=\"main thread\"",
    "tid=main __itt_task_begin domain=1 name=2 id=0x1:0x0 parent=0x0:0x0",
    "tid=main __itt_task_begin domain=1 name=3 id=0x0:0x0 parent=0x1:0x0",
    "tid=main __itt_task_end domain=1",
    "tid=main __itt_task_end domain=1",
    // The static part's own domain and handle, numbered when first used.
    "tid=main ITT_STRING string=4 text=\"early.domain\"",
    "tid=main ITT_STRING string=5 text=\"early_task\"",
    "tid=main __itt_task_begin domain=4 name=5 id=0x0:0x0 parent=0x0:0x0",
    "tid=main __itt_task_end domain=4",
    "tid=main __itt_task_begin_fn domain=1 name=0 id=0x0:0x0 parent=0x0:0x0 fn=0x1234",
    "tid=main __itt_task_end domain=1",
    "tid=main __itt_task_begin_overlapped domain=1 name=2 id=0x2:0x0 parent=0x0:0x0",
    "tid=main __itt_task_begin_overlapped domain=1 name=3 id=0x3:0x0 parent=0x0:0x0",
    "tid=main __itt_task_end_overlapped domain=1 id=0x2:0x0",
    "tid=main __itt_task_end_overlapped domain=1 id=0x3:0x0",
    "tid=main __itt_region_begin domain=1 name=2 id=0x4:0x7 parent=0x0:0x0",
    "tid=main __itt_region_end domain=1 id=0x4:0x7",
    "tid=main __itt_task_group domain=1 name=2 id=0x5:0x0 parent=0x0:0x0",
    "tid=main __itt_frame_begin_v3 domain=1 id=0x0:0x0",
    "tid=main __itt_frame_end_v3 domain=1 id=0x0:0x0",
    "tid=main __itt_marker domain=1 name=3 id=0x0:0x0 scope=1",
    "tid=main ITT_STRING string=6 text=\"requests\"",
    "tid=main __itt_counter_create counter=1 domain=1 name=6 type=1",
    "tid=main ITT_COUNTER_VALUE counter=1 value=1",
    "tid=main ITT_COUNTER_VALUE counter=1 value=11",
    "tid=main ITT_COUNTER_VALUE counter=1 value=10",
    "tid=main ITT_STRING string=7 text=\"load\"",
    "tid=main __itt_counter_create counter=2 domain=0 name=7 type=8",
    "tid=main ITT_COUNTER_VALUE counter=2 value=4602678819172646912",  // 0.5
    "tid=main ITT_COUNTER_VALUE counter=2 value=4609434218613702656",  // 1.5
    "tid=main ITT_STRING string=8 text=\"small\"",
    "tid=main __itt_counter_create counter=3 domain=1 name=8 type=6",
    "tid=main ITT_COUNTER_VALUE counter=3 value=18446744073709551614",  // -2
    "tid=main ITT_COUNTER_VALUE counter=3 value=32767",                 // -32769 in 16 bits
    "tid=main __itt_counter_create counter=4 domain=1 name=3 type=1",
    "tid=main ITT_COUNTER_VALUE counter=4 value=1",
    "tid=main ITT_COUNTER_VALUE counter=4 value=6",
    "tid=main __itt_frame_begin_v3 domain=1 id=0x6:0x0",
    "tid=main __itt_frame_end_v3 domain=1 id=0x6:0x0",
    "# 42 records",
};

void ExpectCallsTrace(const std::string& dir, const std::string& client,
                      const std::map<std::string, std::string>& env,
                      const std::vector<std::string>& args) {
  std::vector<std::string> argv = {client, "calls"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto run = RunProgram(argv, env);
  ASSERT_EQ(run.exit_code, 0) << run.Describe();
  EXPECT_EQ(run.out, "done\n");
  std::string timestamps;
  EXPECT_EQ(DumpLines(dir, &timestamps), kCallsTrace);
  // The submitted frame keeps its times: 1000 ns apart.
  std::vector<uint64_t> times;
  std::istringstream in(timestamps);
  for (uint64_t t = 0; in >> t;) times.push_back(t);
  ASSERT_EQ(times.size(), 42u);
  EXPECT_EQ(times[41] - times[40], 1000u);
}

TEST(IttEndToEnd, EveryCallIsRecordedAsCalled) {
  TempDir dir;
  ExpectCallsTrace(dir.path(), JITSCOPE_ITT_CLIENT, IttEnv(dir.path()), {});
}

// A static part of build 20101001 or before lays its API list out without null_func.
TEST(IttEndToEnd, AStaticPartOfTheOldLayoutIsWiredAlike) {
  TempDir dir;
  ExpectCallsTrace(dir.path(), JITSCOPE_ITT_CLIENT, IttEnv(dir.path()), {"old-layout"});
}

#if defined(JITSCOPE_LIB32_DIR) || defined(JITSCOPE_LIB32_UNAVAILABLE)
// The same client built for i386 loads the i386 collector from INTEL_LIBITTNOTIFY32: its static
// part's pointers and longs are 4 bytes, and its trace reads back like the 64-bit one's.
TEST(IttEndToEnd, AnI386ProgramRecordsThroughINTEL_LIBITTNOTIFY32) {
#ifdef JITSCOPE_LIB32_UNAVAILABLE
  FAIL() << JITSCOPE_LIB32_UNAVAILABLE;
#else
  TempDir dir;
  const std::string client = dir.path() + "/itt_client_i386";
  auto build = RunProgram({JITSCOPE_PLAIN_CC, "-m32", "-std=gnu99", "-Wall", "-Wextra", "-Werror",
                           JITSCOPE_ITT_CLIENT_SOURCE, "-ldl", "-lpthread", "-o", client});
  ASSERT_EQ(build.exit_code, 0) << build.err;
  if (!test_support::KernelRunsI386Programs()) GTEST_SKIP() << test_support::kNoI386Kernel;
  auto env = IttEnv(dir.path());
  env["INTEL_LIBITTNOTIFY32"] = JITSCOPE_LIB32_DIR "/libjitscope-collector.so";
  ExpectCallsTrace(dir.path(), client, env, {});
#endif
}
#endif

TEST(IttEndToEnd, HostileCallsAreRefusedOrRecordedAsCalledAndCounted) {
  TempDir dir;
  auto run = RunProgram({JITSCOPE_ITT_CLIENT, "hostile"}, IttEnv(dir.path()));
  ASSERT_EQ(run.exit_code, 0) << run.Describe();
  EXPECT_EQ(DumpLines(dir.path()),
            (std::vector<std::string>{
                "tid=main ITT_STRING string=1 text=\"hostile\"",
                "tid=main ITT_STRING string=2 text=\"task\"",
                "tid=main ITT_STRING string=3 text=\"counter\"",
                "tid=main __itt_counter_create counter=1 domain=0 name=3 type=1",
                "tid=main REJECTED event=__itt_task_begin reason=null_domain",
                "tid=main REJECTED event=__itt_task_end reason=null_domain",
                // A domain of the static part's whose name is NULL is no domain either.
                "tid=main REJECTED event=__itt_task_begin reason=null_domain",
                "tid=main __itt_task_begin domain=1 name=0 id=0x0:0x0 parent=0x0:0x0",
                "tid=main __itt_task_end domain=1",
                "tid=main __itt_task_end domain=1",
                "tid=main __itt_task_begin_overlapped domain=1 name=2 id=0x9:0x0 parent=0x0:0x0",
                "tid=main __itt_task_begin_overlapped domain=1 name=2 id=0x9:0x0 parent=0x0:0x0",
                "tid=main __itt_task_end_overlapped domain=1 id=0x9:0x0",
                "tid=main __itt_region_end domain=1 id=0xa:0x0",
                "tid=main REJECTED event=__itt_domain_create reason=null_name",
                "tid=main REJECTED event=__itt_string_handle_create reason=null_name",
                "tid=main REJECTED event=__itt_counter_create reason=null_name",
                "tid=main REJECTED event=__itt_thread_set_name reason=null_name",
                "tid=main REJECTED event=__itt_marker reason=null_domain",
                "tid=main REJECTED event=__itt_counter_inc reason=null_handle",
                "tid=main REJECTED event=__itt_counter_set_value reason=null_payload",
                "tid=main REJECTED event=__itt_counter_inc reason=null_handle",
                "tid=main __itt_task_begin domain=1 name=2 id=0x0:0x0 parent=0x0:0x0",
                "tid=main __itt_task_begin domain=1 name=2 id=0x0:0x0 parent=0x0:0x0",
                "tid=main __itt_task_begin domain=1 name=2 id=0x0:0x0 parent=0x0:0x0",
                "# 25 records, rejected null_payload=1, rejected null_name=4, rejected "
                "null_domain=4, rejected null_handle=2",
            }));
  // Each reason is logged once, the rest counted.
  const std::string log = test_support::ReadFile(dir.path() + "/collector.log");
  EXPECT_NE(log.find("refused a __itt_task_begin call: null_domain; further refusals for this "
                     "reason are counted in the trace, not logged"),
            std::string::npos)
      << log;
}

// A million distinct names, each used by a task: every one numbered and recorded once, at a
// bounded cost to the host's heap.
TEST(IttEndToEnd, AMillionDistinctStringHandlesAreEachRecordedOnce) {
  TempDir dir;
  constexpr int kHandles = 1000000;
  auto run =
      RunProgram({JITSCOPE_ITT_CLIENT, "strings", std::to_string(kHandles)}, IttEnv(dir.path()));
  ASSERT_EQ(run.exit_code, 0) << run.Describe();
  long heap = 0;
  ASSERT_EQ(std::sscanf(run.out.c_str(), "heap %ld", &heap), 1) << run.out;
  // About 100 bytes a name (itt_names.h), against the 1M names' ~14 bytes each of text.
  EXPECT_LT(heap, 160L * kHandles) << heap / kHandles << " bytes a name";

  auto trace = test_support::FindTrace(dir.path());
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  auto file = trace::TraceFile::Open(*trace);
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_TRUE(file->trace().damage.ok());
  std::set<uint32_t> numbers;
  std::set<uint32_t> used;
  size_t ends = 0;
  for (const trace::Record& record : file->trace().records) {
    if (const auto* s = std::get_if<trace::IttStringEvent>(&record.event)) {
      EXPECT_TRUE(numbers.insert(s->string).second) << s->string << " recorded twice";
    } else if (const auto* b = std::get_if<trace::IttBeginEvent>(&record.event)) {
      EXPECT_TRUE(numbers.contains(b->name)) << "task named by an unrecorded string " << b->name;
      used.insert(b->name);
    } else if (std::holds_alternative<trace::IttEndEvent>(record.event)) {
      ++ends;
    }
  }
  EXPECT_EQ(numbers.size(), kHandles + 1u);  // and the domain's name
  EXPECT_EQ(used.size(), static_cast<size_t>(kHandles));
  EXPECT_EQ(ends, static_cast<size_t>(kHandles));
}

// 4 threads begin and end overlapped tasks until SIGKILL, 0-30 ms in: both records of every
// acknowledged id are in the trace, which reads without damage.
TEST(IttEndToEnd, SigkillLosesNoAcknowledgedRecord) {
  test_support::ForEachFaultRun(
      JITSCOPE_ITT_ACK_CLIENT, test_support::kSigkill, IttEnv,
      [](const std::string& dir, const test_support::AckedRun& run) {
        auto trace = test_support::FindTrace(dir);
        ASSERT_TRUE(trace.ok()) << trace.status().message();
        auto file = trace::TraceFile::Open(*trace);
        ASSERT_TRUE(file.ok()) << file.status().message();
        EXPECT_TRUE(file->trace().damage.ok()) << file->trace().damage.message();
        std::set<uint32_t> begun, ended;
        for (const trace::Record& record : file->trace().records) {
          if (const auto* b = std::get_if<trace::IttBeginEvent>(&record.event)) {
            begun.insert(static_cast<uint32_t>(b->id.d1));
          } else if (const auto* e = std::get_if<trace::IttEndEvent>(&record.event)) {
            ended.insert(static_cast<uint32_t>(e->id.d1));
          }
        }
        for (const uint32_t id : run.acked) {
          ASSERT_TRUE(begun.contains(id)) << "begin of acknowledged id " << id << " lost";
          ASSERT_TRUE(ended.contains(id)) << "end of acknowledged id " << id << " lost";
        }
      });
}

// With no trace among its outputs the collector wires nothing and says why, once: the static
// part's own stubs then do nothing, as with no collector at all.
TEST(IttEndToEnd, WithoutATraceNothingIsWiredAndTheLogSaysSo) {
  TempDir dir;
  auto env = IttEnv(dir.path());
  env["JITSCOPE_FORMATS"] = "perfmap";
  env["JITSCOPE_PERF_MAP_DIR"] = dir.path();
  auto run = RunProgram({JITSCOPE_ITT_CLIENT, "calls"}, env);
  EXPECT_EQ(run.exit_code, 4) << run.Describe();  // "left a function it implements unwired"
  EXPECT_NE(test_support::ReadFile(dir.path() + "/collector.log")
                .find("the ITT API's calls are not recorded: JITSCOPE_FORMATS has no trace\n"),
            std::string::npos);
}

}  // namespace
}  // namespace jitscope
