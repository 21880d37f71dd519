// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Debian's oneDNN, unmodified, as the collector's client (onednn_workload.cc). oneDNN reports
// each kernel through its bundled copy of Intel's stub when DNNL_JIT_PROFILE has bit 1, and
// writes its own perf jitdump when it has bit 4 (into $JITDUMPDIR/.debug/jit/dnnl.XXXXXX/), so
// with DNNL_JIT_PROFILE=5 one run yields both: every kernel in oneDNN's own dump must be in our
// trace (address, size, name) and our jitdump (the same, and identical code bytes), in the same
// order. Then perf itself reads our jitdump of a oneDNN run.
#include <glob.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "jitdump_test_reader.h"
#include "jitscope/trace/reader.h"
#include "perf_tools.h"
#include "support/temp_dir.h"

namespace jitscope::testing {
namespace {

using test_support::RunProgram;
using test_support::TempDir;

// (address, size, name) of one kernel load.
using Kernel = std::tuple<uint64_t, uint64_t, std::string>;

std::vector<Kernel> KernelsOf(const TestJitdump& dump) {
  std::vector<Kernel> kernels;
  for (const TestJitdumpRecord* load : dump.Loads()) {
    kernels.emplace_back(load->code_address, load->code.size(), load->name);
  }
  return kernels;
}

class OnednnTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  // The environment of a oneDNN run reporting to our collector.
  std::map<std::string, std::string> Environment(const std::string& jit_profile,
                                                 const std::string& formats) const {
    return {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR},
            {"JITSCOPE_FORMATS", formats},
            {"JITSCOPE_OUTPUT_DIR", dir_.path()},
            {"DNNL_JIT_PROFILE", jit_profile},
            {"ONEDNN_JIT_PROFILE", jit_profile},
            {"JITDUMPDIR", Path("onednn")},
            {"OMP_NUM_THREADS", "1"}};
  }

  // Runs the workload with DNNL_JIT_PROFILE=5 and compares oneDNN's dump with our outputs.
  // Returns oneDNN's kernels.
  std::vector<Kernel> RunAndCompare(const std::vector<std::string>& args,
                                    const std::map<std::string, std::string>& extra_env) {
    std::vector<std::string> command = {JITSCOPE_ONEDNN_WORKLOAD};
    command.insert(command.end(), args.begin(), args.end());
    std::map<std::string, std::string> env = Environment("5", "trace,jitdump");
    for (const auto& [name, value] : extra_env) env[name] = value;
    const ProcessResult run = RunProgram(command, env);
    EXPECT_TRUE(run.ok()) << run.Describe();
    EXPECT_NE(std::string::npos, run.out.find("\ndone\n")) << run.Describe();
    const long pid = FindNumber(run.out, "pid");
    if (pid <= 0) {
      ADD_FAILURE() << run.Describe();
      return {};
    }
    const std::string dump_name = "jit-" + std::to_string(pid) + ".dump";

    // oneDNN's own dump, in the directory it made under $JITDUMPDIR.
    glob_t found{};
    const std::string pattern = Path("onednn/.debug/jit/dnnl.*/" + dump_name);
    EXPECT_EQ(0, ::glob(pattern.c_str(), 0, nullptr, &found)) << "no " << pattern;
    const std::string theirs_path = found.gl_pathc == 1 ? found.gl_pathv[0] : "";
    ::globfree(&found);
    auto theirs = ReadTestJitdump(theirs_path);
    auto ours = ReadTestJitdump(Path(dump_name));
    auto trace = trace::TraceFile::Open(Path("jit-" + std::to_string(pid) + ".jsc"));
    if (!theirs.ok() || !ours.ok() || !trace.ok()) {
      ADD_FAILURE() << "oneDNN's dump: " << theirs.status().message()
                    << "; ours: " << ours.status().message()
                    << "; trace: " << trace.status().message();
      return {};
    }

    const std::vector<Kernel> kernels = KernelsOf(*theirs);
    EXPECT_FALSE(kernels.empty()) << "oneDNN generated no kernels";
    // The trace: every load, in time order, with oneDNN's address, size and name.
    std::vector<Kernel> traced;
    uint64_t previous = 0;
    for (const trace::Record& record : trace->trace().records) {
      const auto* code = std::get_if<trace::CodeEvent>(&record.event);
      if (code == nullptr) continue;
      EXPECT_EQ(trace::kEventMethodLoadFinished, code->api_event);
      EXPECT_GT(record.timestamp, previous);
      previous = record.timestamp;
      traced.emplace_back(code->address, code->size, std::string(code->name.value_or("")));
    }
    EXPECT_EQ(kernels, traced);
    EXPECT_EQ(0u, trace->trace().stats.torn_records);
    // Our jitdump: the same loads, and the code bytes oneDNN wrote for each.
    EXPECT_EQ(kernels, KernelsOf(*ours));
    const auto their_loads = theirs->Loads();
    const auto our_loads = ours->Loads();
    for (size_t i = 0; i < their_loads.size() && i < our_loads.size(); ++i) {
      EXPECT_EQ(their_loads[i]->code, our_loads[i]->code)
          << "load " << i << " (" << their_loads[i]->name << ") has other code bytes";
    }
    return kernels;
  }

  TempDir dir_;
};

TEST_F(OnednnTest, EveryKernelOneDnnDumpsIsInOurTraceAndJitdump) {
  const std::vector<Kernel> kernels = RunAndCompare({"primitives"}, {});
  // Convolution, matmul, eltwise and reorder each need at least one kernel.
  EXPECT_GE(kernels.size(), 4u);
}

TEST_F(OnednnTest, WithoutThePrimitiveCacheEveryLoadIsKeptInTimeOrder) {
  // oneDNN frees each primitive's kernels when the primitive goes and reuses the memory, without
  // any unload event: only time order tells the kernels at one address apart.
  const std::vector<Kernel> kernels = RunAndCompare(
      {"many", "48"},
      {{"DNNL_PRIMITIVE_CACHE_CAPACITY", "0"}, {"ONEDNN_PRIMITIVE_CACHE_CAPACITY", "0"}});
  std::set<uint64_t> addresses;
  for (const Kernel& kernel : kernels) addresses.insert(std::get<0>(kernel));
  EXPECT_GE(kernels.size(), 48u);
  EXPECT_LT(addresses.size(), kernels.size()) << "no address was reused: the scenario did not "
                                                 "happen, so this test proves nothing";
}

TEST_F(OnednnTest, PerfInjectOfOurJitdumpNamesOneDnnKernels) {
  const std::string unavailable = PerfUnavailable();
  ASSERT_TRUE(unavailable.empty()) << unavailable;
  // DNNL_JIT_PROFILE=1: oneDNN reports to the collector only; our jitdump is the only one.
  const ProcessResult run = PerfRecord(Path("perf.data"), {JITSCOPE_ONEDNN_WORKLOAD, "hot", "0.6"},
                                       Environment("1", "jitdump"));
  ASSERT_TRUE(run.ok()) << run.Describe();
  const long pid = FindNumber(run.out, "pid");
  auto ours = ReadTestJitdump(Path("jit-" + std::to_string(pid) + ".dump"));
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  std::set<std::string> kernel_names;
  for (const auto* load : ours->Loads()) kernel_names.insert(load->name);
  ASSERT_FALSE(kernel_names.empty());

  const ProcessResult inject = PerfInject(Path("perf.data"), Path("perf.jit.data"));
  ASSERT_TRUE(inject.ok()) << inject.Describe();
  const ProcessResult report = PerfReport(Path("perf.jit.data"), "sym");
  ASSERT_TRUE(report.ok()) << report.Describe();
  double in_kernels = 0;
  for (const auto& [name, share] : SharesByName(ParseReport(report.out, false))) {
    if (kernel_names.contains(name)) in_kernels += share;
  }
  // The convolution and matmul kernels do the work; perf must name their samples.
  EXPECT_GT(in_kernels, 30) << report.out;
}

}  // namespace
}  // namespace jitscope::testing
