// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libopagent.so.1: the seven functions of OProfile's opagent.h (OProfile's guide chapter 2;
// OProfile's libopagent), exported under OProfile's version node OPAGENT_1.0 (opagent.map) and
// nothing else.
//
// Results follow the guide: 0, or -1 with errno; NULL with errno from op_open_agent. errno is left
// alone on success. Nothing throws across the C ABI: an allocation failure becomes ENOMEM.
//
// Process lifetime: the Agent is created on first use and intentionally never destroyed: host
// threads (a JVM's compiler threads) may still report code while the process exits.
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <new>

#include "jitscope/base/reentry_guard.h"
#include "jitscope/base/thread_local.h"
#include "jitscope/opagent/agent.h"
#include "opagent.h"

namespace jitscope::opagent {
namespace {

// A thread that re-enters the library from inside one of its own calls (a signal handler, which
// the guide forbids, or a hook in an allocator we call) would deadlock on the agent's lock; it
// gets EDEADLK instead. (Initial-exec TLS: the library is usually loaded by a dlopen()ed JVMTI
// agent; see base/thread_local.h.)
JITSCOPE_THREAD_LOCAL bool inside_agent = false;

std::atomic<Agent*> created_agent{nullptr};  // for the exit hook, which must not create one

Agent& TheAgent() {
  static Agent* const agent = [] {
    auto* created = new Agent(SystemAgentEnvironment());  // intentionally leaked
    created_agent.store(created, std::memory_order_release);
    ::pthread_atfork([] { TheAgent().PrepareFork(); }, [] { TheAgent().ResumeParent(); },
                     [] { TheAgent().StartChild(); });
    return created;
  }();
  return *agent;
}

// Runs as the process exits (or the library is unloaded) with handles possibly still open: the
// sinks finish their files (jitdump: JIT_CODE_CLOSE). The OProfile dump needs nothing.
[[gnu::destructor]] void FinishAtExit() {
  if (inside_agent) return;
  base::ReentryGuard guard(inside_agent);
  try {
    if (Agent* agent = created_agent.load(std::memory_order_acquire)) agent->AtExit();
  } catch (...) {  // nothing may throw out of a destructor function
  }
}

// Runs `call` (returning 0 or an errno value) under the guard and maps it onto the C ABI.
template <typename Call>
int Run(Call&& call) {
  base::ReentryGuard guard(inside_agent);
  if (!guard.entered()) {
    errno = EDEADLK;
    return -1;
  }
  int error = 0;
  try {
    error = call(TheAgent());
  } catch (const std::bad_alloc&) {
    error = ENOMEM;
  } catch (...) {
    error = EIO;
  }
  if (error == 0) return 0;
  errno = error;
  return -1;
}

uintptr_t Token(op_agent_t handle) { return reinterpret_cast<uintptr_t>(handle); }

}  // namespace
}  // namespace jitscope::opagent

using jitscope::opagent::Agent;
using jitscope::opagent::Run;
using jitscope::opagent::Token;

extern "C" {

__attribute__((visibility("default"))) op_agent_t op_open_agent(void) {
  uintptr_t handle = 0;
  if (Run([&](Agent& agent) { return agent.Open(&handle); }) != 0) return nullptr;
  return reinterpret_cast<op_agent_t>(handle);
}

__attribute__((visibility("default"))) int op_close_agent(op_agent_t hdl) {
  return Run([&](Agent& agent) { return agent.Close(Token(hdl)); });
}

__attribute__((visibility("default"))) int op_write_native_code(op_agent_t hdl,
                                                                char const* symbol_name,
                                                                uint64_t vma, void const* code,
                                                                const unsigned int code_size) {
  return Run([&](Agent& agent) {
    return agent.WriteNativeCode(Token(hdl), symbol_name, vma, code, code_size);
  });
}

__attribute__((visibility("default"))) int op_write_debug_line_info(
    op_agent_t hdl, void const* code, size_t nr_entry, struct debug_line_info const* compile_map) {
  return Run([&](Agent& agent) {
    return agent.WriteDebugLineInfo(Token(hdl), code, nr_entry, compile_map);
  });
}

__attribute__((visibility("default"))) int op_unload_native_code(op_agent_t hdl, uint64_t vma) {
  return Run([&](Agent& agent) { return agent.UnloadNativeCode(Token(hdl), vma); });
}

// The interface version, OProfile's OP_MAJOR_VERSION / OP_MINOR_VERSION.
__attribute__((visibility("default"))) int op_major_version(void) { return 1; }
__attribute__((visibility("default"))) int op_minor_version(void) { return 0; }

}  // extern "C"
