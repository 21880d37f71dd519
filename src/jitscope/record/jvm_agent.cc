// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/jvm_agent.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

#include "jitscope/record/install_tree.h"
#include "jitscope/record/jcmd.h"

namespace jitscope::record {
namespace {

// HotSpot's JvmtiExport::load_agent_library prints this after Agent_OnAttach returned (JDK 9 and
// later; jcmd's exit status is 0 whatever it returned).
constexpr std::string_view kReturnCode = "return code: ";

// jcmd joins its arguments into one command line that the JVM splits at blanks and at '='
// (`name=value` options: "dir=/s" would reach the agent as "dir"); quotes keep an argument whole.
// The parser has no escape for a quote inside quotes.
std::string Quoted(const std::string& argument) { return '"' + argument + '"'; }

base::Status LoadAgent(pid_t pid, const std::string& agent, const std::string& options) {
  if (agent.find('"') != std::string::npos || options.find('"') != std::string::npos) {
    return base::Status::Error("%s: a path with '\"' cannot be passed through jcmd",
                               JvmAgentCommand(pid, agent, options).c_str());
  }
  ASSIGN_OR_RETURN(JcmdResult jcmd,
                   RunJcmd(pid, {"JVMTI.agent_load", Quoted(agent), Quoted(options)}));
  base::Status status = AgentLoadResult(jcmd.output, jcmd.exit_status);
  if (status.ok()) return status;
  return base::Status::Error("%s: %s", JvmAgentCommand(pid, agent, options).c_str(),
                             status.message().c_str());
}

}  // namespace

base::StatusOr<std::string> FindJvmtiAgent() {
  return FindInstalledLibrary(kJvmtiAgentFileName, "jitscope's JVMTI agent");
}

base::Status AgentLoadResult(std::string_view output, int exit_status) {
  const size_t at = output.rfind(kReturnCode);
  if (at != std::string_view::npos && (at == 0 || output[at - 1] == '\n')) {
    const std::string_view digits = output.substr(at + kReturnCode.size());
    int code = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), code);
    if (error == std::errc() && end != digits.data()) {
      if (code == 0) return base::Status::Ok();
      // The agent's convention (examples/jvmti-opagent): a positive code is an errno value,
      // EBUSY that it reports already, as the JVM was started with it.
      if (code == EBUSY) {
        return base::Status::Error(
            "the JVM was started with the agent (-agentpath), which reports where the JVM told "
            "it to (its dir= option or JITSCOPE_OUTPUT_DIR); left as it is");
      }
      if (code > 0) {
        return base::Status::Error("the agent could not open its outputs: %s", std::strerror(code));
      }
      return base::Status::Error(
          "the agent failed (return code %d; the JVM's standard error says why)", code);
    }
  }
  const std::string message = JcmdMessage(std::string(output));
  if (exit_status != 0) {
    return base::Status::Error("jcmd failed (exit status %d): %s", exit_status,
                               message.empty() ? "no output" : message.c_str());
  }
  return base::Status::Error("the JVM did not load it: %s",
                             message.empty() ? "no output" : message.c_str());
}

base::Status StartJvmAgent(pid_t pid, const std::string& agent, const std::string& session_dir) {
  return LoadAgent(pid, agent, "dir=" + session_dir);
}

base::Status StopJvmAgent(pid_t pid, const std::string& agent) {
  return LoadAgent(pid, agent, "stop");
}

base::StatusOr<std::string> JvmAgentToolOptions(const std::string& agent,
                                                const std::string& session_dir) {
  constexpr std::string_view kBlanks = " \t\n\r\f\v";
  if (agent.find_first_of(kBlanks) != std::string::npos) {
    return base::Status::Error("%s: a path with a blank cannot be passed through JAVA_TOOL_OPTIONS",
                               agent.c_str());
  }
  if (session_dir.find_first_of(kBlanks) != std::string::npos) return "-agentpath:" + agent;
  return "-agentpath:" + agent + "=dir=" + session_dir;
}

std::string JvmAgentCommand(pid_t pid, const std::string& agent, const std::string& options) {
  return "jcmd " + std::to_string(pid) + " JVMTI.agent_load " + Quoted(agent) + " " +
         Quoted(options);
}

LoadedJvmAgents& LoadedJvmAgents::operator=(LoadedJvmAgents&& other) noexcept {
  if (this != &other) {
    std::vector<std::string> ignored;
    Stop(ignored);
    agent_ = std::move(other.agent_);
    loaded_ = std::exchange(other.loaded_, {});
  }
  return *this;
}

LoadedJvmAgents::~LoadedJvmAgents() {
  std::vector<std::string> ignored;  // the recording failed: its error is what the user sees
  Stop(ignored);
}

void LoadedJvmAgents::Start(const std::vector<pid_t>& jvms, const std::string& session_dir,
                            std::vector<std::string>& notes) {
  for (pid_t pid : jvms) {
    if (base::Status status = StartJvmAgent(pid, agent_, session_dir); !status.ok()) {
      notes.push_back("--jvm-agent: " + status.message());
      continue;
    }
    loaded_.push_back(pid);
    notes.push_back("loaded jitscope's JVMTI agent into JVM " + std::to_string(pid) + " (" +
                    JvmAgentCommand(pid, agent_, "dir=" + session_dir) +
                    "): its compiled code is reported into " + session_dir + "/jit-" +
                    std::to_string(pid) + ".jsc");
  }
}

void LoadedJvmAgents::Stop(std::vector<std::string>& notes) {
  for (pid_t pid : std::exchange(loaded_, {})) {
    if (!IsJavaVm(pid)) continue;  // it ended
    const base::Status status = StopJvmAgent(pid, agent_);
    notes.push_back(status.ok()
                        ? "stopped the agent in JVM " + std::to_string(pid) + " (" +
                              JvmAgentCommand(pid, agent_, "stop") + "); it stays loaded, idle"
                        : "--jvm-agent: " + status.message());
  }
}

}  // namespace jitscope::record
