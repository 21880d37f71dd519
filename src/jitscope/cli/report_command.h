// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope report [INPUT | -i INPUT] [--jit PATH]... [--format F] [-o FILE] [--sort KEY]
// [--inline|--no-inline] [--top N] [--name-width N] [--diff-base OLD]`: symbolizes a session
// directory written by `jitscope record`, or a perf.data file `perf record` wrote
// (src/jitscope/report/profile_builder.h), and writes it in one of the report formats; with
// --diff-base, the difference of INPUT from the recording OLD (report/profile_diff.h).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/report/profile_builder.h"
#include "jitscope/report/text_writer.h"

namespace jitscope::cli {

struct ReportOptions {
  std::string directory = "jitscope.data";  // the positional INPUT
  std::string input;                        // -i INPUT, which wins when given
  std::string format = "text";
  std::string output;           // "" = stdout
  std::string sort = "method";  // text: method | line | module
  report::TextOptions text;     // its `top`; `sort` is set from the string above
  bool inline_frames = true;
  report::BuildOptions build;  // its jit_sources (--jit)
  std::string diff_base;       // --diff-base OLD: INPUT compared with OLD
};

// The names --format accepts.
std::vector<std::string> ReportFormatNames();

int RunReport(const ReportOptions& options, std::FILE* out, std::FILE* err);

// A report file is replaced at the user's request, but never through a symbolic link planted at
// its name (O_NOFOLLOW).
base::Status WriteReportFile(const std::string& path, const std::string& bytes);

}  // namespace jitscope::cli
