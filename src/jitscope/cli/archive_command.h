// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope archive [SESSION]`: keeps in a session the ELF files its samples touched, checked by
// build id, so it reports the same on another machine, after an upgrade or once its program is
// gone (record/archive.h). `jitscope record --archive` does the same when its recording ends.
#pragma once

#include <cstdio>
#include <string>

namespace jitscope::cli {

struct ArchiveOptions {
  std::string session = "jitscope.data";
  // Of each file only what naming and walking read (record/archive.h): for sessions to keep
  // where space counts, such as a repository's.
  bool compact = false;
};

// Archives `session`, saying what it did on `err` ("jitscope archive: ..." lines, prefixed with
// `who`). Returns the exit code: 0, or 1 when the session cannot be read or written (what it held
// stays).
int RunArchive(const ArchiveOptions& options, std::FILE* err, const char* who = "archive");

}  // namespace jitscope::cli
