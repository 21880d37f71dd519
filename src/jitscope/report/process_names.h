// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The command name (COMM) of each recorded process and thread at each time, from the session's
// COMM and FORK records. A process's is the name of its main thread (tid == pid). A thread's is the
// latest COMM of it at or before that time; before its first COMM, a forked child's is its
// parent's as of the fork (the kernel copies the name, and reports a COMM only at an exec or a
// rename): a process's main thread bears its parent process's name, a new thread the name of the
// thread that started it; a thread recorded without its fork (one running before the recording)
// has its first, or with none its process's. The idle task (pid 0, sampled on an idle CPU by a
// system-wide recording) is "swapper", as the kernel and perf name it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "jitscope/session/perf_record.h"

namespace jitscope::report {

class ProcessNames {
 public:
  // Both lists in time order (session::ReadSamplesFile sorts them).
  ProcessNames(const std::vector<session::Comm>& comms, const std::vector<session::Task>& tasks);

  // The name of process `pid` at `time_ns`; "" when no record names it.
  std::string NameAt(uint32_t pid, uint64_t time_ns) const;
  // The name of thread `tid` of process `pid` at `time_ns`; "" when no record names it.
  std::string ThreadNameAt(uint32_t pid, uint32_t tid, uint64_t time_ns) const;

 private:
  using Key = std::pair<uint32_t, uint32_t>;                    // (pid, tid)
  std::map<Key, std::vector<const session::Comm*>> by_thread_;  // in time order
  std::map<Key, std::pair<Key, uint64_t>> parents_;             // → (the parent, fork time)
};

}  // namespace jitscope::report
