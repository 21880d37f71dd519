// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: real clients (all_events_client.c, collector_client.cc) report through our stub,
// which dlopen()s the real libjitscope-collector.so from INTEL_JIT_PROFILER64 (or the i386 one
// from INTEL_JIT_PROFILER32); the trace is read back with the real `jitscope dump` or the trace
// reader.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/subprocess.h"
#include "jitscope/trace/reader.h"

namespace jitscope {
namespace {

using test_support::RunProgram;
using test_support::TempDir;

std::vector<std::string> Traces(const std::string& dir) {
  std::vector<std::string> traces;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 4 && name.substr(name.size() - 4) == ".jsc")
        traces.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

std::map<std::string, std::string> CollectorEnv(const std::string& dir) {
  return {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR},
          {"JITSCOPE_OUTPUT_DIR", dir},
          {"JITSCOPE_LOG", dir + "/collector.log"}};
}

// Runs all_events_client (`client`, built for any word size) with `env` and checks its trace
// exactly, through `jitscope dump --json`, and the collector's log. The trace is the same whatever
// the client's word size, except for the header's pointer_size.
void ExpectAllEventsTrace(const std::string& dir, const std::string& client,
                          const std::map<std::string, std::string>& env, uint32_t pointer_size) {
  auto run = RunProgram({client}, env);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  unsigned long long base = 0;
  int pid = 0;
  ASSERT_EQ(std::sscanf(run.out.c_str(), "base=%llx pid=%d", &base, &pid), 2) << run.out;

  const auto traces = Traces(dir);
  ASSERT_EQ(traces.size(), 1u) << run.err;
  EXPECT_EQ(traces[0], dir + "/jit-" + std::to_string(pid) + ".jsc");
  struct stat st {};
  ASSERT_EQ(::stat(traces[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  auto dump = RunProgram({JITSCOPE_CLI, "dump", "--json", traces[0]});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  std::vector<std::string> lines;
  uint64_t last_time = 0;
  std::istringstream in(dump.out);
  for (std::string line; std::getline(in, line);) {
    auto object = nlohmann::json::parse(line);
    if (object["type"] == "header") {
      EXPECT_EQ(object["pid"], pid);
      EXPECT_EQ(object["exe"], client);
      EXPECT_EQ(object["version"], 1);
      EXPECT_EQ(object["pointer_size"], pointer_size);
      EXPECT_GT(object["start_monotonic_ns"].get<uint64_t>(), 0u);
      continue;
    }
    if (object.contains("timestamp")) {
      // Time order, on the client's only thread; then normalised away.
      EXPECT_GE(object["timestamp"].get<uint64_t>(), last_time);
      last_time = object["timestamp"].get<uint64_t>();
      EXPECT_EQ(object["tid"], pid);
      object.erase("timestamp");
      object.erase("tid");
    }
    if (object.contains("address")) object["address"] = object["address"].get<uint64_t>() - base;
    lines.push_back(object.dump());
  }
  const std::vector<std::string> expected = {
      R"({"address":0,"arch":0,"class_file":"Klass","class_id":3,"event":"METHOD_LOAD_FINISHED","lines":[{"line":2,"offset":1},{"line":4,"offset":12},{"line":2,"offset":15},{"line":1,"offset":18},{"line":30,"offset":21}],"method_id":1000,"module":null,"name":"Load","parent_method_id":0,"size":21,"source_file":"load.js","type":"code"})",
      R"({"address":256,"arch":0,"class_file":null,"class_id":0,"event":"METHOD_LOAD_FINISHED_V2","lines":[],"method_id":1001,"module":"tier1","name":"V2","parent_method_id":0,"size":64,"source_file":"v2.js","type":"code"})",
      R"({"address":512,"arch":2,"class_file":null,"class_id":0,"event":"METHOD_LOAD_FINISHED_V3","lines":[],"method_id":1002,"module":"tier2","name":"V3","parent_method_id":0,"size":64,"source_file":null,"type":"code"})",
      R"({"address":272,"arch":0,"class_file":"K2","class_id":0,"event":"METHOD_INLINE_LOAD_FINISHED","lines":[{"line":7,"offset":4},{"line":8,"offset":8}],"method_id":2000,"module":null,"name":"Inlined","parent_method_id":1001,"size":8,"source_file":"inl.js","type":"code"})",
      R"({"address":4,"arch":0,"class_file":null,"class_id":0,"event":"METHOD_UPDATE","lines":[],"method_id":1000,"module":null,"name":null,"parent_method_id":0,"size":8,"source_file":null,"type":"code"})",
      R"({"address":520,"data_format":"%x","event":"METHOD_UPDATE_V2","segment_type":2,"size":4,"type":"range_update"})",
      R"({"event":"METHOD_UNLOAD_START","method_id":1002,"type":"unload"})",
      R"({"event":"METHOD_LOAD_FINISHED","reason":"zero_size","type":"rejected"})",
      R"({"event":"EVENT_99","reason":"unknown_event","type":"rejected"})",
      R"({"event":"SHUTDOWN","type":"shutdown"})",
      R"({"damaged_regions":0,"records":10,"rejected":{"unknown_event":1,"zero_size":1},"torn_records":0,"type":"summary","unknown_records":0})",
  };
  EXPECT_EQ(lines, expected);

  const std::string log = test_support::ReadFile(dir + "/collector.log");
  const std::string prefix = "jitscope[" + std::to_string(pid) + "]: ";
  EXPECT_EQ(log, prefix + "recording JIT events to " + traces[0] + "\n" + prefix +
                     "rejected METHOD_LOAD_FINISHED event (type 13): zero_size; further rejections "
                     "for this reason are counted in the trace, not logged\n" +
                     prefix +
                     "rejected an unknown event (type 99): unknown_event; further rejections for "
                     "this reason are counted in the trace, not logged\n");
}

TEST(CollectorEndToEnd, EveryEventKindRoundTripsThroughJitscopeDumpJson) {
  TempDir dir;
  ExpectAllEventsTrace(dir.path(), JITSCOPE_ALL_EVENTS_CLIENT, CollectorEnv(dir.path()), 8);
}

#if defined(JITSCOPE_LIB32_DIR) || defined(JITSCOPE_LIB32_UNAVAILABLE)
// The same client built for i386 (`cc -m32`, linked with build/lib32/libjitprofiling.a) reports
// through INTEL_JIT_PROFILER32 to the i386 collector. Its trace must read back on x86-64 exactly
// as the 64-bit client's does: the format does not depend on the writer's word size. Both
// variables are set, as in an environment that serves 32- and 64-bit processes.
TEST(CollectorEndToEnd, I386ClientTraceReadsBackOnX86_64LikeA64BitOne) {
#ifdef JITSCOPE_LIB32_UNAVAILABLE
  FAIL() << JITSCOPE_LIB32_UNAVAILABLE;
#else
  TempDir dir;
  const std::string client = dir.path() + "/all_events_client_i386";
  auto build = RunProgram({JITSCOPE_PLAIN_CC, "-m32", "-std=gnu99", "-Wall", "-Wextra", "-Werror",
                           "-I" JITSCOPE_SOURCE_DIR "/include", JITSCOPE_ALL_EVENTS_SOURCE,
                           JITSCOPE_LIB32_DIR "/libjitprofiling.a", "-ldl", "-o", client});
  ASSERT_EQ(build.exit_code, 0) << build.err;
  auto env = CollectorEnv(dir.path());
  env["INTEL_JIT_PROFILER32"] = JITSCOPE_LIB32_DIR "/libjitscope-collector.so";
  ExpectAllEventsTrace(dir.path(), client, env, 4);
#endif
}
#endif

TEST(CollectorEndToEnd, BadConfigurationTurnsProfilingOffWithOneClearMessage) {
  TempDir dir;
  auto env = CollectorEnv(dir.path());
  env["JITSCOPE_FORMATS"] = "trace,vtune";
  auto client = RunProgram({JITSCOPE_ALL_EVENTS_CLIENT}, env);
  ASSERT_EQ(client.exit_code, 0);
  EXPECT_TRUE(Traces(dir.path()).empty());
  EXPECT_NE(client.err.find("]: JITSCOPE_FORMATS: unknown format 'vtune' (known: trace, jitdump, "
                            "perfmap); JIT profiling is off\n"),
            std::string::npos)
      << client.err;

  env = CollectorEnv(dir.path() + "/missing");
  env.erase("JITSCOPE_LOG");
  client = RunProgram({JITSCOPE_ALL_EVENTS_CLIENT}, env);
  ASSERT_EQ(client.exit_code, 0);
  EXPECT_NE(client.err.find("]: cannot create " + dir.path() + "/missing/jit-"), std::string::npos)
      << client.err;
  EXPECT_NE(client.err.find(".jsc: No such file or directory; JIT profiling is off\n"),
            std::string::npos)
      << client.err;
}

// SIGKILL at random moments while two threads report: every event whose iJIT_NotifyEvent
// returned (the client acks it only then) is in the trace, and the trace is not damaged.
TEST(CollectorEndToEnd, SigkillLosesNoAcknowledgedEvent) {
  std::mt19937 random(12345);
  for (int run = 0; run < 20; ++run) {
    TempDir dir;
    test_support::Process client({JITSCOPE_CLIENT, "ack-loop"}, CollectorEnv(dir.path()));
    ASSERT_GT(client.pid(), 0);
    // Wait for the first acknowledgement (start-up time varies with load), then kill at a
    // random moment while both threads are reporting.
    char first_ack[4];
    size_t have = 0;
    while (have < sizeof(first_ack)) {
      const ssize_t n = ::read(client.stdout_fd(), first_ack + have, sizeof(first_ack) - have);
      ASSERT_GT(n, 0) << "run " << run << ": the client died before reporting anything";
      have += static_cast<size_t>(n);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % 40));
    ::kill(client.pid(), SIGKILL);
    auto result = client.Wait();
    result.out.insert(0, first_ack, sizeof(first_ack));
    ASSERT_EQ(result.exit_code, -SIGKILL) << result.err;
    std::set<uint32_t> acked;
    for (size_t i = 0; i + 4 <= result.out.size(); i += 4) {
      uint32_t id = 0;
      std::memcpy(&id, result.out.data() + i, 4);
      acked.insert(id);
    }
    ASSERT_FALSE(acked.empty()) << "run " << run << ": nothing was reported before the kill";
    const auto traces = Traces(dir.path());
    ASSERT_EQ(traces.size(), 1u);
    auto file = trace::TraceFile::Open(traces[0]);
    ASSERT_TRUE(file.ok()) << file.status().message();
    EXPECT_TRUE(file->trace().damage.ok()) << file->trace().damage.message();
    std::set<uint32_t> recorded;
    for (const auto& record : file->trace().records) {
      recorded.insert(std::get<trace::CodeEvent>(record.event).method_id);
    }
    size_t missing = 0;
    for (uint32_t id : acked) missing += recorded.count(id) == 0;
    EXPECT_EQ(missing, 0u) << "run " << run << ": " << acked.size() << " acked, " << recorded.size()
                           << " recorded";
  }
}

// fork() from a process whose threads are reporting: the parent and each child keep complete,
// separate traces, and nobody deadlocks.
TEST(CollectorEndToEnd, ForkedChildrenRecordIntoTheirOwnTraces) {
  TempDir dir;
  constexpr int kForks = 20;
  auto client =
      RunProgram({JITSCOPE_CLIENT, "fork", std::to_string(kForks)}, CollectorEnv(dir.path()));
  ASSERT_EQ(client.exit_code, 0) << client.err;
  unsigned parent_count = 0;
  int children = 0;
  ASSERT_EQ(std::sscanf(client.out.c_str(), "parent=%u children=%d", &parent_count, &children), 2);
  const auto traces = Traces(dir.path());
  ASSERT_EQ(traces.size(), static_cast<size_t>(kForks + 1));
  int child_traces = 0;
  for (const auto& path : traces) {
    auto file = trace::TraceFile::Open(path);
    ASSERT_TRUE(file.ok());
    const auto& t = file->trace();
    EXPECT_TRUE(t.damage.ok());
    EXPECT_EQ(path, dir.path() + "/jit-" + std::to_string(t.header.pid) + ".jsc");
    std::set<uint32_t> ids;
    for (const auto& record : t.records)
      ids.insert(std::get<trace::CodeEvent>(record.event).method_id);
    EXPECT_EQ(ids.size(), t.records.size()) << path << " has duplicates";
    const bool is_child = !ids.empty() && *ids.begin() >= 1000000;
    if (is_child) {
      ++child_traces;
      EXPECT_EQ(ids, (std::set<uint32_t>{1000000, 1000001, 1000002, 1000003, 1000004, 1000005,
                                         1000006, 1000007, 1000008, 1000009}))
          << path;
    } else {
      EXPECT_EQ(t.records.size(), parent_count) << path;
      EXPECT_LT(*ids.rbegin(), 1000000u);
    }
  }
  EXPECT_EQ(child_traces, kForks);
}

}  // namespace
}  // namespace jitscope
