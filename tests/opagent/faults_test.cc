// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Host-process faults through OProfile's agent API (docs/reliability.md, "Host-process
// faults"): opagent_client.cc reports from 4 threads through libopagent.so.1 and acknowledges an
// id once every call for it returned; the test ends it by SIGKILL, a real SIGSEGV, abort(),
// _exit() without op_close_agent, and exec(), at random moments, and holds the files to the acks.
//
// What the agent promises for each accepted call: the trace (a store into its shared mapping) and
// the OProfile dump (one write() per record, oprofile_dump_writer.h) both hold it before the call
// returns, so both must hold every acknowledged call. One exception is OProfile's own rule: the
// dump is named by the pid, so a program exec()ed in the same process replaces it
// (dump_directory.h, as OProfile's creat() truncates it); the first program's calls remain in its
// trace.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/oprofile_dump_reader.h"
#include "jitscope/trace/reader.h"
#include "support/byte_builder.h"
#include "support/fault_runs.h"
#include "support/files.h"
#include "support/hex.h"
#include "support/read_back.h"

namespace jitscope {
namespace {

// Where opagent_client.cc put "m<id>": BASE + 64 * id, BASE being what the client printed as
// "MODE code at BASE" (`mode`: ack-loop, after-exec).
struct CodeSpace {
  uint64_t base = 0;
  uint64_t Vma(uint32_t id) const { return base + uint64_t{id} * 64; }
};

CodeSpace CodeSpaceOf(const std::string& err, const std::string& mode) {
  const std::string line = mode + " code at ";
  const size_t at = err.find(line);
  unsigned long long base = 0;
  if (at == std::string::npos || std::sscanf(err.c_str() + at + line.size(), "%llx", &base) != 1) {
    ADD_FAILURE() << "the client printed no \"" << line << "BASE\": " << err;
  }
  return CodeSpace{base};
}

using test_support::Hex;

std::string LoadCall(std::string_view name, uint64_t vma, uint64_t size, size_t code_bytes) {
  return "load " + std::string(name) + " at " + Hex(vma) + " size " + std::to_string(size) +
         " code " + std::to_string(code_bytes);
}

// One line per record, the same for a trace record and the dump record of the same call.
struct TraceCall {
  std::string operator()(const trace::OprofileOpenEvent&) const { return "open"; }
  std::string operator()(const trace::OprofileCloseEvent&) const { return "close"; }
  std::string operator()(const trace::OprofileCodeLoadEvent& e) const {
    return LoadCall(e.name, e.address, e.size, e.code.size());
  }
  std::string operator()(const trace::OprofileDebugLinesEvent& e) const {
    std::string call = "lines at " + Hex(e.address);
    for (const auto& line : e.lines) {
      call += " " + Hex(line.address) + ":" + std::to_string(line.line) + ":" +
              std::string(e.files[line.file]);
    }
    return call;
  }
  std::string operator()(const trace::OprofileUnloadEvent& e) const {
    return "unload at " + Hex(e.address);
  }
  std::string operator()(const trace::RejectedEvent& e) const {
    return std::string("rejected ") + trace::ApiEventName(e.api_event) + " " +
           trace::RejectReasonName(e.reason);
  }
  template <typename T>
  std::string operator()(const T&) const {
    return "unexpected";
  }
};

struct DumpCall {
  std::string operator()(const formats::OprofileDumpCodeLoad& r) const {
    return LoadCall(r.name, r.vma, r.code_size, r.code.size());
  }
  std::string operator()(const formats::OprofileDumpDebugInfo& r) const {
    // The client names its code by address, so the record's code pointer is the load's vma.
    std::string call = "lines at " + Hex(r.code_addr);
    for (const auto& line : r.lines) {
      call += " " + Hex(line.vma) + ":" + std::to_string(line.line) + ":" + std::string(line.file);
    }
    return call;
  }
  std::string operator()(const formats::OprofileDumpUnload& r) const {
    return "unload at " + Hex(r.vma);
  }
  std::string operator()(const formats::OprofileDumpClose&) const { return "close"; }
};

// The calls whose lines opagent_client.cc acknowledges as `id`.
std::vector<std::string> AckedCalls(const CodeSpace& space, uint32_t id) {
  const uint64_t vma = space.Vma(id);
  std::vector<std::string> calls = {LoadCall("m" + std::to_string(id), vma, 16, 16),
                                    "lines at " + Hex(vma) + " " + Hex(vma) + ":" +
                                        std::to_string(id) + ":M.java " + Hex(vma + 8) + ":" +
                                        std::to_string(id + 1) + ":M.java"};
  if (id % 4 == 0) calls.push_back("unload at " + Hex(vma));
  return calls;
}

// What the exec()ed program (`after-exec`) reports: ten loads without code lines, then a close.
std::vector<std::string> AfterExecCalls(const CodeSpace& space) {
  std::vector<std::string> calls;
  for (uint32_t id = 1000000; id < 1000010; ++id) {
    calls.push_back(LoadCall("m" + std::to_string(id), space.Vma(id), 16, 16));
  }
  calls.push_back("close");
  return calls;
}

std::vector<std::string> TraceCalls(const trace::ParsedTrace& trace) {
  std::vector<std::string> calls;
  for (const auto& record : trace.records) calls.push_back(std::visit(TraceCall{}, record.event));
  return calls;
}

// The dump at `path`, which must parse without damage, one line per record. (A torn last record
// is a normal end for a process that died inside a write and is not a call that returned.)
std::vector<std::string> DumpCalls(const std::string& path) {
  const std::string bytes = test_support::ReadFile(path);
  auto dump = formats::ParseOprofileDump(test_support::AsBytes(bytes), path);
  if (!dump.ok()) {
    ADD_FAILURE() << dump.status().message();
    return {};
  }
  EXPECT_TRUE(dump->error.ok()) << dump->error.message();
  std::vector<std::string> calls;
  for (const auto& record : dump->records) calls.push_back(std::visit(DumpCall{}, record.body));
  return calls;
}

// `calls` (a file's, in file order) hold every call of every acknowledged id, each once, and
// beyond them only the calls of the one id each of the 4 threads may have had in flight.
void ExpectEveryAcknowledgedCall(const std::vector<std::string>& calls, const CodeSpace& space,
                                 const std::set<uint32_t>& acked, const std::string& file) {
  const std::multiset<std::string> recorded(calls.begin(), calls.end());
  size_t missing = 0;
  std::string first_missing;
  for (uint32_t id : acked) {
    for (const std::string& call : AckedCalls(space, id)) {
      if (recorded.count(call) == 1) continue;
      if (missing++ == 0) first_missing = call;
    }
  }
  EXPECT_EQ(missing, 0u) << file << ": " << acked.size() << " ids acked, " << calls.size()
                         << " records; first missing or repeated: " << first_missing;
  size_t in_flight = 0;
  for (const std::string& call : calls) {
    uint32_t id = 0;
    if (std::sscanf(call.c_str(), "load m%u ", &id) == 1) {
      in_flight += acked.count(id) == 0;
    } else if (call != "open" && !call.starts_with("lines at ") &&
               !call.starts_with("unload at ")) {
      ADD_FAILURE() << file << " holds " << call;
    }
  }
  EXPECT_LE(in_flight, 4u) << file;
}

void ExpectNoAcknowledgedCallLost(const test_support::Fault& end) {
  const auto env_for = [](const std::string& dir) {
    std::filesystem::create_directory(dir + "/oprofile");
    return std::map<std::string, std::string>{{"JITSCOPE_OPAGENT_DIR", dir + "/oprofile"},
                                              {"JITSCOPE_OUTPUT_DIR", dir},
                                              {"JITSCOPE_FORMATS", "trace,jitdump"},
                                              {"JITSCOPE_LOG", dir + "/agent.log"}};
  };
  const bool exec = std::string_view(end.name) == "exec";
  test_support::ForEachFaultRun(
      JITSCOPE_OPAGENT_CLIENT, end, env_for, [&](const std::string& dir, const auto& run) {
        const CodeSpace space = CodeSpaceOf(run.result.err, "ack-loop");
        // Sorted by name: the exec()ed program's jit-<pid>.1.jsc comes first.
        const auto traces = test_support::TracesIn(dir);
        ASSERT_EQ(traces.size(), exec ? 2u : 1u);
        const std::string& first = traces.back();
        const auto trace = test_support::OpenUndamagedTrace(first);
        ASSERT_TRUE(trace);
        ExpectEveryAcknowledgedCall(TraceCalls(trace->trace()), space, run.acked, first);
        const std::string pid = std::to_string(trace->trace().header.pid);
        ASSERT_EQ(first, dir + "/jit-" + pid + ".jsc");

        const std::string oprofile = dir + "/oprofile";
        const std::string dump = oprofile + "/" + pid + ".dump";
        ASSERT_EQ(std::distance(std::filesystem::directory_iterator(oprofile),
                                std::filesystem::directory_iterator()),
                  1);
        if (exec) {
          // The new program (same pid): its own trace, the pid's next name, with all of its calls;
          // the dump is now its own.
          ASSERT_EQ(traces[0], dir + "/jit-" + pid + ".1.jsc");
          const auto second = test_support::OpenUndamagedTrace(traces[0]);
          ASSERT_TRUE(second);
          const CodeSpace after_exec = CodeSpaceOf(run.result.err, "after-exec");
          std::vector<std::string> expected = AfterExecCalls(after_exec);
          expected.insert(expected.begin(), "open");
          EXPECT_EQ(TraceCalls(second->trace()), expected);
          EXPECT_EQ(DumpCalls(dump), AfterExecCalls(after_exec));
        } else {
          ExpectEveryAcknowledgedCall(DumpCalls(dump), space, run.acked, dump);
        }
        // The jitdumps (the exec()ed program's in a fallback directory) read without error.
        EXPECT_GE(test_support::JitdumpCodeLoadsBelow(dir), run.acked.size() + (exec ? 10 : 0));
      });
}

class OpagentFaults : public ::testing::TestWithParam<test_support::Fault> {};
TEST_P(OpagentFaults, LosesNoAcknowledgedCall) { ExpectNoAcknowledgedCallLost(GetParam()); }
INSTANTIATE_TEST_SUITE_P(HostFaults, OpagentFaults, ::testing::ValuesIn(test_support::kHostFaults),
                         test_support::FaultName);

}  // namespace
}  // namespace jitscope
