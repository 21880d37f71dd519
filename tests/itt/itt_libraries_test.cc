// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The ITT collector in Debian 12's own programs' copies of ittnotify, unmodified: libdnnl2 2.6.3
// (ITT-API 3.22.5, build 20180723) and libtbb12 2021.8 (3.18.6, build 20180723). Both load the
// collector from INTEL_LIBITTNOTIFY64 and call __itt_api_init with a global whose API list has
// null_func; oneDNN makes its domain and its task names before the collector is loaded.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/trace/reader.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/traces.h"

namespace jitscope {
namespace {

using test_support::RunProgram;
using test_support::TempDir;

// What each thread of a trace did through the ITT API, in order: "begin DOMAIN/NAME" and "end
// DOMAIN" lines, names resolved; and the names threads gave themselves.
struct IttActivity {
  std::map<uint32_t, std::vector<std::string>> tasks;
  std::map<uint32_t, std::string> thread_names;
  size_t code_records = 0;
};

IttActivity ReadActivity(const std::string& dir) {
  IttActivity activity;
  auto path = test_support::FindTrace(dir);
  if (!path.ok()) {
    ADD_FAILURE() << path.status().message();
    return activity;
  }
  auto file = trace::TraceFile::Open(*path);
  if (!file.ok()) {
    ADD_FAILURE() << file.status().message();
    return activity;
  }
  EXPECT_TRUE(file->trace().damage.ok()) << file->trace().damage.message();
  std::map<uint32_t, std::string> strings;
  for (const trace::Record& record : file->trace().records) {
    if (const auto* s = std::get_if<trace::IttStringEvent>(&record.event)) {
      strings[s->string] = s->text;
    } else if (const auto* b = std::get_if<trace::IttBeginEvent>(&record.event)) {
      if (b->kind == trace::IttKind::kTask) {
        activity.tasks[record.tid].push_back("begin " + strings[b->domain] + "/" +
                                             strings[b->name]);
      }
    } else if (const auto* e = std::get_if<trace::IttEndEvent>(&record.event)) {
      if (e->kind == trace::IttKind::kTask) {
        activity.tasks[record.tid].push_back("end " + strings[e->domain]);
      }
    } else if (const auto* n = std::get_if<trace::IttThreadNameEvent>(&record.event)) {
      activity.thread_names[n->tid] = n->name;
    } else if (std::holds_alternative<trace::CodeEvent>(record.event)) {
      ++activity.code_records;
    }
  }
  return activity;
}

// Each begin is ended on its thread before the next begins: the tasks do not nest here. A thread
// other than `main` may end inside its last task: TBB's workers are still in their arena's task
// when the process exits.
void ExpectBalanced(const IttActivity& activity, uint32_t main) {
  for (const auto& [tid, lines] : activity.tasks) {
    const size_t ended = tid == main ? lines.size() : lines.size() / 2 * 2;
    ASSERT_EQ(ended % 2, 0u) << "thread " << tid;
    for (size_t i = 0; i < ended; i += 2) {
      EXPECT_TRUE(lines[i].starts_with("begin ")) << "thread " << tid << ": " << lines[i];
      EXPECT_EQ(lines[i + 1], "end " + lines[i].substr(6, lines[i].find('/') - 6))
          << "thread " << tid;
    }
  }
}

uint32_t PidOf(const std::string& out) {
  unsigned pid = 0;
  EXPECT_EQ(std::sscanf(out.c_str(), "pid %u", &pid), 1) << out;
  return pid;
}

#ifdef JITSCOPE_ONEDNN_WORKLOAD
// One library for both APIs: oneDNN reports its kernels through the JIT Profiling API and each
// primitive execution through the ITT API, into one trace. DNNL_ITT_TASK_LEVEL=1: the main
// thread's executions only.
TEST(IttLibraries, EveryOneDnnPrimitiveExecutionIsATaskNamedAsOneDnnNamesIt) {
  TempDir dir;
  auto run = RunProgram({JITSCOPE_ONEDNN_WORKLOAD, "primitives"},
                        {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR},
                         {"INTEL_LIBITTNOTIFY64", JITSCOPE_COLLECTOR},
                         {"DNNL_ITT_TASK_LEVEL", "1"},
                         {"JITSCOPE_OUTPUT_DIR", dir.path()}});
  ASSERT_EQ(run.exit_code, 0) << run.Describe();
  const IttActivity activity = ReadActivity(dir.path());
  const uint32_t pid = PidOf(run.out);
  ASSERT_EQ(activity.tasks.size(), 1u);
  EXPECT_EQ(activity.tasks.at(pid), (std::vector<std::string>{
                                        "begin dnnl::primitive::execute/convolution",
                                        "end dnnl::primitive::execute",
                                        "begin dnnl::primitive::execute/matmul",
                                        "end dnnl::primitive::execute",
                                        "begin dnnl::primitive::execute/eltwise",
                                        "end dnnl::primitive::execute",
                                        "begin dnnl::primitive::execute/reorder",
                                        "end dnnl::primitive::execute",
                                    }));
  EXPECT_GT(activity.code_records, 0u) << "oneDNN's kernels are in the same trace";
}

// oneDNN's default level, 2: every thread that works on a primitive opens a task for it; 200
// primitives of changing shapes, each created and run once, on the main thread too.
TEST(IttLibraries, AtOneDnnsDefaultLevelEveryThreadsTasksAreBalanced) {
  TempDir dir;
  auto run = RunProgram(
      {JITSCOPE_ONEDNN_WORKLOAD, "many", "200"},
      {{"INTEL_LIBITTNOTIFY64", JITSCOPE_COLLECTOR}, {"JITSCOPE_OUTPUT_DIR", dir.path()}},
      {.unset = {"DNNL_ITT_TASK_LEVEL", "ONEDNN_ITT_TASK_LEVEL"}});
  ASSERT_EQ(run.exit_code, 0) << run.Describe();
  const IttActivity activity = ReadActivity(dir.path());
  const uint32_t pid = PidOf(run.out);
  ExpectBalanced(activity, pid);
  ASSERT_TRUE(activity.tasks.contains(pid));
  EXPECT_EQ(activity.tasks.at(pid).size(), 2u * 200);
}
#endif

#ifdef JITSCOPE_TBB_WORKLOAD
// TBB names its algorithms' tasks in its domain "tbb" (tbb_parallel_for, tbb_parallel_reduce,
// and tbb_custom for a task_group's work) and its workers "TBB Worker Thread".
TEST(IttLibraries, TbbsTasksAreRecordedNamed) {
  TempDir dir;
  auto run = RunProgram({JITSCOPE_TBB_WORKLOAD}, {{"INTEL_LIBITTNOTIFY64", JITSCOPE_COLLECTOR},
                                                  {"JITSCOPE_OUTPUT_DIR", dir.path()}});
  ASSERT_EQ(run.exit_code, 0) << run.Describe();
  const IttActivity activity = ReadActivity(dir.path());
  const uint32_t pid = PidOf(run.out);
  ExpectBalanced(activity, pid);
  std::set<std::string> names;
  for (const auto& [tid, lines] : activity.tasks) {
    for (const std::string& line : lines) {
      if (line.starts_with("begin ")) names.insert(line.substr(6));
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"tbb/tbb_parallel_for", "tbb/tbb_parallel_reduce",
                                          "tbb/tbb_custom"}));
  for (const auto& [tid, name] : activity.thread_names) {
    EXPECT_NE(tid, pid);
    EXPECT_EQ(name, "TBB Worker Thread");
  }
}
#endif

}  // namespace
}  // namespace jitscope
