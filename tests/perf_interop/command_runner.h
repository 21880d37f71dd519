// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Runs a real program for the end-to-end tests (perf, the workloads) and captures what it
// printed.
#pragma once

#include <string>
#include <vector>

namespace jitscope::testing {

struct CommandResult {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  std::string out;
  std::string err;

  bool ok() const { return signal == 0 && exit_code == 0; }
  // "`argv...` exited with 1; stderr: ..." for failure messages.
  std::string Describe() const;
  std::string command;
};

// Runs `argv` (argv[0] searched in PATH) with this process's environment plus `env` entries
// ("NAME=value", replacing a variable of the same name), capturing stdout and stderr through
// files in `scratch_dir`.
CommandResult RunCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         const std::string& scratch_dir);

std::string ReadWholeFile(const std::string& path);

}  // namespace jitscope::testing
