// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope archive [SESSION]` and `jitscope record --archive`: the ELF files the session's
// samples touched (touched_files.h: its programs and libraries; the vDSO's image is in every
// session already, vdso.so) copied into the session, each at its own path
// (<session>/files/<path>, session::KeptFileName), with the separate debug file each names: the
// session then reports the same on another machine, after a package upgrade, or once its program
// was rebuilt or deleted (walk/file_identity.h reads the copies first). perf archive does this for
// perf users; a session reads its archive by itself.
//  - Each file is checked by build id: one whose build id now is not the one the recording saw
//    (the kernel's MMAP2 records carry it) is refused, and said: its copy would name other code.
//    One the recording has no build id for (a mapping `record -p` read from /proc) is archived as
//    it is now, and said to be unchecked.
//  - A copy already in the session with the recorded build id stays: archiving twice adds
//    nothing. One with another build id is replaced, when the file still is the recorded one.
//  - The separate debug file: the one its .gnu_debuglink names (beside it, in its .debug/ or under
//    /usr/lib/debug/ at its directory's path), else /usr/lib/debug/.build-id/xx/yyyy.debug; kept
//    at its own path, where the readers find it from the copy as they would from the original.
//  - A process with a root directory of its own (a container) had the ELF files its samples
//    touched copied when the recording ended (container_files.h): those copies serve as its
//    archive, checked by build id the same way. Its paths name nothing here, so nothing more is
//    copied for it.
//  - Compact (ArchiveOptions::compact): of each file, and of its debug file, only what naming the
//    session's frames and walking its stacks read is kept (compact_copy.h): a library of 40 MB
//    takes a few KB, and the archive serves this session only, without source lines or
//    disassembly of native code.
// Nothing is written outside the session. A session that cannot be written fails with the reason
// and keeps what it had: every copy is whole or absent (file_copies.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/record/compact_copy.h"

namespace jitscope::record {

struct ArchiveResult {
  struct File {
    std::string path;  // on the recording machine (a container's: in its root)
    std::string copy;  // relative to the session directory
    uint64_t bytes = 0;
    bool added = false;      // copied now (not there before)
    bool unchecked = false;  // the recording has no build id for it
  };
  std::vector<File> files;           // every file of the archive, debug files included
  uint64_t bytes_added = 0;          // of the files copied now
  std::vector<std::string> refused;  // "PATH: why", a file not archived
  std::vector<std::string> touched;  // every file the samples touched, sorted
};

struct ArchiveOptions {
  bool compact = false;
  // Compact: what the session reads of each file (walk/walked_code.h), by its path as recorded.
  std::map<std::string, SessionParts> parts = {};
};

// Archives session `session_dir` (a directory `jitscope record` wrote).
base::StatusOr<ArchiveResult> ArchiveSession(const std::string& session_dir,
                                             const ArchiveOptions& options = {});

// What archiving did, for the user: one line per kind of outcome ("" when `result` holds nothing
// to say: a session without samples in any file).
std::vector<std::string> DescribeArchive(const std::string& session_dir,
                                         const ArchiveResult& result);

}  // namespace jitscope::record
