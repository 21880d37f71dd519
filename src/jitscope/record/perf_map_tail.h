// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Follows a running process's perf map (/tmp/perf-<pid>.map) while its engine writes it: which
// address ranges hold the functions it names, as they appear. A perf map has no times, so this
// is how record learns where a function begins and ends before it reads the function's code
// (code_capture.h): Node's --perf-basic-prof, Mono's --jitmap, .NET, CPython's -X perf write a
// line as they make code; HotSpot writes its whole map only when asked (jcmd Compiler.perfmap,
// --jvm-perf-map) or at exit (-XX:+DumpPerfMapAtExit), when it rewrites the file from the start.
//
// The file is the process's, at the path of its own mount namespace and pid namespace: it is
// opened through its root directory as it resolves paths (container_files.h's OpenInRoot), only
// if it is a regular file. Its bytes are hostile: a line that is not "START SIZE NAME" is skipped
// and counted; a line is read once it ends in '\n'.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/formats/eh_frame_ranges.h"

namespace jitscope::record {

class PerfMapTail {
 public:
  // The map of process `pid` (record's pid for it), which calls itself `ns_pid` in its own pid
  // namespace. Opens nothing yet.
  PerfMapTail(pid_t pid, pid_t ns_pid) : pid_(pid), ns_pid_(ns_pid) {}

  // The ranges of the lines written since the last call (all of them after the file was
  // rewritten), in file order. Lines named "Interpreter" (HotSpot's template interpreter, walked
  // by its frame layout, not by rules from its bytes) are left out. Nothing when the file does
  // not exist (yet), or cannot be read.
  std::vector<formats::CodeRange> Poll();

  uint64_t malformed_lines() const { return malformed_lines_; }

 private:
  bool Open();

  pid_t pid_;
  pid_t ns_pid_;
  base::ScopedFd file_;
  uint64_t inode_ = 0;
  uint64_t offset_ = 0;  // where the first line not read yet starts
  uint64_t malformed_lines_ = 0;
};

// The ranges of the whole lines of perf map text `text` (up to its last '\n'), as Poll() gives
// them; `malformed` counts the lines that are not "START SIZE NAME". Sets `consumed` to the bytes
// up to and including the last '\n'.
std::vector<formats::CodeRange> ParsePerfMapLines(std::string_view text, uint64_t& consumed,
                                                  uint64_t& malformed);

}  // namespace jitscope::record
