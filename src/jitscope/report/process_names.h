// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The command name (COMM) of each recorded process at each time, from the session's COMM and FORK
// records: the name of its main thread (tid == pid) as of that time, the latest COMM at or before
// it; before its first COMM, a forked child's is its parent's as of the fork (the kernel copies
// it, and reports a COMM only at an exec or a rename), and a process recorded without its fork
// (one running before the recording) has its first. The idle task (pid 0, sampled on an idle CPU
// by a system-wide recording) is "swapper", as the kernel and perf name it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "jitscope/session/perf_record.h"

namespace jitscope::report {

class ProcessNames {
 public:
  // Both lists in time order (session::ReadSamplesFile sorts them).
  ProcessNames(const std::vector<session::Comm>& comms, const std::vector<session::Task>& tasks);

  // The name of process `pid` at `time_ns`; "" when no record names it.
  std::string NameAt(uint32_t pid, uint64_t time_ns) const;

 private:
  std::map<uint32_t, std::vector<const session::Comm*>> by_pid_;  // main threads', in time order
  std::map<uint32_t, std::pair<uint32_t, uint64_t>> parents_;     // pid → (parent, fork time)
};

}  // namespace jitscope::report
