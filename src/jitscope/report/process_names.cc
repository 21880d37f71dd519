// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/process_names.h"

#include <algorithm>

namespace jitscope::report {

ProcessNames::ProcessNames(const std::vector<session::Comm>& comms,
                           const std::vector<session::Task>& tasks) {
  for (const session::Comm& comm : comms) {
    if (comm.pid == comm.tid) by_pid_[comm.pid].push_back(&comm);
  }
  for (const session::Task& task : tasks) {
    // A new process (not a thread): a fork whose child is its own main thread.
    if (!task.exit && task.pid == task.tid && task.pid != task.ppid) {
      parents_.try_emplace(task.pid, task.ppid, task.time_ns);
    }
  }
}

std::string ProcessNames::NameAt(uint32_t pid, uint64_t time_ns) const {
  // A chain of forks is followed a bounded number of steps: the records are hostile input, and
  // may make a loop of parents.
  for (int depth = 0; depth < 64; ++depth) {
    auto parent = parents_.find(pid);
    if (auto it = by_pid_.find(pid); it != by_pid_.end()) {
      const std::vector<const session::Comm*>& names = it->second;
      auto after =
          std::upper_bound(names.begin(), names.end(), time_ns,
                           [](uint64_t t, const session::Comm* c) { return t < c->time_ns; });
      if (after != names.begin()) return (*std::prev(after))->name;
      // Before its first name: a forked child still bears its parent's; otherwise the first.
      if (parent == parents_.end() || time_ns < parent->second.second) return names.front()->name;
    }
    // The idle task has no COMM of its own; perf calls it "swapper" (what the kernel names it).
    if (parent == parents_.end()) return pid == 0 ? "swapper" : "";
    pid = parent->second.first;
    time_ns = parent->second.second;
  }
  return "";
}

}  // namespace jitscope::report
