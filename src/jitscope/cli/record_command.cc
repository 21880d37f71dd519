// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/record_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string_view>
#include <vector>

#include "jitscope/cli/pid_list.h"
#include "jitscope/formats/output_formats.h"

namespace jitscope::cli {
namespace {

// Real command lines, run as printed by a test (tests/cli/help_examples_test.cc) from a directory
// that holds the build's bin/ as build/bin and the repository's examples/.
constexpr char kRecordExamples[] = R"(Examples:
  jitscope record -- build/bin/jitvm examples/jitvm/programs/hotspot.jv 400
  jitscope record -o fib.data -F 4000 --formats trace,jitdump,perfmap -- build/bin/jitvm examples/jitvm/programs/fib.jv 22
Sampling running process PID, and what it starts, for ten seconds:
  jitscope record -p PID -- sleep 10
Sampling every process on the machine until Ctrl-C:
  jitscope record -a
)";

}  // namespace

void AddRecordCommand(CLI::App& app, record::SessionOptions& options) {
  CLI::App* command = app.add_subcommand(
      "record",
      "Run a command and sample it (all threads and child processes, call chains via frame "
      "pointers or DWARF unwinding, CLOCK_MONOTONIC timestamps) with the JIT collector configured, "
      "into a session "
      "directory that 'jitscope report' reads. An existing session directory is moved aside to "
      "DIR.old (or DIR.1, DIR.2, ...), never overwritten. Ctrl-C reaches the command; the session "
      "stays complete. The exit status is the command's. With -p, sample running processes "
      "instead: every thread they have and start, and their children, until they all exit, "
      "Ctrl-C or SIGTERM, or the end of the command given after -- (which only times the "
      "recording: it is not sampled, as with perf record -p); the exit status is then that "
      "command's, or 0. With -a, sample every process on every CPU in the same way. JIT code is "
      "named from what the processes write: the trace of a process started with the collector "
      "(INTEL_JIT_PROFILER64, read in its JITSCOPE_OUTPUT_DIR), a jitdump it maps, or "
      "/tmp/perf-PID.map (which --jvm-perf-map asks a JVM to write); a JVM started without "
      "any of these is named through --jvm-agent or --jvm-perf-map. A process in a container "
      "(other PID and mount namespaces) is given by its pid on the host: its files, named by its "
      "pid inside (NSpid) and found through /proc/PID/root, are copied into the session directory "
      "(perf-PID.map, pid-PID/), so the session is reported after it is gone.");
  command->add_option("-o,--output", options.output_dir, "Session directory")
      ->default_val("jitscope.data");
  command->add_option("-F,--frequency", options.frequency_hz, "Samples per second per thread")
      ->default_val(1000)
      ->check(CLI::Range(1, 100000));
  command
      ->add_option_function<std::string>(
          "--call-graph",
          [&options](const std::string& text) {
            base::StatusOr<record::CallGraphOptions> call_graph = record::ParseCallGraph(text);
            if (!call_graph.ok()) throw CLI::ValidationError(call_graph.status().message());
            options.call_graph = *call_graph;
          },
          "How call stacks are sampled, as perf record's option: 'fp' (the frame-pointer chain, "
          "the default) or 'dwarf[,SIZE]' (the user registers and SIZE bytes of the user stack "
          "per sample, 8192 by default, at most 65528, unwound by 'jitscope report' with the "
          "code's call-frame information)")
      ->default_str("fp");
  command->add_option("--formats", options.formats,
                      "Files the collector writes (JITSCOPE_FORMATS), comma-separated, of: " +
                          formats::KnownOutputFormats() + "; default: trace");
  AddPidListOption(command, "-p,--pid", "-p", options.attach,
                   "Sample these running processes (PID[,PID...]); needs the rights "
                   "perf_event_open and /proc/PID/maps ask for: see 'Permissions' in the README");
  command->add_flag("--jvm-perf-map", options.jvm_perf_map,
                    "With -p or -a: ask each Java VM among the processes for a perf map of its "
                    "compiled code (jcmd PID Compiler.perfmap, which writes /tmp/perf-PID.map) "
                    "when the recording starts and ends, and keep a copy in the session, so a JVM "
                    "started without any JIT reporting is named");
  command->add_flag("--jvm-agent", options.jvm_agent,
                    "With -p or -a: load jitscope's JVMTI agent into each Java VM among the "
                    "processes before the recording starts (jcmd PID JVMTI.agent_load "
                    "<prefix>/lib/libjvmti_opagent.so dir=DIR), and stop it when it ends: the "
                    "JVM writes its compiled methods, those compiled before too, with their "
                    "source lines, into the session, so a JVM started without any JIT reporting "
                    "is named; the JVM must be able to write DIR");
  command->add_flag("-a,--all-cpus", options.system_wide,
                    "Sample every process on every CPU (system-wide, as perf record -a), until "
                    "Ctrl-C or SIGTERM, or the end of the command given after --; needs "
                    "kernel.perf_event_paranoid <= 0 or CAP_PERFMON (see 'Permissions' in the "
                    "README)");
  command
      ->add_option("command", options.command,
                   "The command to run, after --; with -p or -a, the command that times the "
                   "recording")
      ->expected(-1);
  command->prefix_command();
  command->footer(kRecordExamples);
}

base::Status ValidateRecordOptions(const record::SessionOptions& options) {
  if (options.command.empty() && options.attach.empty() && !options.system_wide) {
    return base::Status::Error("nothing to record: give a command after --, -p PID or -a");
  }
  for (auto [flag, given] : {std::pair{"--jvm-perf-map", options.jvm_perf_map},
                             std::pair{"--jvm-agent", options.jvm_agent}}) {
    if (given && options.attach.empty() && !options.system_wide) {
      return base::Status::Error(
          "%s applies to -p or -a: give a JVM that record starts jitscope's JVMTI agent instead "
          "(java -agentpath:.../libjvmti_opagent.so)",
          flag);
    }
  }
  if (!options.attach.empty() && options.system_wide) {
    return base::Status::Error("-p and -a: -a samples every process already");
  }
  if ((!options.attach.empty() || options.system_wide) && !options.formats.empty()) {
    return base::Status::Error(
        "--formats does not apply to -p or -a: a running process's collector writes what its "
        "environment asked for when it started");
  }
  if (!options.formats.empty()) {
    RETURN_IF_ERROR(formats::ParseOutputFormats(options.formats, "--formats").status());
  }
  if (options.output_dir.empty()) return base::Status::Error("-o: the session directory is empty");
  // An existing session directory (or a link planted at its name, never followed) is moved
  // aside; a file of the user's at that name is a mistyped -o, not something to move.
  struct stat st {};
  if (::lstat(options.output_dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode) &&
      !S_ISLNK(st.st_mode)) {
    return base::Status::Error("-o %s: exists and is not a directory", options.output_dir.c_str());
  }
  const size_t slash = options.output_dir.find_last_of('/');
  const std::string parent = slash == std::string::npos ? "."
                             : slash == 0               ? "/"
                                                        : options.output_dir.substr(0, slash);
  if (::stat(parent.c_str(), &st) != 0) {
    return base::Status::Errno(errno, "-o %s: its directory %s", options.output_dir.c_str(),
                               parent.c_str());
  }
  if (!S_ISDIR(st.st_mode)) {
    return base::Status::Error("-o %s: %s is not a directory", options.output_dir.c_str(),
                               parent.c_str());
  }
  return base::Status::Ok();
}

int RunRecord(record::SessionOptions options, std::FILE* err) {
  if (base::Status status = ValidateRecordOptions(options); !status.ok()) {
    std::fprintf(err, "jitscope record: error: %s\nRun 'jitscope record --help' for usage.\n",
                 status.message().c_str());
    return 2;
  }
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
  if (!result->stopped_by.empty()) {
    std::fprintf(err, "jitscope record: stopped: %s\n", result->stopped_by.c_str());
  }
  for (const std::string& note : result->notes) {
    std::fprintf(err, "jitscope record: %s\n", note.c_str());
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
