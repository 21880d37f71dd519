// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// "PID[,PID...]", perf's spelling of a list of processes (record -p, report --pid).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "jitscope/base/status.h"

namespace jitscope::cli {

// Decimal process ids, each at least 1, separated by commas; a repeated one counts once. The
// error names `option` ("-p").
base::StatusOr<std::vector<pid_t>> ParsePids(const std::string& text, const std::string& option);

// Adds the option `names` ("-p,--pid") to `command`: a PID[,PID...] list into `pids`, a wrong one
// refused with ParsePids' message naming `shown` ("-p").
template <typename Pid>
CLI::Option* AddPidListOption(CLI::App* command, const std::string& names, const std::string& shown,
                              std::vector<Pid>& pids, const std::string& description) {
  return command
      ->add_option_function<std::string>(
          names,
          [&pids, shown](const std::string& text) {
            base::StatusOr<std::vector<pid_t>> parsed = ParsePids(text, shown);
            if (!parsed.ok()) throw CLI::ValidationError(parsed.status().message());
            pids.assign(parsed->begin(), parsed->end());
          },
          description)
      ->type_name("PID[,PID...]");
}

}  // namespace jitscope::cli
