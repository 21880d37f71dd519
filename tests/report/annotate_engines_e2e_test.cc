// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End to end: `jitscope annotate` of other engines' JIT code, recorded by `jitscope record` as a
// user records it; the code is found through the jitdump each process wrote and mapped
// (walk/recording.h, FindForeignJitFiles), its bytes and line tables read from there.
//  - Node's V8 (`node --perf-prof`, annotate_hot.js): the hottest version is the optimized code
//    of the JS function doing the work, decoded, its samples on its instructions, its lines in
//    the .js file. (Node 20 writes a user script's file names from freed memory; the reader
//    names them from the code's V8 name: formats/jitdump_reader.h.)
//  - LLVM's MCJIT (`lli-14 -jit-kind=mcjit` of annotate_loop.c, compiled by clang-14 -g -O0): a
//    C function with its C lines, most samples on its loop's lines.
// The programs' lines are found by the markers in their comments. A missing node, lli-14 or
// clang-14 (scripts/setup installs them) fails the test with the path "...-NOTFOUND".
#include <cstdint>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/v8_names.h"

namespace jitscope::report {
namespace {

using nlohmann::json;
using test_support::ProcessResult;
using test_support::RunProgram;
using test_support::TempDir;

// The lines of the file at `path` that hold `marker`, in order.
std::vector<uint32_t> MarkedLines(const std::string& path, const std::string& marker) {
  std::vector<uint32_t> marked;
  std::istringstream in(test_support::ReadFile(path));
  uint32_t number = 1;
  for (std::string line; std::getline(in, line); ++number) {
    if (line.find(marker) != std::string::npos) marked.push_back(number);
  }
  EXPECT_FALSE(marked.empty()) << "no line marked " << marker << " in " << path;
  return marked;
}

std::string FileName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// Checks one version of `annotate --format json` against its source program, `source`, whose
// function spans the lines marked FIRST to LAST: code recorded and decoded (no more than
// `max_bad_percent` of the instructions "(bad)"), the version's samples all on its instructions,
// every instruction's innermost frame in `source` within the function. Returns the samples per
// line of the version's `lines` totals.
std::map<uint32_t, uint64_t> ExpectAnnotatedFrom(const json& version, const std::string& source,
                                                 uint64_t max_bad_percent) {
  const uint32_t first = MarkedLines(source, "FIRST").front();
  const uint32_t last = MarkedLines(source, "LAST").front();
  const std::string suffix = "/" + FileName(source);
  EXPECT_TRUE(version["code_recorded"].get<bool>()) << version["name"];
  uint64_t instructions = 0, bad = 0, samples = 0;
  for (const json& in : version["instructions"]) {
    ++instructions;
    EXPECT_TRUE(in["recorded"].get<bool>()) << in.dump();
    if (in["text"] == "(bad)") ++bad;
    samples += in["samples"].get<uint64_t>();
    EXPECT_FALSE(in["source"].empty()) << "an instruction without source: " << in.dump();
    if (in["source"].empty()) continue;
    const json& innermost = in["source"].front();
    EXPECT_TRUE(innermost["file"].get<std::string>().ends_with(suffix)) << in.dump();
    EXPECT_GE(innermost["line"], first) << in.dump();
    EXPECT_LE(innermost["line"], last) << in.dump();
  }
  EXPECT_GT(instructions, 10u) << version.dump();
  EXPECT_LE(bad * 100, instructions * max_bad_percent) << bad << " of " << instructions;
  EXPECT_EQ(samples, version["samples"]);
  std::map<uint32_t, uint64_t> per_line;
  for (const json& total : version["lines"]) {
    per_line[total["source"].front()["line"]] += total["samples"].get<uint64_t>();
  }
  return per_line;
}

// The samples on the lines of `source` marked LOOP.
uint64_t OnLoopLines(const std::map<uint32_t, uint64_t>& per_line, const std::string& source) {
  uint64_t samples = 0;
  for (uint32_t line : MarkedLines(source, "LOOP")) {
    if (auto it = per_line.find(line); it != per_line.end()) samples += it->second;
  }
  return samples;
}

ProcessResult Annotate(const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {JITSCOPE_CLI, "annotate"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  return RunProgram(argv);
}

// Node's hottest JS function, from the jitdump `node --perf-prof` writes into its working
// directory: V8 names TurboFan code "JS:*<function> <script>:<line>:<column>" (support/v8_names.h).
TEST(AnnotateEnginesE2eTest, NodesHottestFunctionFromItsJitdump) {
  TempDir tmp;
  const std::string session = tmp.path() + "/session";
  // The script is run from the test's own directory: its path is in every row annotate prints,
  // which a long checkout path would push past the 100 columns the text keeps to.
  const std::string script_path = tmp.path() + "/" + FileName(ANNOTATE_HOT_JS);
  ASSERT_TRUE(test_support::WriteFile(script_path, test_support::ReadFile(ANNOTATE_HOT_JS)));
  const ProcessResult record = RunProgram(
      {JITSCOPE_CLI, "record", "-o", session, "--", NODE_PROGRAM, "--perf-prof", script_path}, {},
      {.cwd = tmp.path()});
  ASSERT_EQ(record.exit_code, 0) << record.Describe();
  const ProcessResult run = Annotate({session, "--top", "1", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json root = json::parse(run.out);
  ASSERT_EQ(root["versions"].size(), 1u) << run.out.substr(0, 2000);
  const json& hottest = root["versions"][0];
  const std::string name = hottest["name"];
  const std::string script = FileName(ANNOTATE_HOT_JS);
  const std::optional<test_support::V8CodeName> parsed = test_support::ParseV8CodeName(name);
  ASSERT_TRUE(parsed.has_value()) << name;
  EXPECT_EQ(parsed->tier, '*') << name;
  EXPECT_EQ(parsed->function, "mixHot") << name;
  EXPECT_TRUE(parsed->script.ends_with("/" + script)) << name;
  EXPECT_EQ(parsed->line, MarkedLines(ANNOTATE_HOT_JS, "FIRST")[0]) << name;
  const uint64_t samples = hottest["samples"];
  EXPECT_GT(samples, 200u) << "too few samples to judge";
  EXPECT_GT(samples * 2, root["total_samples"].get<uint64_t>()) << "mixHot does the work";
  const std::map<uint32_t, uint64_t> per_line = ExpectAnnotatedFrom(hottest, script_path, 5);
  const uint64_t on_loop = OnLoopLines(per_line, script_path);
  EXPECT_GE(on_loop * 2, samples) << on_loop << " of " << samples << " on the loop's lines";
  std::cout << name << ": " << samples << " of " << root["total_samples"] << " samples, " << on_loop
            << " on the loop's lines\n";

  // The text: the version's title and its source rows by file and line.
  const ProcessResult text = Annotate({session, "--top", "1"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("## " + name), std::string::npos) << text.out;
  // "JS:*mixHot" (Node 18: "LazyCompile:*mixHot"): the name up to its script.
  const std::string loop_row = script + ":" +
                               std::to_string(MarkedLines(ANNOTATE_HOT_JS, "LOOP").back()) + "  " +
                               name.substr(0, name.find(' '));
  EXPECT_NE(text.out.find(loop_row), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("(no line)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("code not recorded"), std::string::npos) << text.out;

  // Chosen by its JavaScript name: the hottest version is among mixHot's.
  const ProcessResult by_name = Annotate({session, "mixHot", "--format", "json"});
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  bool found = false;
  const json chosen = json::parse(by_name.out);
  for (const json& v : chosen["versions"]) {
    EXPECT_NE(v["name"].get<std::string>().find("mixHot "), std::string::npos) << v["name"];
    found = found || (v["name"] == name && v["start"] == hottest["start"]);
  }
  EXPECT_TRUE(found) << by_name.out.substr(0, 2000);
}

// An lli function with its C lines: LLVM's PerfJITEventListener writes a jitdump (code bytes and
// the DWARF line table) under $JITDUMPDIR, which lli maps.
TEST(AnnotateEnginesE2eTest, LliFunctionWithItsCLines) {
  TempDir tmp;
  const std::string ll = tmp.path() + "/annotate_loop.ll";
  // Compiled from the test's own directory: the source's path is in every row annotate prints,
  // which a long checkout path would push past the 100 columns the text keeps to.
  const std::string source = tmp.path() + "/" + FileName(ANNOTATE_LOOP_C);
  ASSERT_TRUE(test_support::WriteFile(source, test_support::ReadFile(ANNOTATE_LOOP_C)));
  const ProcessResult compile =
      RunProgram({CLANG_14, "-g", "-O0", "-S", "-emit-llvm", source, "-o", ll});
  ASSERT_EQ(compile.exit_code, 0) << compile.Describe();
  const std::string session = tmp.path() + "/session";
  const ProcessResult record =
      RunProgram({JITSCOPE_CLI, "record", "-o", session, "--", LLI_14, "-jit-kind=mcjit", ll},
                 {{"JITDUMPDIR", tmp.path()}});
  ASSERT_EQ(record.exit_code, 0) << record.Describe();
  const ProcessResult run = Annotate({session, "work", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json root = json::parse(run.out);
  ASSERT_EQ(root["versions"].size(), 1u) << run.out.substr(0, 2000);
  const json& work = root["versions"][0];
  EXPECT_EQ(work["name"], "work");
  const uint64_t samples = work["samples"];
  EXPECT_GT(samples, 200u) << "too few samples to judge";
  const std::map<uint32_t, uint64_t> per_line = ExpectAnnotatedFrom(work, source, 0);
  const uint64_t on_loop = OnLoopLines(per_line, source);
  EXPECT_GE(on_loop * 2, samples) << on_loop << " of " << samples << " on the loop's lines";
  std::cout << "work: " << samples << " of " << root["total_samples"] << " samples, " << on_loop
            << " on the loop's lines\n";

  const ProcessResult text = Annotate({session, "work"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("## work, method #"), std::string::npos) << text.out;
  const std::string loop_row = FileName(ANNOTATE_LOOP_C) + ":" +
                               std::to_string(MarkedLines(ANNOTATE_LOOP_C, "LOOP").back()) +
                               "  work";
  EXPECT_NE(text.out.find(loop_row), std::string::npos) << text.out;
}

}  // namespace
}  // namespace jitscope::report
