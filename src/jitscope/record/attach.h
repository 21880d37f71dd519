// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What `record -p` learns of a running process: before its events are opened, its
// threads, command line and where its collector writes; after, the records perf record
// synthesizes for what existed before the recording — an MMAP2 for every executable mapping in
// /proc/PID/maps and a COMM for every thread — since the kernel reports only what happens once
// the events exist. They go into the samples file like the kernel's own records (with the
// sample_id_all trailer {pid, tid, time}), so the report reads one kind of record.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/record/container_files.h"
#include "jitscope/record/permission_advice.h"
#include "jitscope/record/proc_files.h"

namespace jitscope::record {

struct AttachTarget {
  pid_t pid = 0;
  std::vector<pid_t> threads;
  std::vector<std::string> command;  // its /proc/PID/cmdline
  // Where its collector writes its trace: JITSCOPE_OUTPUT_DIR from its environment, made absolute
  // with its working directory (the collector's default is "."); "" when its environment does not
  // configure the collector (neither INTEL_JIT_PROFILER64 nor INTEL_LIBITTNOTIFY64 set).
  std::string collector_output_dir;
  // Its pid in its own pid namespace and whether its mounts and root are record's: a path above
  // is one of its mount namespace.
  ProcessNamespaces namespaces;
};

// Reads what is needed before the events are opened. A refusal or a missing process is an error
// whose message says why (ProcRefusal).
base::StatusOr<AttachTarget> InspectProcess(pid_t pid, const PermissionFacts& facts);

// The collector's output directory of an environment block and working directory (see above).
std::string CollectorOutputDir(std::string_view environ, std::string_view working_directory);

// The mappings of process `pid` now (its /proc/PID/maps).
base::StatusOr<std::vector<ProcMapping>> ReadMappings(pid_t pid, const PermissionFacts& facts);

// The records for what process `pid` had before the recording, stamped `time_ns`.
base::StatusOr<std::vector<std::string>> SynthesizeExisting(pid_t pid, uint64_t time_ns,
                                                            const PermissionFacts& facts);

// The COMM records of process `pid`'s threads alone (what SynthesizeExisting ends with): for a
// process whose mappings are not wanted or not readable, such as a kernel thread under record -a.
base::StatusOr<std::vector<std::string>> SynthesizeNames(pid_t pid, uint64_t time_ns,
                                                         const PermissionFacts& facts);

// PERF_RECORD_MMAP2 of an executable mapping (anonymous memory named "//anon", as the kernel
// names it) and PERF_RECORD_COMM, laid out as the kernel writes them.
std::string MakeMmap2Record(uint32_t pid, uint32_t tid, uint64_t time_ns,
                            const ProcMapping& mapping);
std::string MakeCommRecord(uint32_t pid, uint32_t tid, uint64_t time_ns, std::string_view name);

}  // namespace jitscope::record
