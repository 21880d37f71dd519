// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Whether the files a recording's mappings name are still the files that were mapped. A mapping
// whose build id the recording kept (formats::Mapping::build_id) is checked against the file's
// build id now (its NT_GNU_BUILD_ID note, read once per path): a file replaced since (a package
// upgrade, a rebuilt program, another container image at that path) must not name or unwind the
// old code, so its frames are left unnamed and the report says why. A mapping without a recorded
// build id cannot be checked and is taken as it is, except of a process that ran with a root
// directory of its own (a container's): its paths may name other files here, so its mappings
// without a build id are not read (record does not copy a container's ELF files; reading them
// through /proc/PID/root at report time would work only while it lives).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "jitscope/formats/perf_record.h"

namespace jitscope::report {

class FileIdentity {
 public:
  // True when `mapping`'s file may be read for its code: no build id was recorded, or the file's
  // is the one recorded.
  bool Unchanged(const formats::Mapping& mapping);

  struct Replaced {
    std::string path;
    std::string recorded;  // the build id the recording saw
    std::string now;       // the file's now, "" when it has none or cannot be read
  };
  // The files found replaced so far, once each, in the order found.
  const std::vector<Replaced>& replaced() const { return replaced_; }

  // The processes whose root directory was not record's (session.json's own_root).
  void SetOtherRoots(std::set<uint32_t> pids) { other_roots_ = std::move(pids); }
  // Their files that could not be checked, "PATH (pid PID)", once each, in the order found.
  const std::vector<std::string>& unchecked() const { return unchecked_; }

 private:
  std::map<std::string, std::string> now_;  // path → its build id now
  std::vector<Replaced> replaced_;
  std::set<uint32_t> other_roots_;
  std::vector<std::string> unchecked_;
};

// The build id of the ELF file at `path` (lowercase hex), or "" when it has none or is not
// readable as ELF.
std::string BuildIdOfFile(const std::string& path);

}  // namespace jitscope::report
