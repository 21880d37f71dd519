// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What the example-JIT tests need to look at a collector's trace the way a user does: run a
// program (with the collector in its environment), find the trace it wrote, and read
// `jitscope dump --json` back as JSON objects. Failures are returned as messages so a test
// fails loudly with the reason.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace jitscope::testing {

struct ProcessResult {
  int exit_code = -1;  // -1: did not exit normally
  std::string out;     // stdout
  std::string err;     // stderr
};

// Runs argv[0] with `argv`, adding `env` to this process's environment.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env = {});

// A fresh directory under $TMPDIR (or /tmp), removed with its files when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The single jit-*.jsc file in `dir`, or "" (with `error` set) if there is not exactly one.
std::string FindTrace(const std::string& dir, std::string& error);

// `jitscope dump --json TRACE`, one object per line (header, records, summary). `error` is set
// if the command fails or prints something that is not JSON.
std::vector<nlohmann::json> DumpJson(const std::string& jitscope, const std::string& trace,
                                     std::string& error);

// The line of the byte at `offset` in an end-offset line table (dump JSON form: [{offset,
// line}]): the first entry whose offset exceeds it. 0 if the table does not cover it.
uint32_t LineAt(const nlohmann::json& lines, uint64_t offset);

}  // namespace jitscope::testing
