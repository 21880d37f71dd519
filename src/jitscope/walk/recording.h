// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Opens a recording: a session directory `jitscope record` wrote, or a perf.data file `perf
// record` wrote (session/perf_data_reader.h), whose records become the same samples. Beside the
// samples it reads what the session says of itself (session.json: the command, the processes,
// where their collectors write, which ran in other namespaces) and finds the JIT files that
// describe the recording's processes: the collector's, in the session directory or, for a
// perf.data, the jit-<pid>.jsc traces of its processes beside it; those other JIT engines wrote
// elsewhere (FindForeignJitFiles); those record -p's processes wrote into their own directories
// (FindAttachedTraces). What the reading noticed is kept as warnings, for the report.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "jitscope/base/files.h"
#include "jitscope/base/status.h"
#include "jitscope/session/perf_record.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/session/session_info.h"
#include "jitscope/symbolize/source_set.h"
#include "jitscope/trace/event.h"
#include "jitscope/walk/file_identity.h"

namespace jitscope::walk {

// A recording's samples and what its reader learned beside them: what report's BuildProfile
// reads, and annotate, and the unwinding of a session while and after it is recorded.
struct Recording {
  session::SampleData data;
  std::string session_directory;  // "" for a perf.data
  std::string beside;             // a perf.data's directory, where the collector may have written
  std::string vdso_path;          // the vDSO image to unwind through, "" if none
  std::string program;            // the recorded command's first word, if known
  std::vector<std::string> collector_dirs;  // record -p: where the processes' collectors write
  // Processes in other namespaces than record's (a container; record/container_files.h): their
  // JIT files are the copies record kept, in these directories of the session (each its pid's),
  // never files at their paths here.
  std::map<std::string, uint32_t> copies_of;
  std::set<uint32_t> elsewhere;
  // Of those, the ones whose root directory was another: their native files' paths may name
  // other files here, which only a build id can rule out (file_identity.h), and the copies of
  // their ELF files record kept: (pid, path) → the copy (session::ElfCopies).
  std::set<uint32_t> other_roots;
  std::map<std::pair<uint32_t, std::string>, std::string> elf_copies;
  // The samples' times are not CLOCK_MONOTONIC (perf record without -k 1): JIT code is named by
  // the latest code loaded at its address.
  bool latest_code = false;
  // How its JIT files are read: copied while their writers may still run (record's unwinding
  // while it records), mapped otherwise.
  symbolize::FileHolding jit_files = symbolize::FileHolding::kMapped;
  // The memory those copies are read into, kept by a reader that reads them again and again
  // (record's, at every batch); nullptr: fresh memory for each.
  base::CopyBuffers* copy_buffers = nullptr;
  // The recording was made of processes rather than of one command (record -a, record -p of
  // several, perf record -a or -p of several): its processes are kept apart. The processes a
  // command starts (or a sanitizer's helper process) are its own, and are not.
  bool of_processes = false;
  std::string command;         // what was recorded, for titles ("" when unknown)
  uint64_t start_time_ns = 0;  // when the recording began (session.json), 0 when unknown
  // How the recording ended (session.json; a perf.data's is not known, and taken as ended).
  session::RecordingEnd end = session::RecordingEnd::kEnded;
  uint64_t sample_period_ns = 0;  // nominal time one sample stands for (1e9 / frequency)
  // Non-fatal things the reading noticed (lost samples, damaged files, ...), one line each.
  std::vector<std::string> warnings;
  // The jitdumps its processes mapped that are neither where they were nor kept in the session
  // (OpenRecordingJitSources): why their code is unnamed.
  std::vector<std::string> missing_jit_files;
};
// Tells `files` of the recording's processes with a root directory of their own and of the
// copies of their ELF files, and of the session's archive, so they are read as report reads them.
void DescribeSessionFiles(const Recording& recording, FileIdentity& files);
// Reads a session directory or a perf.data file, as BuildProfile does.
base::StatusOr<Recording> ReadRecording(const std::string& input);
// Fills in, as ReadRecording does, what the session in `recording.session_directory` says of
// itself besides its samples: its vDSO, and from session.json its command, processes, where
// their collectors write and which of them ran in other namespaces (a session.json that cannot
// be read is a warning).
void ReadSessionDescription(Recording& recording);
// The JIT files of the recording's processes (OpenJitSources over the session directory, or the
// collector traces beside a perf.data, whole chains included, and `extra_paths`), with the
// execs the recording saw (each ends its process's JIT code); what the reading noticed is added to
// recording.warnings.
base::StatusOr<symbolize::SourceSet> OpenRecordingJitSources(
    Recording& recording, const std::vector<std::string>& extra_paths);

// The JIT files that describe a recording's processes: `own_paths` (the session directory, the
// traces beside a perf.data, --jit paths), the foreign ones FindForeignJitFiles finds for
// `data`'s processes and the traces FindAttachedTraces finds in `recording.collector_dirs`
// (record -p), the copies of processes in other namespaces counted as theirs. What the reading
// noticed (damaged files, a foreign file that cannot be read, events the collector refused) is
// added to `warnings`; `missing`, if given, gets the jitdumps the processes mapped that are
// neither where they were nor kept in the session.
base::StatusOr<symbolize::SourceSet> OpenJitSources(const std::vector<std::string>& own_paths,
                                                    const Recording& recording,
                                                    std::vector<std::string>& warnings,
                                                    std::vector<std::string>* missing = nullptr);

// JIT files other engines wrote outside the session directory that describe its processes: a
// `jit-<pid>.dump` the session's MMAP records show mapped (a jitdump writer maps its file so that
// perf finds it; Node.js --perf-prof and LLVM's perf listener do), and `/tmp/perf-<pid>.map` for
// a process no other file describes. Only files that still exist, and with a session directory
// (not "", as for a perf.data) none inside it, nor one the session kept a copy of when its
// recording ended (session::KeptFileName: the copy is read as the session's own). None for the
// processes in `elsewhere`, which ran in other namespaces: their paths and pids name other files
// here (record kept copies of theirs). `missing`, if given, gets the mapped jitdumps that are
// neither where they were nor kept.
std::vector<std::string> FindForeignJitFiles(const std::string& session_directory,
                                             const std::vector<session::Mapping>& mappings,
                                             const std::vector<uint32_t>& pids_without_files,
                                             const std::set<uint32_t>& elsewhere = {},
                                             std::vector<std::string>* missing = nullptr);

// The collector's traces of processes `record -p` attached to, which they wrote into their own
// JITSCOPE_OUTPUT_DIR (session.json's "collector_output_dir", never searched below): the
// `jit-<pid>.jsc` and `jit-<pid>.<n>.jsc` there of every pid in `pids` (the attached processes
// and the children they started while recorded), and the unwind tables libjitscope-frames.so
// kept beside them (`frames-<pid>.jsf`, `frames-<pid>.<n>.jsf`): beside a perf.data, of a
// command perf recorded with the library preloaded.
std::vector<std::string> FindAttachedTraces(const std::vector<std::string>& collector_dirs,
                                            const std::vector<uint32_t>& pids);

// "the collector refused 3 events the JIT reported (null_name: 2, zero_size: 1); 'jitscope
// dump' lists them", or "" when there were none.
std::string DescribeRejectedEvents(const std::map<trace::RejectReason, uint64_t>& rejected);

}  // namespace jitscope::walk
