// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope resolve`, run as a program: exact text and JSON output for the scenarios of Intel's
// guide recorded in a native trace, mixed sources, directories, damaged files and usage errors.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jitscope/base/files.h"
#include "jitscope/trace/writer.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::cli {
namespace {

namespace fs = std::filesystem;

// Runs the jitscope binary with `args`, words separated by spaces (no quoting).
test_support::ProcessResult Jitscope(const std::string& args) {
  std::vector<std::string> argv = {JITSCOPE_CLI};
  std::istringstream words(args);
  for (std::string word; words >> word;) argv.push_back(word);
  return test_support::RunProgram(argv);
}

class ResolveCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directory(dir_ + "/traces");
    WriteTrace(dir_ + "/traces", 4321);
  }

  // The scenarios of Intel's guide, as the collector records them (pid 4321).
  static void WriteTrace(const std::string& directory, uint32_t pid) {
    auto fd = base::CreateExclusive(directory, "jit-" + std::to_string(pid) + ".jsc");
    ASSERT_TRUE(fd.ok()) << fd.status().message();
    trace::TraceIdentity identity;
    identity.pid = pid;
    identity.exe_path = "/usr/bin/demo";
    auto writer = trace::TraceWriter::Create(std::move(fd).value(), identity);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    static const trace::LineEntry kLines[] = {{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}};
    auto code = [](uint32_t event, uint32_t id, const char* name, uint64_t address, uint32_t size) {
      trace::CodeEvent e;
      e.api_event = event;
      e.method_id = id;
      e.name = name;
      e.address = address;
      e.size = size;
      return e;
    };
    trace::CodeEvent answer = code(trace::kEventMethodLoadFinished, 7, "answer", 0x10000, 21);
    answer.source_file = "demo.js";
    answer.lines = kLines;
    trace::CodeEvent hot = code(trace::kEventMethodLoadFinished, 8, "split", 0x100, 0x20);
    trace::CodeEvent cold = code(trace::kEventMethodLoadFinished, 8, "split", 0x200, 0x30);
    trace::CodeEvent a = code(trace::kEventMethodLoadFinishedV2, 1000, "a", 0x20000, 0x100);
    a.module = "tier1";
    trace::CodeEvent b = code(trace::kEventMethodInlineLoadFinished, 2000, "b", 0x20010, 0x40);
    b.parent_method_id = 1000;
    trace::CodeEvent c = code(trace::kEventMethodInlineLoadFinished, 3000, "c", 0x20020, 0x10);
    c.parent_method_id = 2000;
    trace::CodeEvent d = code(trace::kEventMethodInlineLoadFinished, 2001, "d", 0x20080, 0x20);
    d.parent_method_id = 1000;
    uint64_t t = 100;
    for (const trace::CodeEvent* e : {&answer, &hot, &cold, &c, &b, &d, &a}) {
      ASSERT_EQ((*writer)->Append(*e, t++, 1), trace::TraceWriter::AppendResult::kOk);
    }
    ASSERT_EQ((*writer)->Append(trace::UnloadEvent{7}, 200, 1),
              trace::TraceWriter::AppendResult::kOk);
  }

  test_support::TempDir tmp_;
  const std::string dir_ = tmp_.path();
};

TEST_F(ResolveCommandTest, TextOutputOneLinePerFrameInnermostFirst) {
  const auto r = Jitscope("resolve " + dir_ +
                          "/traces -- 0x10000@150 1000c@150 0x10014@150 "
                          "0x10000@200 0x10000 0x210@150 0x20024@150 0x20090 0x30000");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "0x10000@150: answer at demo.js:2 [id 7]\n"
            "1000c@150: answer at demo.js:2 [id 7]\n"
            "0x10014@150: answer at demo.js:30 [id 7]\n"
            "0x10000@200: ??\n"
            "0x10000: answer at demo.js:2 [id 7]\n"
            "0x210@150: split [id 8]\n"
            "0x20024@150: c (inlined) [id 3000, module tier1]\n"
            "0x20024@150: b (inlined) [id 2000, module tier1]\n"
            "0x20024@150: a [id 1000, module tier1]\n"
            "0x20090: d (inlined) [id 2001, module tier1]\n"
            "0x20090: a [id 1000, module tier1]\n"
            "0x30000: ??\n");
}

TEST_F(ResolveCommandTest, JsonOutputOneObjectPerQuery) {
  const auto r = Jitscope("resolve --json " + dir_ +
                          "/traces/jit-4321.jsc -- 0x1000d@150 "
                          "0x20024@106 0x5");
  ASSERT_EQ(r.exit_code, 0);
  const auto expected = nlohmann::json::parse(R"([
    {"address": 65549, "time": 150,
     "frames": [{"name": "answer", "method_id": 7, "module": null, "file": "demo.js", "line": 2,
                 "inlined": false}],
     "region": {"start": 65536, "size": 21, "loaded": 100}},
    {"address": 131108, "time": 106,
     "frames": [{"name": "c", "method_id": 3000, "module": "tier1", "file": null, "line": null,
                 "inlined": true},
                {"name": "b", "method_id": 2000, "module": "tier1", "file": null, "line": null,
                 "inlined": true},
                {"name": "a", "method_id": 1000, "module": "tier1", "file": null, "line": null,
                 "inlined": false}],
     "region": {"start": 131072, "size": 256, "loaded": 106}},
    {"address": 5, "time": null, "frames": [], "region": null}
  ])");
  EXPECT_EQ(nlohmann::json::parse(r.out), expected) << r.out;
  // Keys in the documented order.
  EXPECT_EQ(r.out.find("\"address\""), r.out.find('{') + 6) << r.out;
}

TEST_F(ResolveCommandTest, PerfMapsAndDamagedFiles) {
  std::ofstream(dir_ + "/perf-4321.map") << "7f0000 40 LazyCompile:*run main.js:3\n"
                                         << "7f0100 20 second\n"
                                         << "not a line\n"
                                         << "7f0200 20 unreached\n";
  const auto r = Jitscope("resolve " + dir_ + "/perf-4321.map " + dir_ +
                          "/traces -- 7f0010@1 7f0105 7f0205 0x20090@150");
  EXPECT_EQ(r.exit_code, 1);  // damage is an error, after what was readable was used
  EXPECT_EQ(r.out,
            "7f0010@1: LazyCompile:*run main.js:3\n"
            "7f0105: second\n"
            "7f0205: ??\n"
            "0x20090@150: d (inlined) [id 2001, module tier1]\n"
            "0x20090@150: a [id 1000, module tier1]\n");
  EXPECT_EQ(r.err, "jitscope resolve: error: " + dir_ +
                       "/perf-4321.map: offset 54 (line 3): expected \"START SIZE NAME\" "
                       "with hexadecimal START and SIZE (using what was readable before "
                       "it)\n");
}

TEST_F(ResolveCommandTest, UsageErrors) {
  WriteTrace(dir_ + "/traces", 99);
  auto r = Jitscope("resolve " + dir_ + "/traces -- 0x100");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "jitscope resolve: error: the sources describe 2 processes (99, 4321); choose one "
            "with --pid\n");
  r = Jitscope("resolve --pid 99 " + dir_ + "/traces -- 0x210@150");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "0x210@150: split [id 8]\n");
  r = Jitscope("resolve " + dir_ + "/traces/jit-99.jsc -- zz");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("\"zz\" is not ADDR[@TIME_NS]"), std::string::npos);
  r = Jitscope("resolve " + dir_ + "/traces/jit-99.jsc");
  EXPECT_EQ(r.exit_code, 2);
  std::ofstream(dir_ + "/notes.txt") << "hello\n";
  r = Jitscope("resolve " + dir_ + "/notes.txt -- 0x1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "jitscope resolve: error: " + dir_ +
                       "/notes.txt: not a jitscope trace, perf jitdump, perf map or "
                       "OProfile dump\n");
}

}  // namespace
}  // namespace jitscope::cli
