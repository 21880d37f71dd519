// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end (issue 17 item 3): a Node process in a PID and mount namespace of its own, with a
// private /tmp (unshare --pid --fork --mount --mount-proc, a tmpfs mounted on /tmp), writes its
// perf map as /tmp/perf-1.map in that namespace, where nothing outside sees it. Recorded from
// the host with `record -p` and `record -a`, its JS functions are named by report from the copy
// record kept in the session directory, after the process is gone; under -a it is killed before
// the recording ends, and its map is still copied (its private /tmp outlives it while record
// holds an fd of it).
#include <signal.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/session_info.h"
#include "jitscope/record/container_files.h"
#include "jitscope/record/proc_files.h"
#include "jitscope/report/profile_builder.h"
#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::record {
namespace {

using test_support::Process;
using test_support::RunProgram;
using test_support::TempDir;

// Two hot functions called from a loop, forever or, with kUntil, for two seconds. Given with -e:
// the script must not be a file under /tmp, which the namespace hides.
constexpr char kFunctions[] =
    "function nsSquareRoots(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); "
    "return s; }\n"
    "function nsSines(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sin(i); return s; }\n";
constexpr char kForever[] =
    "function nsOuter() { let t = 0; for (;;) t += nsSquareRoots(200000) + nsSines(50000); }\n"
    "nsOuter();\n";
constexpr char kUntil[] =
    "function nsOuter(end) { let t = 0; while (Date.now() < end) t += nsSquareRoots(200000) + "
    "nsSines(50000); return t; }\n"
    "nsOuter(Date.now() + 2000);\n";

// Node in namespaces of its own, as the goal starts it; node is the unshare's child.
// `flag`: --perf-basic-prof (a perf map in /tmp, written as code is made) or --perf-prof (a
// jitdump, jit-1.dump, in its working directory, /tmp too, which it maps; V8 buffers it, so
// what it holds is complete only once node has exited).
struct ContainedNode {
  explicit ContainedNode(const std::string& flag = "--perf-basic-prof",
                         const std::string& loop = kForever)
      : unshare({UNSHARE_PROGRAM, "--pid", "--fork", "--mount", "--mount-proc", "/bin/sh", "-c",
                 "mount -t tmpfs tmpfs /tmp && cd /tmp && exec \"$0\" " + flag + " -e \"$1\"",
                 NODE_PROGRAM, std::string(kFunctions) + loop}),
        pid(test_support::WaitForChild(unshare.pid(), "node", ::sysconf(_SC_CLK_TCK) / 2)) {
    if (flag != "--perf-basic-prof") return;
    // Attached before V8 optimised the functions, a short recording may see none of their
    // optimised code (a busy machine runs node late): wait until its map, seen through its
    // root, names the optimised code ('*') of both.
    for (int i = 0; pid > 0 && i < 400 && !MapNames({"*nsSquareRoots", "*nsSines"}); ++i) {
      ::usleep(50 * 1000);
    }
  }
  bool MapNames(const std::vector<std::string>& names) const {
    const std::string map =
        test_support::ReadFile("/proc/" + std::to_string(pid) + "/root/tmp/perf-1.map");
    for (const std::string& name : names) {
      if (map.find(name) == std::string::npos) return false;
    }
    return true;
  }
  ~ContainedNode() { Kill(); }
  bool Names(const std::string& file, const std::vector<std::string>& names) const {
    const std::string content =
        test_support::ReadFile("/proc/" + std::to_string(pid) + "/root/tmp/" + file);
    for (const std::string& name : names) {
      if (content.find(name) == std::string::npos) return false;
    }
    return true;
  }
  // SIGKILL: node is its namespace's init, which no other signal from outside ends.
  void Kill() {
    if (pid > 0 && !killed) ::kill(pid, SIGKILL);
    killed = true;
  }
  Process unshare;
  pid_t pid = 0;
  bool killed = false;
};

// The names of the JS functions among the profile's JIT frames ("JS:*nsSines [eval]:2:17" is
// nsSines: V8's tier marker and the location dropped), with their samples as leaf.
std::map<std::string, uint64_t> JsFunctions(const report::Profile& profile) {
  std::map<std::string, uint64_t> functions;
  for (const report::Stack& stack : profile.stacks) {
    for (size_t i = 0; i < stack.frames.size(); ++i) {
      const report::Location& frame = profile.locations[stack.frames[i]];
      if (frame.kind != report::FrameKind::kJit || !frame.function.starts_with("JS:")) continue;
      std::string name = frame.function.substr(3, frame.function.find(' ') - 3);
      if (!name.empty() && std::string_view("*~^+").find(name[0]) != std::string_view::npos) {
        name.erase(0, 1);
      }
      functions[name] += i == 0 ? stack.samples : 0;
    }
  }
  return functions;
}

void ExpectNamedFromTheCopy(const std::string& session, pid_t pid,
                            const test_support::ProcessResult& record,
                            const std::string& copy_name = "",
                            const std::vector<std::string>& names = {"nsSquareRoots", "nsSines"}) {
  ASSERT_EQ(record.exit_code, 0) << record.Describe();
  const std::string copy = copy_name.empty() ? "perf-" + std::to_string(pid) + ".map" : copy_name;
  EXPECT_NE(record.err.find("jitscope record: process " + std::to_string(pid) +
                            " (pid 1 in its namespace, with mounts of its own): kept its JIT "
                            "files as " +
                            session + "/" + copy + " ("),
            std::string::npos)
      << record.err;
  base::StatusOr<formats::SessionInfo> info = formats::ReadSessionInfo(session);
  ASSERT_TRUE(info.ok()) << info.status().message();
  const formats::AttachedProcess* node = nullptr;
  for (const formats::AttachedProcess& process : info->attached) {
    if (process.pid == static_cast<uint32_t>(pid)) node = &process;
  }
  ASSERT_NE(node, nullptr) << "the contained process is listed in session.json";
  EXPECT_EQ(node->ns_pid, 1u);
  EXPECT_TRUE(node->own_mounts);
  EXPECT_FALSE(node->own_root) << "unshare keeps the root directory";
  EXPECT_EQ(node->copied, std::vector<std::string>{copy});
  EXPECT_FALSE(test_support::ReadFile("/tmp/perf-1.map").find("nsSines") != std::string::npos)
      << "the map was in the namespace's own /tmp";

  report::BuildOptions just_node;
  just_node.pids = {static_cast<uint32_t>(pid)};
  base::StatusOr<report::Profile> profile = report::BuildProfile(session, just_node);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  const std::map<std::string, uint64_t> functions = JsFunctions(*profile);
  for (const std::string& name : names) {
    ASSERT_TRUE(functions.contains(name)) << name << ": " << ::testing::PrintToString(functions);
  }
  EXPECT_GT(functions.at("nsSquareRoots") * 10, profile->total_samples)
      << "a good share of the samples in the hottest function";
}

TEST(ContainerTest, AttachedByPidItsJsFunctionsAreNamed) {
  TempDir tmp;
  const std::string session = tmp.path() + "/session";
  ContainedNode node;
  ASSERT_GT(node.pid, 0) << "node never ran in its namespaces";
  // What record sees of it: its pid there is the last of NSpid's, and its mounts are its own.
  base::StatusOr<ProcessNamespaces> namespaces = ReadNamespaces(node.pid);
  ASSERT_TRUE(namespaces.ok()) << namespaces.status().message();
  EXPECT_EQ(*namespaces,
            (ProcessNamespaces{.ns_pid = 1, .other_mounts = true, .other_root = false}));
  const test_support::ProcessResult record = RunProgram(
      {JITSCOPE_CLI, "record", "-p", std::to_string(node.pid), "-o", session, "--", "sleep", "1"});
  const pid_t pid = node.pid;
  node.Kill();
  node.unshare.Wait();
  ExpectNamedFromTheCopy(session, pid, record);
}

TEST(ContainerTest, SystemWideItsJsFunctionsAreNamedThoughItEndedFirst) {
  TempDir tmp;
  const std::string session = tmp.path() + "/session";
  ContainedNode node;
  ASSERT_GT(node.pid, 0) << "node never ran in its namespaces";
  const pid_t pid = node.pid;
  Process record({JITSCOPE_CLI, "record", "-a", "-o", session, "--", "sleep", "2"});
  // Node, and with it its namespaces and private /tmp, ends before the recording does: once
  // record has written session.json, its fds are open and its command, 2 s, has started.
  for (int i = 0; i < 600 && test_support::ReadFile(session + "/session.json").empty(); ++i) {
    ::usleep(50 * 1000);
  }
  ::usleep(300 * 1000);
  node.Kill();
  node.unshare.Wait();
  ExpectNamedFromTheCopy(session, pid, record.Wait());
}

// Node --perf-prof writes jit-1.dump, the pid in its header 1 too: the copy, in the session's
// pid-PID/, is counted as process PID's. Node runs two seconds and exits, and the recording lasts
// until it has: V8 writes its jitdump through a buffer, and only node's exit is sure to empty it
// (a node killed mid-run leaves its newest code out of the file, on the host as well).
TEST(ContainerTest, ItsJitdumpIsCopiedAndCountedAsItsOwn) {
  TempDir tmp;
  const std::string session = tmp.path() + "/session";
  ContainedNode node("--perf-prof", kUntil);
  ASSERT_GT(node.pid, 0) << "node never ran in its namespaces";
  const pid_t pid = node.pid;
  const test_support::ProcessResult record =
      RunProgram({JITSCOPE_CLI, "record", "-p", std::to_string(pid), "-o", session});
  node.killed = true;  // it has exited
  EXPECT_TRUE(node.unshare.Wait().ok());
  ExpectNamedFromTheCopy(session, pid, record, "pid-" + std::to_string(pid) + "/jit-1.dump");
}

}  // namespace
}  // namespace jitscope::record
