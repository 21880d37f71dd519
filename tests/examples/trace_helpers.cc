// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "trace_helpers.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <sstream>

extern char** environ;

namespace jitscope::testing {

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env) {
  ProcessResult result;
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& [name, value] : env) replaced |= entry.rfind(name + "=", 0) == 0;
    if (!replaced) environment.push_back(entry);
  }
  for (const auto& [name, value] : env) environment.push_back(name + "=" + value);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);

  int out[2];
  int err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  if (spawned != 0) {
    result.err = std::string("cannot run ") + argv[0] + ": " + std::strerror(spawned);
    close(out[0]);
    close(err[0]);
    return result;
  }
  // Read both pipes until both close, so neither side can fill up and block the child.
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_pipes = 2;
  char buffer[65536];
  while (open_pipes > 0) {
    if (poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_pipes;
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

TempDir::TempDir() {
  const char* base = getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/jitvm-test.XXXXXX";
  if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TempDir::~TempDir() {
  if (!path_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
}

std::string FindTrace(const std::string& dir, std::string& error) {
  std::vector<std::string> traces;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("jit-", 0) == 0 && name.size() > 4 &&
        name.compare(name.size() - 4, 4, ".jsc") == 0) {
      traces.push_back(entry.path().string());
    }
  }
  if (ec) {
    error = "cannot list " + dir + ": " + ec.message();
    return "";
  }
  if (traces.size() != 1) {
    error = "expected one jit-*.jsc in " + dir + ", found " + std::to_string(traces.size());
    return "";
  }
  return traces[0];
}

std::vector<nlohmann::json> DumpJson(const std::string& jitscope, const std::string& trace,
                                     std::string& error) {
  const ProcessResult dump = RunProcess({jitscope, "dump", "--json", trace});
  if (dump.exit_code != 0) {
    error = "jitscope dump failed (" + std::to_string(dump.exit_code) + "): " + dump.err;
    return {};
  }
  std::vector<nlohmann::json> records;
  std::istringstream lines(dump.out);
  std::string line;
  while (std::getline(lines, line)) {
    auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      error = "not JSON: " + line;
      return {};
    }
    records.push_back(std::move(parsed));
  }
  return records;
}

uint32_t LineAt(const nlohmann::json& lines, uint64_t offset) {
  for (const auto& entry : lines) {
    if (entry["offset"].get<uint64_t>() > offset) return entry["line"].get<uint32_t>();
  }
  return 0;
}

}  // namespace jitscope::testing
