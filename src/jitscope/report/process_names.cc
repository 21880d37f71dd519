// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/process_names.h"

#include <algorithm>

namespace jitscope::report {

ProcessNames::ProcessNames(const std::vector<session::Comm>& comms,
                           const std::vector<session::Task>& tasks) {
  for (const session::Comm& comm : comms) by_thread_[{comm.pid, comm.tid}].push_back(&comm);
  for (const session::Task& task : tasks) {
    if (task.exit) continue;
    if (task.pid == task.tid && task.pid != task.ppid) {
      // A new process: its main thread bears, until it is renamed, the name of the process that
      // forked it, which is its main thread's.
      parents_.try_emplace({task.pid, task.tid}, Key{task.ppid, task.ppid}, task.time_ns);
    } else if (task.pid == task.ppid && task.tid != task.pid) {
      // A new thread of the process: it bears the name of the thread that started it.
      parents_.try_emplace({task.pid, task.tid}, Key{task.pid, task.ptid}, task.time_ns);
    }
  }
}

std::string ProcessNames::NameAt(uint32_t pid, uint64_t time_ns) const {
  return ThreadNameAt(pid, pid, time_ns);
}

std::string ProcessNames::ThreadNameAt(uint32_t pid, uint32_t tid, uint64_t time_ns) const {
  Key key{pid, tid};
  // A chain of forks is followed a bounded number of steps: the records are hostile input, and
  // may make a loop of parents.
  for (int depth = 0; depth < 64; ++depth) {
    auto parent = parents_.find(key);
    if (auto it = by_thread_.find(key); it != by_thread_.end()) {
      const std::vector<const session::Comm*>& names = it->second;
      auto after =
          std::upper_bound(names.begin(), names.end(), time_ns,
                           [](uint64_t t, const session::Comm* c) { return t < c->time_ns; });
      if (after != names.begin()) return (*std::prev(after))->name;
      // Before its first name: a forked child still bears its parent's; otherwise the first.
      if (parent == parents_.end() || time_ns < parent->second.second) return names.front()->name;
    }
    if (parent == parents_.end()) {
      // The idle task has no COMM of its own; perf calls it "swapper" (what the kernel names
      // it). A thread recorded without a name or a start (one running before the recording, in
      // a recording that saw no rename of it) is known by its process's name.
      if (key.first == 0) return "swapper";
      if (key.second != key.first) {
        key = {key.first, key.first};
        continue;
      }
      return "";
    }
    key = parent->second.first;
    time_ns = parent->second.second;
  }
  return "";
}

}  // namespace jitscope::report
