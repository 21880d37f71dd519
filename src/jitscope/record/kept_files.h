// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The JIT files the recorded processes wrote outside the session directory, kept in it when the
// recording ends (<session>/files/<path>, session::KeptFileName), so that a session moved or
// copied elsewhere, or whose originals were deleted or overwritten by the next run, reports the
// same:
//  - the jitdumps the processes mapped (a jitdump writer maps its file so that perf finds it):
//    Node's --perf-prof writes jit-<pid>.dump into its working directory, LLVM and oneDNN under
//    $JITDUMPDIR/.debug/jit/<dir>/ (or ~/.debug/jit/);
//  - /tmp/perf-<pid>.map of each process whose trace the session does not hold (V8's
//    --perf-basic-prof, a JVM's map);
//  - the collector's traces (jit-<pid>.jsc and its chain) and the unwind tables
//    libjitscope-frames.so kept (frames-<pid>.jsf) of the processes `record -p` and `-a` attached
//    to, in their own JITSCOPE_OUTPUT_DIR (session.json's "collector_output_dir").
// Each is copied, never hard-linked: the next process with the same pid truncates a jitdump or a
// perf map of the same name, and a link would lose the session's copy with it. The files of
// processes in other namespaces are container_files.h's: their paths name other files here.
// report reads the copies as the session's own files, and a mapped jitdump from its copy rather
// than from where it was (walk/recording.h, FindForeignJitFiles).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jitscope/session/perf_record.h"

namespace jitscope::record {

class JitFileWatch {
 public:
  // For the session in `session_dir`, whose records are of `layout`.
  JitFileWatch(const std::string& session_dir, const session::SampleLayout& layout);

  // Looks at one record of the samples file: its MMAP and MMAP2 records tell the processes and
  // the jitdumps they mapped.
  void Observe(std::string_view record);

  struct Kept {
    std::vector<std::string> files;  // the originals kept, in the order copied
    uint64_t bytes = 0;
    std::vector<std::string> problems;  // a file that could not be kept, and why
  };
  // When the recording ends: copies the jitdumps and perf maps of the processes seen, and their
  // traces in `collector_dirs`, into the session, replacing earlier copies. The processes in
  // `elsewhere` (other namespaces: container_files.h) are left out.
  Kept Keep(const std::vector<std::string>& collector_dirs,
            const std::set<uint32_t>& elsewhere) const;

 private:
  std::string session_;  // its real path
  session::SampleLayout layout_;
  std::set<uint32_t> pids_;
  std::set<std::pair<uint32_t, std::string>> jitdumps_;  // (pid, path)
};

}  // namespace jitscope::record
