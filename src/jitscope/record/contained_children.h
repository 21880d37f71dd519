// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The processes that recorded processes in other namespaces (a container's) start while they are
// recorded, and the jitdumps any of them maps (a container's entry point that
// starts the JIT engine later, a database that forks a backend per connection). Their JIT files
// lie in the same directories as their parent's, named by their own pid in the namespace, and
// would be as lost as the parent's without copies: record follows the records it drains, and
//  - on a FORK of a new process whose parent is followed, reads the child's pid in its namespace
//    (NSpid) at once, while it lives, and follows it with its parent's directories
//    (ContainerFiles::ForChild);
//  - on an MMAP2 of a jitdump (jit-<pid>.dump) by a followed process, opens the dump's directory
//    (ContainerFiles::AddJitdumpDirectory): Node's --perf-prof and LLVM write theirs where they
//    run, not where the parent's were.
// A child that ends before its FORK is drained cannot be followed: its pid in its namespace is
// gone with it. A thread (a FORK within a process) is no new process.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/record/container_files.h"
#include "jitscope/session/perf_record.h"

namespace jitscope::record {

class ContainedChildren {
 public:
  // Follows the processes of `containers` (which must outlive this object: children are added
  // to it), whose records are of `layout`.
  ContainedChildren(std::vector<ContainerFiles>& containers, const session::SampleLayout& layout);

  // Looks at one record drained from the rings.
  void Observe(std::string_view record);

  // The children followed, in the order their FORKs came.
  const std::vector<pid_t>& children() const { return children_; }
  // What could not be followed, and why.
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  void Follow(pid_t child, pid_t parent);

  std::vector<ContainerFiles>& containers_;
  session::SampleLayout layout_;
  std::map<pid_t, size_t> followed_;  // pid → its files in containers_
  std::vector<pid_t> children_;
  std::vector<std::string> problems_;
};

}  // namespace jitscope::record
