// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: real clients (all_events_client.c, collector_client.cc) report through our stub,
// which dlopen()s the real libjitscope-collector.so from INTEL_JIT_PROFILER64 (or the i386 one
// from INTEL_JIT_PROFILER32); the trace is read back with the real `jitscope dump` or the trace
// reader.
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jitscope/trace/reader.h"
#include "support/fault_runs.h"
#include "support/files.h"
#include "support/i386_kernel.h"
#include "support/process.h"
#include "support/read_back.h"
#include "support/temp_dir.h"

namespace jitscope {
namespace {

using test_support::RunProgram;
using test_support::TempDir;
using test_support::TracesIn;

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

  const auto traces = TracesIn(dir);
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
      EXPECT_EQ(object["version"], 2);
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
      R"({"address":0,"code":"c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3","event":"CODE_BYTES","size":21,"type":"code_bytes"})",
      R"({"address":256,"arch":0,"class_file":null,"class_id":0,"event":"METHOD_LOAD_FINISHED_V2","lines":[],"method_id":1001,"module":"tier1","name":"V2","parent_method_id":0,"size":64,"source_file":"v2.js","type":"code"})",
      R"({"address":256,"code":"c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3","event":"CODE_BYTES","size":64,"type":"code_bytes"})",
      R"({"address":512,"arch":2,"class_file":null,"class_id":0,"event":"METHOD_LOAD_FINISHED_V3","lines":[],"method_id":1002,"module":"tier2","name":"V3","parent_method_id":0,"size":64,"source_file":null,"type":"code"})",
      R"({"address":512,"code":"c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3","event":"CODE_BYTES","size":64,"type":"code_bytes"})",
      R"({"address":272,"arch":0,"class_file":"K2","class_id":0,"event":"METHOD_INLINE_LOAD_FINISHED","lines":[{"line":7,"offset":4},{"line":8,"offset":8}],"method_id":2000,"module":null,"name":"Inlined","parent_method_id":1001,"size":8,"source_file":"inl.js","type":"code"})",
      R"({"address":4,"arch":0,"class_file":null,"class_id":0,"event":"METHOD_UPDATE","lines":[],"method_id":1000,"module":null,"name":null,"parent_method_id":0,"size":8,"source_file":null,"type":"code"})",
      R"({"address":4,"code":"c3c3c3c3c3c3c3c3","event":"CODE_BYTES","size":8,"type":"code_bytes"})",
      R"({"address":520,"data_format":"%x","event":"METHOD_UPDATE_V2","segment_type":2,"size":4,"type":"range_update"})",
      R"({"event":"METHOD_UNLOAD_START","method_id":1002,"type":"unload"})",
      R"({"event":"METHOD_LOAD_FINISHED","reason":"zero_size","type":"rejected"})",
      R"({"event":"EVENT_99","reason":"unknown_event","type":"rejected"})",
      R"({"event":"SHUTDOWN","type":"shutdown"})",
      R"({"damaged_regions":0,"records":14,"rejected":{"unknown_event":1,"zero_size":1},"torn_records":0,"type":"summary","unknown_records":0})",
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
  if (!test_support::KernelRunsI386Programs()) GTEST_SKIP() << test_support::kNoI386Kernel;
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
  EXPECT_TRUE(TracesIn(dir.path()).empty());
  EXPECT_NE(client.err.find("]: JITSCOPE_FORMATS: unknown format 'vtune' (known: trace, jitdump, "
                            "perfmap); JIT profiling is off\n"),
            std::string::npos)
      << client.err;

  // An output directory that cannot be: a file is where a directory of its path would go (a
  // missing one is made: planted_files_test.cc).
  std::ofstream(dir.path() + "/a-file") << "x";
  env = CollectorEnv(dir.path() + "/a-file/out");
  env.erase("JITSCOPE_LOG");
  client = RunProgram({JITSCOPE_ALL_EVENTS_CLIENT}, env);
  ASSERT_EQ(client.exit_code, 0);
  EXPECT_NE(client.err.find("]: cannot open directory " + dir.path() +
                            "/a-file/out: Not a directory; JIT profiling is off\n"),
            std::string::npos)
      << client.err;
}

// A client with 4 reporting threads is ended by `fault` at a random moment, `runs` times (a
// quarter as many in sanitized builds): every event whose iJIT_NotifyEvent returned (the client
// acks it on stdout afterwards) is in the trace, the trace and the jitdumps read without damage,
// and an exec'd program writes its own trace (and jitdump, in a fallback directory: perf needs
// the name jit-<pid>.dump) with all of its events.
void ExpectNoAcknowledgedEventLost(const test_support::Fault& end) {
  const auto env_for = [](const std::string& dir) {
    auto env = CollectorEnv(dir);
    env["JITSCOPE_FORMATS"] = "trace,jitdump";
    return env;
  };
  const bool exec = std::string_view(end.name) == "exec";
  test_support::ForEachFaultRun(
      JITSCOPE_CLIENT, end, env_for, [&](const std::string& dir, const auto& run) {
        const auto traces = TracesIn(dir);
        ASSERT_EQ(traces.size(), exec ? 2u : 1u);
        std::set<uint32_t> recorded;
        for (const std::string& path : traces) {
          std::set<uint32_t> ids = test_support::TraceMethodIds(path);
          if (path.ends_with(".1.jsc")) {
            // The exec'd program: its own trace (the pid's first name was taken), all of its
            // events.
            EXPECT_EQ(ids, (std::set<uint32_t>{1000000, 1000001, 1000002, 1000003, 1000004, 1000005,
                                               1000006, 1000007, 1000008, 1000009}));
            continue;
          }
          recorded = std::move(ids);
        }
        // A crash leaves at most the current segment's zeros (4 MiB at most) and the unused rest
        // of each reporting thread's chunk (64 KiB at most) after the records.
        for (const std::string& path : traces) {
          const test_support::TraceSpace space = test_support::SpaceOfTrace(path);
          EXPECT_LE(space.size, space.records + 4 * 1024 * 1024 + 4 * 64 * 1024) << path;
        }
        size_t missing = 0;
        for (uint32_t id : run.acked) missing += recorded.count(id) == 0;
        EXPECT_EQ(missing, 0u) << run.acked.size() << " acked, " << recorded.size() << " recorded";
        EXPECT_GE(test_support::JitdumpCodeLoadsBelow(dir), run.acked.size() + (exec ? 10 : 0));
      });
}

class CollectorFaults : public ::testing::TestWithParam<test_support::Fault> {};
TEST_P(CollectorFaults, LosesNoAcknowledgedEvent) { ExpectNoAcknowledgedEventLost(GetParam()); }
INSTANTIATE_TEST_SUITE_P(HostFaults, CollectorFaults,
                         ::testing::ValuesIn(test_support::kHostFaults), test_support::FaultName);

// A small tmpfs mounted for one test, unmounted (lazily, so a file still open cannot stop it)
// when the test ends. The test process must be root; a failed mount fails the test.
class SmallDisk {
 public:
  SmallDisk(const std::string& path, const char* size) : path_(path) {
    std::filesystem::create_directory(path_);
    const std::string options = std::string("size=") + size;
    mounted_ = ::mount("tmpfs", path_.c_str(), "tmpfs", 0, options.c_str()) == 0;
    error_ = mounted_ ? "" : std::strerror(errno);
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  bool mounted_ = false;
  std::string error_;
};

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

struct FillResult {
  unsigned accepted = 0, refused = 0, accepted_after_refusal = 0;
  int shutdown = -1;
};

FillResult ParseFill(const std::string& out) {
  FillResult r;
  EXPECT_EQ(std::sscanf(out.c_str(), "accepted=%u refused=%u accepted_after_refusal=%u shutdown=%d",
                        &r.accepted, &r.refused, &r.accepted_after_refusal, &r.shutdown),
            4)
      << out;
  return r;
}

// Fills `path` with zeros until `bytes` are written or the disk is full.
void TakeSpace(const std::string& path, uint64_t bytes) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  static const char kZeros[4096] = {};
  for (uint64_t done = 0; done < bytes; done += sizeof(kZeros)) {
    if (std::fwrite(kZeros, 1, sizeof(kZeros), file) != sizeof(kZeros)) break;
  }
  std::fclose(file);
}

// The loads of `trace` whose code bytes are not right after them.
uint64_t LoadsWithoutCodeBytes(const std::string& trace) {
  const auto file = test_support::OpenUndamagedTrace(trace);
  if (!file) return UINT64_MAX;
  const std::vector<trace::Record>& records = file->trace().records;
  uint64_t missing = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!std::holds_alternative<trace::CodeEvent>(records[i].event)) continue;
    if (i + 1 == records.size() ||
        !std::holds_alternative<trace::CodeBytesEvent>(records[i + 1].event)) {
      ++missing;
    }
  }
  return missing;
}

// The output directory fills up mid-run: the collector says so once, naming the file, refuses
// every event from then on (SHUTDOWN too: never accepting one after a refusal), the host runs to
// its end, and what was written reads back whole and holds exactly the events accepted, each load
// with its code bytes — for the trace alone, and with the jitdump beside it (the trace is written
// last: an event is accepted only when every sink recorded it, and nothing is written after a
// refusal). The disk is a tmpfs of 6 MiB the test mounts (a test that cannot mount one fails):
// with most of it free (the trace's first 4 MiB segment fits, the second does not), with 400 KiB
// free (its third segment does not fit), and full (nothing can be created: no empty file left).
TEST(CollectorEndToEnd, AFullDiskStopsRecordingCleanlyAndTheHostRunsOn) {
  ASSERT_EQ(::geteuid(), 0u) << "this test must run as root: it mounts a small tmpfs";
  TempDir dir;
  const std::string disk = dir.path() + "/disk";
  for (const std::string formats : {"trace", "trace,jitdump"}) {
    for (const uint64_t taken :
         {uint64_t{0}, uint64_t{(6 << 20) - (400 << 10)}, uint64_t{6 << 20}}) {
      SCOPED_TRACE(formats + ", " + std::to_string(taken) + " bytes taken");
      SmallDisk small(disk, "6m");
      ASSERT_TRUE(small.mounted()) << "cannot mount a tmpfs on " << disk << ": " << small.error();
      const std::string blocker = disk + "/taken";
      TakeSpace(blocker, taken);
      auto env = CollectorEnv(disk);
      env["JITSCOPE_FORMATS"] = formats;
      env["JITSCOPE_LOG"] = dir.path() + "/collector.log";
      std::filesystem::remove(env["JITSCOPE_LOG"]);
      auto run = RunProgram({JITSCOPE_CLIENT, "fill", "20000"}, env);
      ASSERT_EQ(run.exit_code, 0) << run.err;
      const FillResult fill = ParseFill(run.out);
      EXPECT_GT(fill.refused, 0u);
      EXPECT_EQ(fill.accepted_after_refusal, 0u);
      EXPECT_EQ(fill.shutdown, 0);
      const std::string log = test_support::ReadFile(env["JITSCOPE_LOG"]);
      for (const auto& entry : std::filesystem::recursive_directory_iterator(disk)) {
        if (entry.is_regular_file() && entry.path() != blocker) {
          EXPECT_GT(entry.file_size(), 0u) << entry.path() << " was left empty";
        }
      }
      const auto traces = TracesIn(disk);
      if (taken == uint64_t{6 << 20}) {
        EXPECT_EQ(fill.accepted, 0u);
        EXPECT_EQ(traces.size(), 0u);
        EXPECT_EQ(Count(log, disk + "/jit-"), 1u) << log;
        EXPECT_EQ(Count(log, "No space left on device; JIT profiling is off\n"), 1u) << log;
        continue;
      }
      EXPECT_GT(fill.accepted, taken == 0 ? 1000u : 50u);
      ASSERT_EQ(traces.size(), 1u);
      std::set<uint32_t> accepted;
      for (uint32_t id = 1; id <= fill.accepted; ++id) accepted.insert(id);
      // Exactly what was accepted: nothing lost, nothing refused, nothing torn.
      EXPECT_EQ(test_support::TraceMethodIds(traces[0]), accepted);
      EXPECT_EQ(LoadsWithoutCodeBytes(traces[0]), 0u);
      EXPECT_EQ(Count(log, "cannot write the JIT events any more; further events are refused (" +
                               disk + "/jit-"),
                1u)
          << log;
      if (formats == "trace") {
        EXPECT_NE(log.find(".jsc: cannot extend the trace by "), std::string::npos) << log;
        EXPECT_NE(log.find(" bytes: No space left on device)\n"), std::string::npos) << log;
      } else {
        EXPECT_GE(test_support::JitdumpCodeLoadsBelow(disk), fill.accepted);
      }
    }
  }
}

// A trace is as big as its content: after a clean end (SHUTDOWN, or an exit without it), the
// file, and the disk it occupies, is at most 64 KiB larger than its records — for a few records
// and for 1.1 MiB of them, five segments into their growth. (Each full chunk also ends with less
// than a record the next one did not fit in: for 1 KiB records about 1.3% of them.)
TEST(CollectorEndToEnd, ACleanEndLeavesATraceAtMost64KiBLargerThanItsRecords) {
  const std::vector<std::vector<std::string>> clients = {
      {JITSCOPE_ALL_EVENTS_CLIENT},       // 10 records, then SHUTDOWN and exit()
      {JITSCOPE_CLIENT, "fill", "1000"},  // 1000 loads with 1 KiB names, then exit() only
  };
  for (const auto& client : clients) {
    SCOPED_TRACE(client.back());
    TempDir dir;
    auto run = RunProgram(client, CollectorEnv(dir.path()));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto traces = TracesIn(dir.path());
    ASSERT_EQ(traces.size(), 1u);
    const test_support::TraceSpace space = test_support::SpaceOfTrace(traces[0]);
    EXPECT_GT(space.records, client.size() == 1 ? 500u : 1000u * 1024);
    EXPECT_LE(space.size, space.records + 64 * 1024);
    EXPECT_LE(space.disk, space.records + 64 * 1024);
  }
}

// A process that loads and unloads methods for a long time with JITSCOPE_MAX_SIZE: its trace is a
// chain of files of about that size; `jitscope clean` leaves only the newest (the process may
// still be running then), which alone names the code still loaded, the first method included.
TEST(CollectorEndToEnd, ABoundedTraceKeepsLiveCodeNamedAfterCleaning) {
  TempDir dir;
  std::map<std::string, std::string> env = CollectorEnv(dir.path());
  env["JITSCOPE_MAX_SIZE"] = "1M";
  auto run = RunProgram({JITSCOPE_CLIENT, "churn", "60000", "100"}, env);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  char keeper[32] = {}, last[32] = {};
  ASSERT_EQ(std::sscanf(run.out.c_str(), "keeper=%31s last=%31s", keeper, last), 2) << run.out;

  const std::vector<std::string> traces = TracesIn(dir.path());
  ASSERT_GE(traces.size(), 4u);
  for (const std::string& trace : traces) {
    // At most one segment (1 MiB, the bound's last) past the bound.
    EXPECT_LE(std::filesystem::file_size(trace), 2u << 20) << trace;
  }
  const std::string log = test_support::ReadFile(dir.path() + "/collector.log");
  EXPECT_NE(log.find("the trace continues in " + dir.path() + "/jit-"), std::string::npos) << log;

  // --perf-map-dir: only this test's files are looked at.
  auto clean =
      RunProgram({JITSCOPE_CLI, "clean", "--dir", dir.path(), "--perf-map-dir", dir.path()}, {});
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_NE(
      clean.out.find("jitscope clean: removed " + std::to_string(traces.size() - 1) + " files\n"),
      std::string::npos)
      << clean.out;
  const std::vector<std::string> left = TracesIn(dir.path());
  ASSERT_EQ(left.size(), 1u);

  auto resolved = RunProgram({JITSCOPE_CLI, "resolve", dir.path(), "--", keeper, last}, {});
  ASSERT_EQ(resolved.exit_code, 0) << resolved.err;
  EXPECT_NE(resolved.out.find("keeper"), std::string::npos) << resolved.out;
  EXPECT_NE(resolved.out.find("m60000"), std::string::npos) << resolved.out;
}

// fork() from a process whose threads are reporting: the parent and each child keep complete,
// separate traces, and nobody deadlocks.
TEST(CollectorEndToEnd, ForkedChildrenRecordIntoTheirOwnTraces) {
  TempDir dir;
  constexpr int kForks = 100 / test_support::kRepeatDivisor;
  auto client =
      RunProgram({JITSCOPE_CLIENT, "fork", std::to_string(kForks)}, CollectorEnv(dir.path()));
  ASSERT_EQ(client.exit_code, 0) << client.err;
  unsigned parent_count = 0;
  int children = 0;
  ASSERT_EQ(std::sscanf(client.out.c_str(), "parent=%u children=%d", &parent_count, &children), 2);
  const auto traces = TracesIn(dir.path());
  ASSERT_EQ(traces.size(), static_cast<size_t>(kForks + 1));
  int child_traces = 0;
  for (const auto& path : traces) {
    const auto file = test_support::OpenUndamagedTrace(path);
    ASSERT_TRUE(file);
    const auto& t = file->trace();
    EXPECT_EQ(path, dir.path() + "/jit-" + std::to_string(t.header.pid) + ".jsc");
    const std::set<uint32_t> ids = test_support::MethodIds(t);
    EXPECT_EQ(ids.size(), test_support::CodeRecords(t)) << path << " has duplicates";
    const bool is_child = !ids.empty() && *ids.begin() >= 1000000;
    if (is_child) {
      ++child_traces;
      EXPECT_EQ(ids, (std::set<uint32_t>{1000000, 1000001, 1000002, 1000003, 1000004, 1000005,
                                         1000006, 1000007, 1000008, 1000009}))
          << path;
    } else {
      EXPECT_EQ(test_support::CodeRecords(t), parent_count) << path;
      EXPECT_LT(*ids.rbegin(), 1000000u);
    }
  }
  EXPECT_EQ(child_traces, kForks);
}

}  // namespace
}  // namespace jitscope
