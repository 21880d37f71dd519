// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A recording session: the last step of the sampler pipeline (see event_config.h). Runs a command
// with the collector configured, samples it with one inherited per-task perf event and writes the
// session directory:
//
//   <dir>/samples.jss      the samples and mmap/comm/fork/exit records (session/samples_file.h),
//                          written by SessionOptions::record_sink when it is set
//   <dir>/session.json     the command, its pid and the sampling frequency (session/session_info.h)
//   <dir>/vdso.so          the kernel's vDSO image (vdso.h)
//   <dir>/jit-<pid>.jsc …  what the collector writes (JITSCOPE_OUTPUT_DIR=<dir>)
//
// Sequence: fork; the child waits on a pipe; the parent opens the event on the child (disabled,
// enable_on_exec) and maps its ring; it releases the child, which sets up the collector's
// environment and execs the command, which starts the counters. The parent drains the ring until
// the command exits. Single-threaded; signal handlers only forward SIGINT/SIGTERM to the child.
//
// Attached to running processes (`record -p`, attach.h): their /proc files are read (a refusal
// says what is missing), one enabled event is opened per existing thread and CPU (inherit covers
// threads and children created later; the threads are listed again until no new one appears),
// the mappings and thread names that existed before are synthesized into the samples file, and
// a command given after -- runs plainly (neither sampled nor given the collector) to time the
// recording. The ring is drained until every attached process has exited, the command ends, or
// SIGINT/SIGTERM arrives (stop_signals.h). Nothing is written outside the session directory.
//
// A process in other namespaces than record's (a container), under -p or -a: the directories of
// its JIT files are opened when the recording starts and the files copied into the session
// directory when it ends (container_files.h); session.json is written again then, with what was
// copied.
//
// The whole machine (`record -a`): one event per CPU on every process; what every process that
// runs when the recording starts had before is synthesized as for -p (a process that ends
// meanwhile, or whose files this user may not read, is passed over), and the processes running
// with the collector configured are listed in session.json so that their traces are found. The
// recording lasts until SIGINT/SIGTERM or the end of the command after --, which runs plainly.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/record/event_config.h"
#include "jitscope/session/samples_file.h"

namespace jitscope::record {

// What a session's records go to (walk/recording_unwinder.h unwinds them as they come).
struct RecordSinkSetup {
  std::string dir;  // the session directory
  uint64_t flags = 0;
  session::SamplesFormat format;  // of the samples file
  // The processes in other namespaces than record's (-p, -a: containers): their JIT and ELF
  // files are copied into the session when the recording ends (container_files.h), and the
  // paths their records name are not the host's until then.
  std::vector<uint32_t> elsewhere;
};
using RecordSinkFactory =
    std::function<base::StatusOr<std::unique_ptr<session::RecordSink>>(const RecordSinkSetup&)>;

struct SessionOptions {
  std::string output_dir = "jitscope.data";
  uint64_t frequency_hz = 1000;
  CallGraphOptions call_graph;
  bool switch_events = false;    // --switch-events (SamplerOptions::switch_events)
  bool off_cpu = false;          // --off-cpu (SamplerOptions::off_cpu)
  std::string formats;           // JITSCOPE_FORMATS for the collector; empty = its default
  std::string collector_path;    // INTEL_JIT_PROFILER64; empty = do not set it
  std::string collector32_path;  // INTEL_JIT_PROFILER32, for 32-bit processes; empty = do not set
  // The collectors above are also the ITT API's (INTEL_LIBITTNOTIFY64/32), unless false.
  bool itt = true;
  // Preloaded into the command (LD_PRELOAD, before what the environment preloads already):
  // libjitscope-frames.so for --registered-frames; empty = nothing.
  std::string preload_path;
  // Where the records go; unset: the samples file as recorded (session::SamplesWriter).
  RecordSinkFactory record_sink;
  std::vector<std::string> command;  // with `attach`: the command that times the recording
  std::vector<pid_t> attach;         // record -p: running processes to sample
  bool system_wide = false;          // record -a: every process on every CPU
  bool jvm_perf_map = false;         // -p/-a: ask the JVMs for perf maps (jvm_perf_map.h)
  bool jvm_agent = false;            // -p/-a: load the JVMTI agent into the JVMs (jvm_agent.h)
  // The command: what JAVA_TOOL_OPTIONS gives every JVM it starts (JvmAgentToolOptions); empty:
  // nothing.
  std::string jvm_tool_options;
};

struct SessionResult {
  int exit_code = 0;            // the command's, 128 + signal if a signal ended it
  std::string rotated_to;       // where an existing session directory was moved, if any
  base::ScopedFd session_lock;  // held until the session is done with (PrepareSessionDirectory)
  uint64_t records_bytes = 0;   // bytes of perf records written to the samples file
  bool kernel_frames = true;
  base::Status exec_error;         // set when the command could not be started (exit_code 127)
  std::string stopped_by;          // attached: what ended the recording, for the user
  std::vector<std::string> notes;  // what else was done or failed on the way, for the user
};

// The collector installed next to the running executable: <prefix>/bin/jitscope →
// <prefix>/lib/libjitscope-collector.so (the build tree mirrors the install prefix), or with
// `lib_directory` "lib32" the i386 one. Fails if it is not there.
base::StatusOr<std::string> FindCollector(const char* lib_directory = "lib");

base::StatusOr<SessionResult> RunSession(const SessionOptions& options);

}  // namespace jitscope::record
