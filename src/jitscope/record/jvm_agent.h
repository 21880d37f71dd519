// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `record -p PID --jvm-agent`: jitscope's JVMTI agent (lib/libjvmti_opagent.so,
// examples/jvmti-opagent) loaded into a JVM that is already running, which was started without
// any JIT reporting. Through `jcmd PID JVMTI.agent_load <agent> dir=<session directory>` the agent
// reports, at once, every method compiled so far (JVMTI GenerateEvents) and then each method the
// JIT compiles or frees, with its source lines, through libopagent: a native trace
// (jit-PID.jsc) and an OProfile dump (PID.dump) written by the JVM into the session directory,
// where report reads them. It is loaded before the recording starts, so that the code it
// replays is known from the first sample on, and stopped (`... stop`) when the recording ends,
// so that nothing more is written there; HotSpot cannot unload an agent, so it stays, idle, and
// a later record loads it again into a new session.
//
// The JVM writes the files itself, as its own user: it must be able to write the session
// directory (a JVM of the same user can; record's directory is its user's alone). A JVM in
// another mount namespace (a container) does not see record's paths: there the agent cannot be
// loaded (jcmd says the library was not loaded) and --jvm-perf-map is the way.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::record {

inline constexpr char kJvmtiAgentFileName[] = "libjvmti_opagent.so";

// The agent installed beside jitscope (install_tree.h).
base::StatusOr<std::string> FindJvmtiAgent();

// What `jcmd PID JVMTI.agent_load AGENT OPTIONS` printed (`output`, exit status `exit_status`)
// says: OK when the agent's Agent_OnAttach returned 0 ("return code: 0"); else the reason: the
// agent's own errno value (it returns the one with which it could not open its outputs), the
// VM's refusal, or jcmd's. Pure, for tests.
base::Status AgentLoadResult(std::string_view output, int exit_status);

// Loads the agent into JVM `pid`, reporting into `session_dir` (absolute).
base::Status StartJvmAgent(pid_t pid, const std::string& agent, const std::string& session_dir);
// Stops the agent loaded into JVM `pid`; its files in the session directory are complete.
base::Status StopJvmAgent(pid_t pid, const std::string& agent);

// What JAVA_TOOL_OPTIONS gives the JVMs a recorded command starts, so that each loads the agent at
// its start, reporting into `session_dir` (absolute): "-agentpath:AGENT=dir=SESSION_DIR", or
// without "=dir=..." when the directory has a blank (HotSpot splits JAVA_TOOL_OPTIONS at blanks;
// the agent then reports where JITSCOPE_OUTPUT_DIR says, which record sets to the same
// directory). Fails when the agent's own path has a blank.
base::StatusOr<std::string> JvmAgentToolOptions(const std::string& agent,
                                                const std::string& session_dir);

// The jcmd command line each of them runs, for what record tells the user.
std::string JvmAgentCommand(pid_t pid, const std::string& agent, const std::string& options);

// The agents one recording loaded: stopped by Stop when it ends, or, on any other way out (an
// error after they were loaded), when this goes, so that no JVM goes on writing into the
// session. Move-only.
class LoadedJvmAgents {
 public:
  explicit LoadedJvmAgents(std::string agent) : agent_(std::move(agent)) {}
  LoadedJvmAgents(LoadedJvmAgents&& other) noexcept = default;
  LoadedJvmAgents& operator=(LoadedJvmAgents&& other) noexcept;
  LoadedJvmAgents(const LoadedJvmAgents&) = delete;
  LoadedJvmAgents& operator=(const LoadedJvmAgents&) = delete;
  ~LoadedJvmAgents();

  // Loads the agent into each of `jvms`, reporting into `session_dir` (absolute); `notes` get a
  // line for each, what was run and what came of it.
  void Start(const std::vector<pid_t>& jvms, const std::string& session_dir,
             std::vector<std::string>& notes);
  // Stops it in those that still run.
  void Stop(std::vector<std::string>& notes);

 private:
  std::string agent_;
  std::vector<pid_t> loaded_;
};

}  // namespace jitscope::record
