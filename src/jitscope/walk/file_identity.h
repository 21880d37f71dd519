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
//  - A session's archive (`jitscope archive`: <session>/files/<path>, record/archive.h) stands
//    for the other processes' files: a copy there is read in place of the file at its path, this
//    machine's, once its build id is the recorded one. A copy of another build is refused, and
//    said; the file at the path is then checked as it would be without an archive.
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

  // The session directory whose archive (<dir>/files/) stands for the files of the processes in
  // record's root; "" for none.
  void SetArchive(std::string session_directory) { archive_ = std::move(session_directory); }
  const std::string& archive() const { return archive_; }
  // Where separate debug files are looked for (elfutils' debuginfo_path syntax): the file's
  // directory, its .debug/, the archive's usr/lib/debug when there is an archive, /usr/lib/debug.
  std::string DebugPath() const;
  // The archived copies read so far, once each, in the order found.
  const std::vector<std::string>& archived() const { return archived_; }
  // The archived copies refused: another build than the recorded one.
  const std::vector<Replaced>& refused_copies() const { return refused_copies_; }

 private:
  std::map<std::string, std::string> now_;  // file → its build id now
  std::vector<Replaced> replaced_;
  std::set<uint32_t> other_roots_;
  std::map<std::pair<uint32_t, std::string>, std::string> copies_;
  std::vector<std::string> unchecked_;
  // The archive's copy of `mapping`'s file, checked; nullptr when there is none to read.
  const std::string* ArchivedCopyOf(const session::Mapping& mapping);
  // The build id of `file` now, read once.
  const std::string& BuildIdNow(const std::string& file);
  std::string archive_;
  std::map<std::string, std::string> archive_copies_;  // path → its copy, "" when none
  std::vector<std::string> archived_;
  std::vector<Replaced> refused_copies_;
};

// "N native files read from the session's archive (DIR/files), not from this machine", or ""
// when none was: the header line of report and annotate.
std::string DescribeArchiveUse(const FileIdentity& files);
// The warning for an archived copy of another build than the recorded one.
std::string DescribeRefusedCopy(const FileIdentity::Replaced& copy);

}  // namespace jitscope::walk
