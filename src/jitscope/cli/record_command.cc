// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/record_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "jitscope/cli/archive_command.h"
#include "jitscope/formats/output_formats.h"
#include "jitscope/record/code_capture.h"
#include "jitscope/record/install_tree.h"
#include "jitscope/record/jvm_agent.h"
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
  fmt::print(err, "jitscope record: unwound {} samples in {:.2f} s ({}{}{}){}{}{}\n",
             unwound->samples, seconds, ends.empty() ? "none" : ends,
             steps.empty() ? "" : "; steps by rule: ", steps,
             while_recording.unwound == 0
                 ? ""
                 : fmt::format(", {} of them while recording", while_recording.unwound),
             stats.walks_on_captured == 0
                 ? ""
                 : fmt::format("; {} walks rest on code read from the running processes",
                               stats.walks_on_captured),
             unwound->dropped == 0
                 ? ""
                 : fmt::format("; {} samples that did not decode left out", unwound->dropped));
  return unwound->bytes_after;
}

// The pids of the JVMs whose JVM table (jvm-PID.jsm) the agent record gave them wrote into the
// session directory.
std::vector<std::string> JvmsNamedByTheAgent(const std::string& directory) {
  std::vector<std::string> pids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("jvm-") && name.ends_with(".jsm")) {
      pids.push_back(name.substr(4, name.size() - 8));
    }
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

// What reading code from the running processes did (record/code_capture.h), when it read any or
// failed to.
void DescribeCodeRead(const record::CodeCaptureCounts& counts, uint64_t max_mib, std::FILE* err) {
  if (counts.reads > 0) {
    fmt::print(err,
               "jitscope record: read {} pieces of code ({:.1f} KiB) from {} running processes, "
               "where samples landed in code no JIT file holds the bytes of ({} checks found "
               "code as read before)\n",
               counts.reads, static_cast<double>(counts.bytes) / 1024.0, counts.processes,
               counts.unchanged);
  }
  if (counts.over_bound > 0) {
    fmt::print(err,
               "jitscope record: warning: reached --read-code-max ({} MiB) of code read from "
               "running processes: {} more reads were left out, and walks through that code "
               "may stop\n",
               max_mib, counts.over_bound);
  }
  if (counts.failed > 0) {
    fmt::print(err,
               "jitscope record: note: {} reads of code from running processes failed (first: "
               "{}); walks through that code may stop\n",
               counts.failed, counts.first_failure);
  }
}

}  // namespace

base::Status ValidateRecordOptions(const record::SessionOptions& options) {
  if (options.command.empty() && options.attach.empty() && !options.system_wide) {
    return base::Status::Error("nothing to record: give a command after --, -p PID or -a");
  }
  if (options.jvm_perf_map && options.attach.empty() && !options.system_wide) {
    return base::Status::Error(
        "--jvm-perf-map applies to -p or -a: the JVMs record starts get jitscope's JVMTI agent "
        "(JAVA_TOOL_OPTIONS), which names more");
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
  if (status.ok() && command_options.no_jvm_agent && options.jvm_agent) {
    status = base::Status::Error("--jvm-agent and --no-jvm-agent: give one");
  }
  if (status.ok() && command_options.no_jvm_agent &&
      (!options.attach.empty() || options.system_wide)) {
    status = base::Status::Error(
        "--no-jvm-agent applies to a command record starts: with -p or -a, record loads no "
        "agent unless --jvm-agent asks");
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
  // The JVMs the command starts load jitscope's JVMTI agent (JAVA_TOOL_OPTIONS), which reports
  // their compiled code, methods and inline scopes into the session.
  const bool command = options.attach.empty() && !options.system_wide;
  if (command && !command_options.no_jvm_agent) {
    base::StatusOr<std::string> agent = record::FindJvmtiAgent();
    base::StatusOr<std::string> tool_options =
        agent.ok() ? record::JvmAgentToolOptions(
                         *agent, std::filesystem::absolute(options.output_dir).lexically_normal())
                   : agent.status();
    if (tool_options.ok()) {
      options.jvm_tool_options = *tool_options;
    } else if (options.jvm_agent) {
      std::fprintf(err, "jitscope record: error: --jvm-agent: %s\n",
                   tool_options.status().message().c_str());
      return 1;
    }
  }
  // The samples are unwound while the processes run, so their stack copies never pile up on disk
  // (walk/recording_unwinder.h); those of processes in containers wait for the end, when their
  // files are copied into the session.
  auto while_recording = std::make_shared<walk::RecordingUnwinding>();
  const bool dwarf = options.call_graph.mode == record::CallGraph::kDwarf;
  const bool unwinding = dwarf && !command_options.keep_stacks;
  // Code whose bytes no JIT file holds is read from the running processes, in front of what
  // writes or unwinds the records (record/code_capture.h).
  auto read_code = std::make_shared<record::CodeCaptureCounts>();
  const bool reading_code = dwarf && command_options.read_code;
  if (unwinding || reading_code) {
    const uint64_t batch_bytes = walk::RecordingUnwinder::BatchBytesFromEnvironment();
    const uint64_t read_code_max = command_options.read_code_max_mib << 20;
    options.record_sink = [=](const record::RecordSinkSetup& setup)
        -> base::StatusOr<std::unique_ptr<session::RecordSink>> {
      std::unique_ptr<session::RecordSink> sink;
      if (unwinding) {
        ASSIGN_OR_RETURN(sink,
                         walk::RecordingUnwinder::Create(
                             setup.dir, setup.flags, setup.format, batch_bytes, while_recording,
                             std::set<uint32_t>(setup.elsewhere.begin(), setup.elsewhere.end())));
      } else {
        ASSIGN_OR_RETURN(session::SamplesWriter writer,
                         session::SamplesWriter::Create(setup.dir, setup.flags, setup.format));
        sink = std::make_unique<session::SamplesWriter>(std::move(writer));
      }
      if (!reading_code) return sink;
      ASSIGN_OR_RETURN(std::unique_ptr<record::CodeCapture> capture,
                       record::CodeCapture::Create(setup.dir, setup.format, read_code_max,
                                                   std::move(sink), read_code));
      return std::unique_ptr<session::RecordSink>(std::move(capture));
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
  for (const std::string& jvm : options.jvm_tool_options.empty()
                                    ? std::vector<std::string>()
                                    : JvmsNamedByTheAgent(options.output_dir)) {
    std::fprintf(err,
                 "jitscope record: JVM %s was named through jitscope's JVMTI agent, which record "
                 "gave the JVMs it started (JAVA_TOOL_OPTIONS=%s; --no-jvm-agent leaves it out)\n",
                 jvm.c_str(), options.jvm_tool_options.c_str());
  }
  if (!result->kernel_frames) {
    std::fprintf(err,
                 "jitscope record: note: kernel.perf_event_paranoid allows user-space frames "
                 "only\n");
  }
  if (reading_code) DescribeCodeRead(*read_code, command_options.read_code_max_mib, err);
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
