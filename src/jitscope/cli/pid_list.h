// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// "PID[,PID...]", perf's spelling of a list of processes (record -p, report --pid).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::cli {

// Decimal process ids, each at least 1, separated by commas; a repeated one counts once. The
// error names `option` ("-p").
base::StatusOr<std::vector<pid_t>> ParsePids(const std::string& text, const std::string& option);

}  // namespace jitscope::cli
