// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The process-wide state behind libopagent's seven functions: the handle table and the current
// session. exports.cc holds one Agent and turns its results into the C ABI (return value and
// errno); tests drive an Agent directly with a fixed environment.
//
// Lifecycle: the first op_open_agent creates a session (the dump and the collector's outputs);
// more handles join it (two engines in one process write one consistent set of files); the last
// op_close_agent ends it, closing every file. A later op_open_agent starts a new session.
//
// Threading: every call takes one mutex for its whole duration. libopagent's guide promises
// thread-safety (OProfile's guide §2), the dump is one sequential file, and JIT engines report code
// at compilation rate, not per instruction, so one lock costs nothing measurable and makes every
// call atomic: a call racing op_close_agent on the same handle either completes before the close
// or fails with EINVAL, never touches freed state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "jitscope/opagent/handle_table.h"
#include "jitscope/opagent/session.h"
#include "opagent.h"

namespace jitscope::opagent {

class Agent {
 public:
  explicit Agent(const AgentEnvironment& environment) : environment_(environment) {}

  // Each returns 0 or an errno value; Open stores the new handle's token in *handle.
  int Open(uintptr_t* handle);
  int Close(uintptr_t handle);
  int WriteNativeCode(uintptr_t handle, const char* name, uint64_t vma, const void* code,
                      unsigned int size);
  int WriteDebugLineInfo(uintptr_t handle, const void* code, size_t count,
                         const struct debug_line_info* map);
  int UnloadNativeCode(uintptr_t handle, uint64_t vma);

  // fork() support: PrepareFork/ResumeParent bracket fork() in the parent; StartChild runs in the
  // child, which must never write into its parent's files (the trace's mappings are not even
  // inherited, see TraceWriter::AddSegment): every handle becomes invalid and the inherited
  // session is abandoned, intentionally leaked rather than destroyed.
  void PrepareFork() { mutex_.lock(); }
  void ResumeParent() { mutex_.unlock(); }
  void StartChild();

  // At process exit: lets the current session's sinks finish their files. Skipped if another
  // thread is inside a call (it may never return while the process exits).
  void AtExit();

  // Calls that named no open handle (counted even when no session exists to record them).
  uint64_t invalid_handles() const;
  // The current session, for tests; nullptr between sessions.
  const Session* session() const { return session_.get(); }

 private:
  // Looks `handle` up; on failure counts it, records it in the session if there is one, and
  // returns nullopt.
  std::optional<uint32_t> Validate(uintptr_t handle, uint32_t call);

  const AgentEnvironment environment_;
  mutable std::mutex mutex_;
  HandleTable handles_;
  std::unique_ptr<Session> session_;
  uint32_t next_agent_ = 1;
  uint64_t invalid_handles_ = 0;
};

}  // namespace jitscope::opagent
