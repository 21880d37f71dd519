// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/record_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "jitscope/cli/archive_command.h"
#include "jitscope/formats/output_formats.h"
#include "jitscope/record/install_tree.h"
#include "jitscope/record/stop_signals.h"
#include "jitscope/unwind/unwinder.h"
#include "jitscope/walk/recording_unwinder.h"
#include "jitscope/walk/unwound_session.h"

namespace jitscope::cli {
namespace {

// Unwinds a --call-graph dwarf session now that its JIT files are complete, and says how it went,
// with what was unwound while recording (`while_recording`). Returns the size of the samples file
// to tell the user; `recorded` when it stays as it was.
uint64_t UnwindAtEnd(const std::string& directory, uint64_t recorded,
                     const walk::RecordingUnwinding& while_recording, std::FILE* err) {
  const auto start = std::chrono::steady_clock::now();
  fmt::print(err, "jitscope record: unwinding the samples (Ctrl-C leaves that to report)\n");
  std::fflush(err);
  // Ctrl-C or SIGTERM now stops the unwinding, not record: the session is kept as recorded.
  record::StopSignals stop;
  base::StatusOr<walk::SessionUnwinding> unwound =
      walk::UnwindSession(directory, [&stop] { return stop.received() != 0; });
  if (!unwound.ok()) {
    fmt::print(err,
               "jitscope record: warning: the samples were not unwound ({}); the session keeps "
               "their stack copies, which 'jitscope report' unwinds\n",
               unwound.status().message());
    return recorded;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  unwind::UnwindStats stats = unwound->stats;
  for (size_t i = 0; i < unwind::kRuleSourceCount; ++i) {
    stats.steps[i] += while_recording.stats.steps[i];
  }
  const std::string ends = unwind::DescribeCounts(stats.Ends());
  const std::string steps = unwind::DescribeCounts(stats.Steps());
  fmt::print(err, "jitscope record: unwound {} samples in {:.2f} s ({}{}{}){}{}\n",
             unwound->samples, seconds, ends.empty() ? "none" : ends,
             steps.empty() ? "" : "; steps by rule: ", steps,
             while_recording.unwound == 0
                 ? ""
                 : fmt::format(", {} of them while recording", while_recording.unwound),
             unwound->dropped == 0
                 ? ""
                 : fmt::format("; {} samples that did not decode left out", unwound->dropped));
  return unwound->bytes_after;
}

}  // namespace

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

int RunRecord(record::SessionOptions options, const RecordCommandOptions& command_options,
              std::FILE* err) {
  base::Status status = ValidateRecordOptions(options);
  if (status.ok() && command_options.keep_stacks &&
      options.call_graph.mode != record::CallGraph::kDwarf) {
    status = base::Status::Error(
        "--keep-stacks applies to --call-graph dwarf: an fp session "
        "keeps no stack copies");
  }
  if (status.ok() && command_options.registered_frames &&
      (!options.attach.empty() || options.system_wide)) {
    status = base::Status::Error(
        "--registered-frames applies to a command record starts: a running process registered "
        "its tables before the recording");
  }
  if (!status.ok()) {
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
  if (command_options.registered_frames) {
    base::StatusOr<std::string> frames =
        record::FindInstalledLibrary("libjitscope-frames.so", "the frame-registration library");
    if (!frames.ok()) {
      std::fprintf(err, "jitscope record: error: --registered-frames: %s\n",
                   frames.status().message().c_str());
      return 1;
    }
    options.preload_path = *frames;
  }
  // The samples are unwound while the processes run, so their stack copies never pile up on disk
  // (walk/recording_unwinder.h); those of processes in containers wait for the end, when their
  // files are copied into the session.
  auto while_recording = std::make_shared<walk::RecordingUnwinding>();
  const bool unwinding =
      options.call_graph.mode == record::CallGraph::kDwarf && !command_options.keep_stacks;
  if (unwinding) {
    const uint64_t batch_bytes = walk::RecordingUnwinder::BatchBytesFromEnvironment();
    options.record_sink = [while_recording, batch_bytes](const record::RecordSinkSetup& setup)
        -> base::StatusOr<std::unique_ptr<session::RecordSink>> {
      ASSIGN_OR_RETURN(std::unique_ptr<walk::RecordingUnwinder> unwinder,
                       walk::RecordingUnwinder::Create(
                           setup.dir, setup.flags, setup.format, batch_bytes, while_recording,
                           std::set<uint32_t>(setup.elsewhere.begin(), setup.elsewhere.end())));
      return std::unique_ptr<session::RecordSink>(std::move(unwinder));
    };
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
  uint64_t samples_bytes = result->records_bytes;
  if (unwinding)
    samples_bytes = UnwindAtEnd(options.output_dir, samples_bytes, *while_recording, err);
  if (command_options.archive &&
      RunArchive({.session = options.output_dir}, err, "record --archive") != 0) {
    return 1;
  }
  std::fprintf(
      err, "jitscope record: wrote %s (%.1f KiB of samples); view it with 'jitscope report %s'\n",
      options.output_dir.c_str(), static_cast<double>(samples_bytes) / 1024.0,
      options.output_dir.c_str());
  return result->exit_code;
}

}  // namespace jitscope::cli
