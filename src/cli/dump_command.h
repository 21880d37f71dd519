// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope dump [--json] FILE`: prints every record of a native trace, one stable line (or one
// JSON object) per record. It is the main test instrument (STYLE.md §14), so its output is
// exact and deterministic: raw CLOCK_MONOTONIC nanoseconds, hex addresses, quoted strings.
#pragma once

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

namespace jitscope::cli {

struct DumpOptions {
  std::string path;
  bool json = false;
};

void AddDumpCommand(CLI::App& app, DumpOptions& options);

// Prints the dump to `out`; on damage, prints what was readable, then one error line to `err`.
// Returns the process exit code.
int RunDump(const DumpOptions& options, std::FILE* out, std::FILE* err);

}  // namespace jitscope::cli
