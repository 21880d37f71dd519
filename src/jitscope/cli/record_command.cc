// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/record_command.h"

namespace jitscope::cli {

void AddRecordCommand(CLI::App& app, record::SessionOptions& options) {
  CLI::App* command = app.add_subcommand(
      "record",
      "Run a command and sample it (all threads and child processes, call chains via frame "
      "pointers, CLOCK_MONOTONIC timestamps) with the JIT collector configured, into a session "
      "directory that 'jitscope report' reads. An existing session directory is moved aside to "
      "DIR.old (or DIR.1, DIR.2, ...), never overwritten. Ctrl-C reaches the command; the session "
      "stays complete. The exit status is the command's.");
  command->add_option("-o,--output", options.output_dir, "Session directory")
      ->default_val("jitscope.data");
  command->add_option("-F,--frequency", options.frequency_hz, "Samples per second per thread")
      ->default_val(1000)
      ->check(CLI::Range(1, 100000));
  command->add_option("--formats", options.formats,
                      "Formats the collector writes (JITSCOPE_FORMATS, comma-separated), e.g. "
                      "native,jitdump,perfmap; default: the collector's default");
  command->add_option("command", options.command, "The command to run, after --")
      ->required()
      ->expected(-1);
  command->prefix_command();
}

int RunRecord(record::SessionOptions options, std::FILE* err) {
  base::StatusOr<std::string> collector = record::FindCollector();
  if (collector.ok()) {
    options.collector_path = *collector;
  } else {
    std::fprintf(err,
                 "jitscope record: warning: %s; JIT code will not be recorded, only native "
                 "frames\n",
                 collector.status().message().c_str());
  }
  // A 32-bit JIT among the command's processes reads INTEL_JIT_PROFILER32; set it when the i386
  // collector is installed beside the 64-bit one.
  if (base::StatusOr<std::string> collector32 = record::FindCollector("lib32"); collector32.ok()) {
    options.collector32_path = *collector32;
  }
  base::StatusOr<record::SessionResult> result = record::RunSession(options);
  if (!result.ok()) {
    std::fprintf(err, "jitscope record: error: %s\n", result.status().message().c_str());
    return 1;
  }
  if (!result->exec_error.ok()) {
    std::fprintf(err, "jitscope record: error: %s\n", result->exec_error.message().c_str());
    return result->exit_code;
  }
  if (!result->rotated_to.empty()) {
    std::fprintf(err, "jitscope record: moved the previous session to %s\n",
                 result->rotated_to.c_str());
  }
  if (!result->kernel_frames) {
    std::fprintf(err,
                 "jitscope record: note: kernel.perf_event_paranoid allows user-space frames "
                 "only\n");
  }
  std::fprintf(
      err, "jitscope record: wrote %s (%.1f KiB of samples); view it with 'jitscope report %s'\n",
      options.output_dir.c_str(), static_cast<double>(result->records_bytes) / 1024.0,
      options.output_dir.c_str());
  return result->exit_code;
}

}  // namespace jitscope::cli
