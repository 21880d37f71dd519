// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Which file to read for a recording's mapping, and whether it is still the file that was
// mapped: the one place that turns (pid, path) into a file, for symbols, lines and CFI alike.
//  - A process that ran with a root directory of its own (a container's image) names paths of
//    its root: the ELF files of its that record copied into the session (session.json's
//    "elf_copies", session::ElfCopies) are read from their copies.
//  - A mapping whose build id the recording kept (session::Mapping::build_id) is checked against
//    the file's build id now (its NT_GNU_BUILD_ID note, read once per file), a copy's too: a file
//    replaced since (a package upgrade, a rebuilt program, another container image at that path)
//    must not name or unwind the old code, so its frames are left unnamed and the report says
//    why.
//  - A mapping without a recorded build id cannot be checked and is taken as it is, except of a
//    process with a root of its own whose file was not copied: its path may name another file
//    here, so it is not read (reading it through /proc/PID/root at report time would work only
//    while the process lives), and the report says so.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "jitscope/session/perf_record.h"

namespace jitscope::walk {

class FileIdentity {
 public:
  // The file to read for `mapping`'s code (its path, or its copy in the session), or nullptr when
  // none may be read: the recorded build id is not the file's, or the file is a container's, not
  // copied, and has none recorded. The pointer stays valid while `mapping` and this object live.
  const std::string* FileOf(const session::Mapping& mapping);

  struct Replaced {
    std::string path;      // the file read: the mapping's path, or its copy
    std::string recorded;  // the build id the recording saw
    std::string now;       // the file's now, "" when it has none or cannot be read
  };
  // The files found replaced so far, once each, in the order found.
  const std::vector<Replaced>& replaced() const { return replaced_; }

  // The processes whose root directory was not record's (session.json's own_root).
  void SetOtherRoots(std::set<uint32_t> pids) { other_roots_ = std::move(pids); }
  // The copies of their ELF files in the session (session::ElfCopies): (pid, path) → the copy.
  void SetCopies(std::map<std::pair<uint32_t, std::string>, std::string> copies) {
    copies_ = std::move(copies);
  }
  // Their files that were not copied and could not be checked, "PATH (pid PID)", once each, in
  // the order found.
  const std::vector<std::string>& unchecked() const { return unchecked_; }

 private:
  std::map<std::string, std::string> now_;  // file → its build id now
  std::vector<Replaced> replaced_;
  std::set<uint32_t> other_roots_;
  std::map<std::pair<uint32_t, std::string>, std::string> copies_;
  std::vector<std::string> unchecked_;
};

}  // namespace jitscope::walk
