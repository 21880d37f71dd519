// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Turns a recording into a Profile (profile.h): a session directory `jitscope record` wrote, or a
// perf.data file `perf record` wrote (session/perf_data_reader.h), whose records become the same
// samples. Reads the samples, builds a time-versioned symbol index per process from the JIT files
// (the collector's, in the session directory or, for a perf.data, the jit-<pid>.jsc traces of
// its processes beside it; those other JIT engines wrote elsewhere — see FindForeignJitFiles —
// and those BuildOptions::jit_sources names), and resolves every frame of every call chain:
//  - JIT code through the index at the sample's time, with its inline frames, so code replaced
//    at a reused address is named after what was there when the sample was taken;
//  - code of mapped ELF files through NativeSymbolizer (symbols, DWARF lines, inline frames);
//  - kernel frames as one "[kernel]" frame per run of them;
//  - memory no file backs ("//anon", "[anon:NAME]", "memfd:...", "[heap]", ...) as
//    "[anonymous]" in that mapping, never as a file to read symbols from;
//  - code of a mapped file without a symbol there as "FILE+0xOFFSET" (its file offset);
//  - an address in no mapping at all as "[unknown]".
// A perf.data recorded without `-k 1` has times of perf's own clock, which JIT files do not use:
// its JIT code is named by the latest code loaded at the address, and the profile says so.
// Each sample's stack comes from SampleWalker (sample_walker.h): the kernel's call chain, or for
// a --call-graph dwarf recording the user stack unwound from its registers and stack copy, with
// the walks' ends counted in Profile::unwind_stops; return addresses are looked up one byte back.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/report/file_identity.h"
#include "jitscope/report/profile.h"
#include "jitscope/session/perf_record.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/symbolize/source_set.h"

namespace jitscope::report {

struct BuildOptions {
  bool inline_frames = true;  // false: drop inline frames, keep the function that holds the code
  // Called now and then with (samples done, samples in all); may be empty.
  std::function<void(uint64_t, uint64_t)> progress;
  // More JIT files, or directories to search for them (collector traces, jitdumps, perf maps).
  std::vector<std::string> jit_sources;
  // Only the samples of these processes (by pid), and of processes with these command names
  // (their main thread's COMM at the sample's time); empty: every process.
  std::vector<uint32_t> pids;
  std::vector<std::string> comms;
  // In a recording made of several processes (Recording::of_processes) whose samples of several
  // remain, each stack's outermost frame is its process ("COMM (pid PID)", FrameKind::kProcess),
  // so each process is a tree of its own.
  bool process_roots = true;
};

// `input`: a session directory, or a perf.data file (session::LooksLikePerfData).
base::StatusOr<Profile> BuildProfile(const std::string& input, const BuildOptions& options);

// A recording's samples and what its reader learned beside them: what BuildProfile reads, for the
// commands that use the samples otherwise (annotate).
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
  // The recording was made of processes rather than of one command (record -a, record -p of
  // several, perf record -a or -p of several): its processes are kept apart. The processes a
  // command starts (or a sanitizer's helper process) are its own, and are not.
  bool of_processes = false;
  Profile profile;  // command, sample period and warnings so far
};
// Tells `files` of the recording's processes with a root directory of their own and of the
// copies of their ELF files, so they are read as report reads them.
void DescribeOtherRoots(const Recording& recording, FileIdentity& files);
// Reads a session directory or a perf.data file, as BuildProfile does.
base::StatusOr<Recording> ReadRecording(const std::string& input);
// Fills in, as ReadRecording does, what the session in `recording.session_directory` says of
// itself besides its samples: its vDSO, and from session.json its command, processes, where
// their collectors write and which of them ran in other namespaces (a session.json that cannot
// be read is a warning).
void ReadSessionDescription(Recording& recording);
// The JIT files of the recording's processes (OpenJitSources over the session directory, or the
// collector traces beside a perf.data, whole chains included, and `extra_paths`); what the reading
// noticed is added to recording.profile.warnings.
base::StatusOr<symbolize::SourceSet> OpenRecordingJitSources(
    Recording& recording, const std::vector<std::string>& extra_paths);

// The JIT files that describe a recording's processes: `own_paths` (the session directory, the
// traces beside a perf.data, --jit paths), the foreign ones FindForeignJitFiles finds for
// `data`'s processes and the traces FindAttachedTraces finds in `recording.collector_dirs`
// (record -p), the copies of processes in other namespaces counted as theirs. What the reading
// noticed (damaged files, a foreign file that cannot be read, events the collector refused) is
// added to `warnings`.
base::StatusOr<symbolize::SourceSet> OpenJitSources(const std::vector<std::string>& own_paths,
                                                    const Recording& recording,
                                                    std::vector<std::string>& warnings);

// JIT files other engines wrote outside the session directory that describe its processes: a
// `jit-<pid>.dump` the session's MMAP records show mapped (a jitdump writer maps its file so that
// perf finds it; Node.js --perf-prof and LLVM's perf listener do), and `/tmp/perf-<pid>.map` for
// a process no other file describes. Only files that still exist, and with a session directory
// (not "", as for a perf.data) none inside it. None for the processes in `elsewhere`, which ran in
// other namespaces: their paths and pids name other files here (record kept copies of theirs).
std::vector<std::string> FindForeignJitFiles(const std::string& session_directory,
                                             const std::vector<session::Mapping>& mappings,
                                             const std::vector<uint32_t>& pids_without_files,
                                             const std::set<uint32_t>& elsewhere = {});

// The collector's traces of processes `record -p` attached to, which they wrote into their own
// JITSCOPE_OUTPUT_DIR (session.json's "collector_output_dir", never searched below): the
// `jit-<pid>.jsc` and `jit-<pid>.<n>.jsc` there of every pid in `pids` (the attached processes
// and the children they started while recorded), and the unwind tables libjitscope-frames.so
// kept beside them (`frames-<pid>.jsf`, `frames-<pid>.<n>.jsf`): beside a perf.data, of a
// command perf recorded with the library preloaded.
std::vector<std::string> FindAttachedTraces(const std::vector<std::string>& collector_dirs,
                                            const std::vector<uint32_t>& pids);

}  // namespace jitscope::report
