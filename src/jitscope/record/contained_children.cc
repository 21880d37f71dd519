// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/contained_children.h"

#include <linux/perf_event.h>

#include <cstring>
#include <utility>
#include <variant>

#include "jitscope/formats/pid_file_name.h"

namespace jitscope::record {

ContainedChildren::ContainedChildren(std::vector<ContainerFiles>& containers,
                                     const session::SampleLayout& layout)
    : containers_(containers), layout_(layout) {
  for (size_t i = 0; i < containers_.size(); ++i) followed_.emplace(containers_[i].pid(), i);
}

void ContainedChildren::Observe(std::string_view record) {
  if (followed_.empty() || record.size() < sizeof(perf_event_header)) return;
  perf_event_header header{};
  std::memcpy(&header, record.data(), sizeof(header));
  if (header.type != PERF_RECORD_FORK && header.type != PERF_RECORD_MMAP2) return;
  base::StatusOr<session::PerfRecord> parsed = session::ParsePerfRecord(record, layout_);
  if (!parsed.ok()) return;
  if (const auto* task = std::get_if<session::Task>(&*parsed)) {
    // A new process: its first thread's id is its pid. Another thread of a process is not one.
    if (task->pid != task->tid || task->pid == task->ppid) return;
    if (followed_.contains(static_cast<pid_t>(task->pid))) return;
    if (followed_.contains(static_cast<pid_t>(task->ppid))) {
      Follow(static_cast<pid_t>(task->pid), static_cast<pid_t>(task->ppid));
    }
    return;
  }
  const auto* mapping = std::get_if<session::Mapping>(&*parsed);
  if (mapping == nullptr) return;
  auto it = followed_.find(static_cast<pid_t>(mapping->pid));
  if (it == followed_.end()) return;
  ContainerFiles& files = containers_[it->second];
  const std::string& path = mapping->filename;
  const std::string name = path.substr(path.rfind('/') + 1);
  if (name !=
      formats::PidFileName("jit-", static_cast<uint32_t>(files.namespaces().ns_pid), ".dump")) {
    return;
  }
  files.AddJitdumpDirectory(path);
}

void ContainedChildren::Follow(pid_t child, pid_t parent) {
  const std::string who = "process " + std::to_string(child) + ", started by " +
                          std::to_string(parent) + " while recorded";
  // Read now: once the child has ended, its pid in its namespace is not to be found.
  base::StatusOr<ProcessNamespaces> namespaces = ReadNamespaces(child);
  if (!namespaces.ok()) {
    problems_.push_back(who + ": " + namespaces.status().message());
    return;
  }
  base::StatusOr<ContainerFiles> files =
      containers_[followed_.at(parent)].ForChild(child, *namespaces);
  if (!files.ok()) {
    problems_.push_back(who + ": " + files.status().message());
    return;
  }
  followed_.emplace(child, containers_.size());
  containers_.push_back(std::move(*files));
  children_.push_back(child);
}

}  // namespace jitscope::record
