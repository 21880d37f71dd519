// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: the collector page's "Add JIT profiling to your JIT" example, kept honest.
// docs/collector.md marks the blocks the tests use with a line "<!-- test: NAME -->" before a
// fenced block:
//   my_jit.c        the complete example program, compiled as written
//   CMakeLists.txt  the CMake project that links it with find_package(jitscope)
//   dump            the session it shows: the program's output and `jitscope dump` of its trace
// ExpectDocExampleSession() runs a build of my_jit.c and compares what it prints and what
// `jitscope dump` prints with that session, line for line. Only the values that differ from run to
// run (pid, code address, executable path, times) are replaced with the actual ones.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/traces.h"

namespace jitscope::test_support {

// The fenced block after "<!-- test: NAME -->" in docs/collector.md, without its indentation
// (blocks inside list items are indented), or "" if there is none.
inline std::string DocBlock(const std::string& doc_path, const std::string& name) {
  std::istringstream in(ReadFile(doc_path));
  const std::string marker = "<!-- test: " + name + " -->";
  std::string line;
  while (std::getline(in, line) && line.find(marker) == std::string::npos) {
  }
  if (!std::getline(in, line)) return "";
  const size_t indent = line.find("```");
  if (indent == std::string::npos) return "";
  std::string block;
  while (std::getline(in, line)) {
    const std::string text = line.size() >= indent ? line.substr(indent) : std::string();
    if (text.rfind("```", 0) == 0) return block;
    block += text + "\n";
  }
  return "";  // unterminated block
}

// Writes the block NAME to PATH; fails the test if the page has no such block.
inline void WriteDocBlock(const std::string& doc_path, const std::string& name,
                          const std::string& path) {
  const std::string block = DocBlock(doc_path, name);
  ASSERT_FALSE(block.empty()) << doc_path << " has no block marked <!-- test: " << name << " -->";
  std::ofstream(path) << block;
}

namespace doc_internal {

inline std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Times vary from run to run: a record's leading timestamp and the header's start time become
// "T". Appends the times it replaced, in file order (the header's first), to `times`.
inline std::string WithoutTimes(const std::string& dump, std::vector<uint64_t>* times = nullptr) {
  static const std::regex kTime(R"((^|\n)(\d+) tid=|start_monotonic_ns=(\d+))");
  std::string out;
  auto begin = std::sregex_iterator(dump.begin(), dump.end(), kTime);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out += dump.substr(last, static_cast<size_t>(m.position()) - last);
    if (m[2].matched) {
      out += m[1].str() + "T tid=";
      if (times) times->push_back(std::stoull(m[2].str()));
    } else {
      out += "start_monotonic_ns=T";
      if (times) times->push_back(std::stoull(m[3].str()));
    }
    last = static_cast<size_t>(m.position() + m.length());
  }
  return out + dump.substr(last);
}

}  // namespace doc_internal

// Runs `program` (a build of the collector page's my_jit.c) with `env` (the collector variables)
// and JITSCOPE_OUTPUT_DIR set to a scratch directory, then compares its output and `jitscope dump`
// of its trace with the collector page's "dump" session.
inline void ExpectDocExampleSession(const std::string& doc_path, const std::string& jitscope,
                                    const std::string& program,
                                    std::map<std::string, std::string> env) {
  using doc_internal::ReplaceAll;
  using doc_internal::WithoutTimes;
  TempDir out;
  env["JITSCOPE_OUTPUT_DIR"] = out.path();
  const ProcessResult run = RunProgram({program}, env);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::smatch printed;
  static const std::regex kOutput(R"(answer\(\) = 42, code at (0x[0-9a-f]+)\n)");
  ASSERT_TRUE(std::regex_match(run.out, printed, kOutput)) << run.out;
  const std::string address = printed[1].str();

  const base::StatusOr<std::string> found = FindTrace(out.path());
  ASSERT_TRUE(found.ok()) << found.status().message() << "; stderr: " << run.err;
  const std::string& trace = *found;
  const std::string name = std::filesystem::path(trace).filename().string();
  const std::string pid = name.substr(4, name.size() - 4 - 4);
  const ProcessResult dump = RunProgram({jitscope, "dump", trace});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;

  // The collector page's session, with this run's values in place of the collector page's.
  const std::string session = DocBlock(doc_path, "dump");
  ASSERT_FALSE(session.empty()) << doc_path << " has no block marked <!-- test: dump -->";
  std::istringstream lines(session);
  std::string line;
  std::string doc_output;
  std::string doc_dump;
  std::string doc_pid;
  std::string* current = nullptr;
  static const std::regex kDumpCommand(R"(^\$ jitscope dump jit-(\d+)\.jsc$)");
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, kDumpCommand)) {
      doc_pid = m[1].str();
      current = &doc_dump;
    } else if (line.rfind("$ ", 0) == 0) {
      current = &doc_output;
    } else if (current != nullptr) {
      *current += line + "\n";
    }
  }
  ASSERT_FALSE(doc_pid.empty()) << "no `$ jitscope dump jit-<pid>.jsc` line in:\n" << session;
  static const std::regex kDocAddress(R"(code at (0x[0-9a-f]+))");
  std::smatch doc_address;
  ASSERT_TRUE(std::regex_search(doc_output, doc_address, kDocAddress)) << doc_output;
  static const std::regex kDocExe(R"(exe=("[^"]*"))");
  std::smatch doc_exe;
  ASSERT_TRUE(std::regex_search(doc_dump, doc_exe, kDocExe)) << doc_dump;

  EXPECT_EQ(run.out, ReplaceAll(doc_output, doc_address[1].str(), address));
  std::string expected = doc_dump;
  expected = ReplaceAll(expected, "pid=" + doc_pid, "pid=" + pid);
  expected = ReplaceAll(expected, "tid=" + doc_pid, "tid=" + pid);
  expected = ReplaceAll(expected, "addr=" + doc_address[1].str(), "addr=" + address);
  expected = ReplaceAll(expected, doc_exe[1].str(), "\"" + program + "\"");
  std::vector<uint64_t> times;
  EXPECT_EQ(WithoutTimes(dump.out, &times), WithoutTimes(expected));
  // Records are in time order, after the trace was created.
  for (size_t i = 1; i < times.size(); ++i) EXPECT_LE(times[i - 1], times[i]) << dump.out;
}

}  // namespace jitscope::test_support
