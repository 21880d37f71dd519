// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/opagent/agent.h"

#include <cerrno>

namespace jitscope::opagent {

std::optional<uint32_t> Agent::Validate(uintptr_t handle, uint32_t call) {
  if (auto agent = handles_.Find(handle)) return agent;
  ++invalid_handles_;
  if (session_) session_->Refuse(call, trace::RejectReason::kInvalidHandle);
  return std::nullopt;
}

uint64_t Agent::invalid_handles() const {
  std::lock_guard lock(mutex_);
  return invalid_handles_;
}

int Agent::Open(uintptr_t* handle) {
  std::lock_guard lock(mutex_);
  if (handles_.open_count() == HandleTable::kSlots) return EMFILE;
  if (!session_) {
    auto session = Session::Create(environment_);
    if (!session.ok()) {
      collector::Log().Printf("op_open_agent: %s", session.status().message().c_str());
      return session.status().errno_value() != 0 ? session.status().errno_value() : EIO;
    }
    session_ = std::move(session).value();
  }
  const uint32_t agent = next_agent_++;
  const std::optional<uintptr_t> token = handles_.Open(agent);  // a slot is free: checked above
  if (const int error = session_->OpenAgent(agent); error != 0) {
    handles_.Close(*token);
    if (handles_.open_count() == 0) session_.reset();
    return error;
  }
  *handle = *token;
  return 0;
}

int Agent::Close(uintptr_t handle) {
  std::lock_guard lock(mutex_);
  const auto agent = Validate(handle, trace::kCallOpCloseAgent);
  if (!agent) return EINVAL;
  handles_.Close(handle);
  // The handle is released even if its close record cannot be written: the caller cannot retry
  // a close, and the guide's close "frees all resources" either way.
  const int error = session_->CloseAgent(*agent);
  if (handles_.open_count() == 0) session_.reset();
  return error;
}

int Agent::WriteNativeCode(uintptr_t handle, const char* name, uint64_t vma, const void* code,
                           unsigned int size) {
  std::lock_guard lock(mutex_);
  const auto agent = Validate(handle, trace::kCallOpWriteNativeCode);
  if (!agent) return EINVAL;
  return session_->WriteNativeCode(*agent, name, vma, code, size);
}

int Agent::WriteDebugLineInfo(uintptr_t handle, const void* code, size_t count,
                              const struct debug_line_info* map) {
  std::lock_guard lock(mutex_);
  const auto agent = Validate(handle, trace::kCallOpWriteDebugLineInfo);
  if (!agent) return EINVAL;
  return session_->WriteDebugLineInfo(*agent, code, count, map);
}

int Agent::UnloadNativeCode(uintptr_t handle, uint64_t vma) {
  std::lock_guard lock(mutex_);
  const auto agent = Validate(handle, trace::kCallOpUnloadNativeCode);
  if (!agent) return EINVAL;
  return session_->UnloadNativeCode(*agent, vma);
}

void Agent::AtExit() {
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (lock.owns_lock() && session_) session_->FinishOutputs();
}

void Agent::StartChild() {
  handles_.CloseAll();
  (void)session_.release();  // intentionally leaked: its files and mappings are the parent's
  mutex_.unlock();
}

}  // namespace jitscope::opagent
