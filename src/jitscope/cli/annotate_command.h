// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope annotate [SESSION] [FUNCTION...]`: the hot instructions of JIT code in a session
// recorded by `jitscope record` (src/jitscope/report/annotate.h), per version of each function.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "jitscope/report/sample_filter.h"

namespace jitscope::cli {

struct AnnotateOptions {
  // The session directory, then the functions; the first is the session only if it is a
  // directory (`jitscope annotate series` reads jitscope.data).
  std::vector<std::string> arguments;
  size_t top = 5;
  std::string sort = "offset";         // offset | line
  std::string syntax = "att";          // -M: att | intel
  std::string format = "text";         // text | json
  std::string output;                  // "" = stdout
  report::SampleFilterOptions filter;  // --pid, --tid, --comm, --time, --task
};

int RunAnnotate(const AnnotateOptions& options, std::FILE* out, std::FILE* err);

}  // namespace jitscope::cli
