// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// One profiling session of OProfile's agent API: from the first op_open_agent of a process until
// its last op_close_agent. It owns the OProfile dump (<pid>.dump), the jitscope collector with the
// sinks JITSCOPE_FORMATS asks for (trace, jitdump, perf map, ...), and the registry of live code.
//
// Data flow, per call: validate against the registry (OProfile's guide's "should have occurred
// before" rules) → build one trace::Event (event.h, "OProfile's agent API") → OProfile dump record
// → collector → every sink. A refused call is counted per reason, logged the first time, and kept
// in the trace as a REJECTED record, exactly as the Intel intake does; it writes nothing to the
// dump, so the dump stays something opjitconv can place.
//
// Threading: not thread-safe; the agent (agent.h) serialises every call under its lock, which also
// keeps the dump's records whole and in call order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "jitscope/base/status.h"
#include "jitscope/collector/collector.h"
#include "jitscope/collector/config.h"
#include "jitscope/collector/log.h"
#include "jitscope/formats/oprofile_dump_writer.h"
#include "jitscope/opagent/code_registry.h"
#include "jitscope/opagent/dump_directory.h"
#include "opagent.h"

namespace jitscope::opagent {

// The outside world the agent reads, behind function pointers so tests can fix the clocks, the
// pid and the environment variables.
struct AgentEnvironment {
  collector::GetEnvFunction getenv;
  uint64_t (*realtime_seconds)();  // OProfile's clock: gettimeofday() seconds
  uint32_t (*pid)();
  collector::Environment collector;  // CLOCK_MONOTONIC ns and thread ids for jitscope's outputs
  DumpLocations locations;
};
AgentEnvironment SystemAgentEnvironment();

class Session {
 public:
  // Reads the configuration, creates the dump and the collector's outputs. The error carries the
  // errno op_open_agent reports (EINVAL for a configuration error).
  static base::StatusOr<std::unique_ptr<Session>> Create(const AgentEnvironment& environment);
  // The last handle closed: the sinks finish their files (jitdump: JIT_CODE_CLOSE).
  ~Session() { FinishOutputs(); }
  // Also at process exit with handles still open (an engine that never closes its agent).
  void FinishOutputs() { collector_->AtExit(); }

  // Each returns 0 or the errno value of the failure (OProfile's guide §1-5).
  int OpenAgent(uint32_t agent);
  int CloseAgent(uint32_t agent);
  int WriteNativeCode(uint32_t agent, const char* name, uint64_t vma, const void* code,
                      unsigned int size);
  int WriteDebugLineInfo(uint32_t agent, const void* code, size_t count,
                         const struct debug_line_info* map);
  int UnloadNativeCode(uint32_t agent, uint64_t vma);
  // Counts, logs and records a refused call; returns EINVAL.
  int Refuse(uint32_t call, trace::RejectReason reason);

  const std::string& dump_path() const { return dump_path_; }
  const collector::Collector& collector() const { return *collector_; }
  const CodeRegistry& registry() const { return registry_; }
  uint64_t dump_write_failures() const { return dump_write_failures_; }

 private:
  Session(const AgentEnvironment& environment, formats::OprofileDumpWriter dump,
          std::string dump_path, std::unique_ptr<collector::Collector> collector,
          collector::Log log)
      : environment_(environment),
        dump_(std::move(dump)),
        dump_path_(std::move(dump_path)),
        collector_(std::move(collector)),
        log_(std::move(log)) {}
  // Writes an accepted event to the dump and the collector; 0 or the errno of the first failure.
  int Emit(const trace::Event& event);

  AgentEnvironment environment_;
  formats::OprofileDumpWriter dump_;
  std::string dump_path_;
  std::unique_ptr<collector::Collector> collector_;
  collector::Log log_;
  CodeRegistry registry_;
  uint64_t dump_write_failures_ = 0;
};

}  // namespace jitscope::opagent
