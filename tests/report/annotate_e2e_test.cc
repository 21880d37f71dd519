// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: `jitscope annotate` on the example JIT's hotspot.jv, recorded once per CTest run by
// the report_sessions fixture (CMakeLists.txt; run the tests through CTest), as a user runs it.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/folded.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::report {
namespace {

using test_support::ParseFolded;
using test_support::RunProgram;
using test_support::SamplesThrough;

// hotspot.jv, its functions optimized after 100 calls (of series' 200 a run, run again for 0.3 s
// of CPU time).
std::string Hotspot() { return REPORT_SESSIONS "/annotate"; }

// The line of hotspot.jv marked HOT.
uint32_t HotLine() {
  std::ifstream in(HOTSPOT_PROGRAM);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (line.find("# HOT") != std::string::npos) return n;
  }
  ADD_FAILURE() << "no HOT line in " << HOTSPOT_PROGRAM;
  return 0;
}

// series' optimized and baseline versions are annotated apart, each with its own samples, and
// the optimized version's samples are on the hot line's instructions.
TEST(AnnotateE2eTest, SeriesVersionsApartAndTheHotLineHot) {
  const test_support::ProcessResult run =
      RunProgram({JITSCOPE_CLI, "annotate", Hotspot(), "series", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json root = nlohmann::json::parse(run.out);
  const nlohmann::json* optimized = nullptr;
  const nlohmann::json* baseline = nullptr;
  for (const nlohmann::json& v : root["versions"]) {
    EXPECT_EQ(v["name"], "series");
    EXPECT_TRUE(v["code_recorded"]) << v["module"];
    const std::string module = v["module"];
    // The hot region of each tier: the one with the most samples (the cold ones hold slow paths).
    const nlohmann::json*& slot = module == "jitvm-optimized" ? optimized : baseline;
    ASSERT_TRUE(module == "jitvm-optimized" || module == "jitvm-baseline") << module;
    if (slot == nullptr || (*slot)["samples"] < v["samples"]) slot = &v;
  }
  ASSERT_NE(optimized, nullptr) << run.out.substr(0, 2000);
  ASSERT_NE(baseline, nullptr) << run.out.substr(0, 2000);
  EXPECT_NE((*optimized)["method_id"], (*baseline)["method_id"]);
  // The two are different code: neither version's instructions are the other's.
  EXPECT_NE((*optimized)["instructions"].dump(), (*baseline)["instructions"].dump());

  const uint32_t hot = HotLine();
  uint64_t samples = 0, on_hot_line = 0, decoded = 0, instructions = 0;
  for (const nlohmann::json& in : (*optimized)["instructions"]) {
    const uint64_t n = in["samples"];
    samples += n;
    ++instructions;
    if (in["text"] != "(bad)") ++decoded;
    const nlohmann::json& source = in["source"];
    if (!source.empty() && source.back()["line"] == hot) on_hot_line += n;
  }
  EXPECT_EQ(samples, (*optimized)["samples"]);
  EXPECT_GT(samples, 50u) << "too few samples to judge";
  EXPECT_GE(on_hot_line * 10, samples * 9)
      << on_hot_line << " of " << samples << " samples on hotspot.jv:" << hot;
  EXPECT_EQ(decoded, instructions) << "generated code that does not decode";
}

// The text fits 100 columns, says what skid does once, and shows both tiers' versions.
TEST(AnnotateE2eTest, TextFitsAndSaysSoOnce) {
  for (const char* sort : {"offset", "line"}) {
    const test_support::ProcessResult run =
        RunProgram({JITSCOPE_CLI, "annotate", Hotspot(), "--top", "3", "--sort", sort});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::istringstream lines(run.out);
    size_t skid = 0;
    for (std::string line; std::getline(lines, line);) {
      EXPECT_LE(line.size(), 100u) << line;
      if (line.find("skid") != std::string::npos) ++skid;
    }
    EXPECT_EQ(skid, 1u) << run.out;
    EXPECT_NE(run.out.find("## series (jitvm-optimized), method #"), std::string::npos) << run.out;
  }
  const test_support::ProcessResult intel =
      RunProgram({JITSCOPE_CLI, "annotate", Hotspot(), "series", "-M", "intel"});
  ASSERT_EQ(intel.exit_code, 0) << intel.err;
  EXPECT_NE(intel.out.find("## series (jitvm-baseline), method #"), std::string::npos);
  // Intel syntax: registers without AT&T's '%' (the example JIT keeps frame pointers in rbp).
  EXPECT_EQ(intel.out.find("%rbp"), std::string::npos);
  EXPECT_NE(intel.out.find("rbp"), std::string::npos);
}

// A call instruction carries the samples below it, the same number report counts through the
// function; a native function (the interpreter loop that calls into JIT code) is disassembled
// from its ELF file with its DWARF lines. Neither function is recursive, so the samples through
// it are its own plus those below its calls.
TEST(AnnotateE2eTest, CallsCarryTheSamplesBelowThemAndNativeCodeIsAnnotated) {
  const test_support::ProcessResult folded =
      RunProgram({JITSCOPE_CLI, "report", Hotspot(), "--format", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  // The native caller of the JIT's main: the frame before it in the first stack that has it.
  const size_t jit_main = folded.out.find(";main_[j];");
  ASSERT_NE(jit_main, std::string::npos) << folded.out.substr(0, 2000);
  const size_t before = folded.out.rfind(';', jit_main - 1);
  const std::string native = folded.out.substr(before + 1, jit_main - before - 1);
  ASSERT_NE(native.find("Vm::Run"), std::string::npos) << native;

  const test_support::ProcessResult run =
      RunProgram({JITSCOPE_CLI, "annotate", Hotspot(), "main", native, "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json root = nlohmann::json::parse(run.out);
  const nlohmann::json* jit = nullptr;
  const nlohmann::json* interpreter = nullptr;
  for (const nlohmann::json& v : root["versions"]) {
    if (v["name"] == "main" && !v["native"]) jit = &v;
    if (v["name"] == native && v["native"]) interpreter = &v;
  }
  ASSERT_NE(jit, nullptr) << run.out.substr(0, 2000);
  ASSERT_NE(interpreter, nullptr) << run.out.substr(0, 2000);
  auto through = [](const nlohmann::json& v) {
    uint64_t total = v["samples"];
    for (const nlohmann::json& in : v["instructions"])
      total += in["inclusive_samples"].get<uint64_t>();
    return total;
  };
  EXPECT_EQ(through(*jit), SamplesThrough(ParseFolded(folded.out), "main_[j]"));
  EXPECT_EQ(through(*interpreter), SamplesThrough(ParseFolded(folded.out), native));
  EXPECT_GT(through(*interpreter), 100u) << "too few samples to judge";

  EXPECT_TRUE((*interpreter)["code_recorded"]);
  EXPECT_TRUE((*interpreter)["module"].get<std::string>().ends_with("/jitvm"));
  size_t with_lines = 0;
  for (const nlohmann::json& in : (*interpreter)["instructions"]) {
    EXPECT_NE(in["text"], "(bad)") << in["offset"];
    const nlohmann::json& source = in["source"];
    if (source.empty() || source.back()["line"] == 0) continue;
    ++with_lines;
    EXPECT_EQ(source.back()["function"], native);
    EXPECT_TRUE(source.back()["file"].get<std::string>().ends_with("vm.cc")) << source.back();
  }
  EXPECT_GT(with_lines * 2, (*interpreter)["instructions"].size());
}

// A perf.data is read as report reads it (perf_data_e2e_test has the real ones): a damaged one
// is the reader's one clear error.
TEST(AnnotateE2eTest, ADamagedPerfDataFailsClearly) {
  test_support::TempDir dir;
  const std::string path = dir.path() + "/perf.data";
  std::ofstream(path) << "PERFILE2" << std::string(200, '\0');
  const test_support::ProcessResult run = RunProgram({JITSCOPE_CLI, "annotate", path});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("jitscope annotate: error: " + path, 0), 0u) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
}

TEST(AnnotateE2eTest, UnknownFunctionFailsClearly) {
  const test_support::ProcessResult run =
      RunProgram({JITSCOPE_CLI, "annotate", Hotspot(), "no_such_function"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "jitscope annotate: error: no sampled code (JIT or native) matches no_such_function (a "
            "name, #ID or 0xADDR)\n");
}

}  // namespace
}  // namespace jitscope::report
