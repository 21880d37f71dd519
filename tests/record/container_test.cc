// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end : a Node process in a PID and mount namespace of its own, with a
// private /tmp (unshare --pid --fork --mount --mount-proc, a tmpfs mounted on /tmp), writes its
// perf map as /tmp/perf-1.map in that namespace, where nothing outside sees it. Recorded from
// the host with `record -p` and `record -a`, its JS functions are named by report from the copy
// record kept in the session directory, after the process is gone; under -a it is killed before
// the recording ends, and its map is still copied (its private /tmp outlives it while record
// holds an fd of it).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/record/container_files.h"
#include "jitscope/record/proc_files.h"
#include "jitscope/report/profile_builder.h"
#include "jitscope/session/session_info.h"
#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/v8_names.h"

namespace jitscope::record {
namespace {

using test_support::Process;
using test_support::RunProgram;
using test_support::TempDir;

// Two hot functions called from a loop, forever or, with kUntil, until node has used 1.2 seconds
// of CPU time (however busy the machine). Given with -e: the script must not be a file under
// /tmp, which the namespace hides.
constexpr char kFunctions[] =
    "function nsSquareRoots(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); "
    "return s; }\n"
    "function nsSines(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sin(i); return s; }\n";
constexpr char kForever[] =
    "function nsOuter() { let t = 0; for (;;) t += nsSquareRoots(200000) + nsSines(50000); }\n"
    "nsOuter();\n";
const std::string kUntil =
    std::string(test_support::kJsCpuSeconds) +
    "function nsOuter(end) { let t = 0; while (cpuSeconds() < end) t += nsSquareRoots(200000) + "
    "nsSines(50000); return t; }\n"
    "nsOuter(1.2);\n";

// The command that times a recording until the test creates `file`: the test ends the recording
// once what it waited for has happened, whatever the clock says.
std::vector<std::string> UntilCreated(const std::string& file) {
  return {"/bin/sh", "-c", "while [ ! -e \"$0\" ]; do sleep 0.05; done", file};
}

// A program unshare started in namespaces of its own (`options`, then the program's command),
// once it runs `comm` and has used `ticks` of CPU (half a second unless said).
// SIGKILL ends it: it is its namespace's init, which no other signal from outside ends.
struct Contained {
  Contained(std::vector<std::string> argv, const std::string& comm,
            long ticks = ::sysconf(_SC_CLK_TCK) / 2)
      : unshare(std::move(argv)), pid(test_support::WaitForChild(unshare.pid(), comm, ticks)) {}
  ~Contained() { Kill(); }
  void Kill() {
    if (pid > 0 && !killed) ::kill(pid, SIGKILL);
    killed = true;
  }
  Process unshare;
  pid_t pid = 0;
  bool killed = false;
};

// Node in namespaces of its own, as a container starts it; node is the unshare's child.
// `flag`: --perf-basic-prof (a perf map in /tmp, written as code is made) or --perf-prof (a
// jitdump, jit-1.dump, in its working directory, /tmp too, which it maps; V8 buffers it, so
// what it holds is complete only once node has exited).
struct ContainedNode : Contained {
  explicit ContainedNode(const std::string& flag = "--perf-basic-prof",
                         const std::string& loop = kForever)
      : Contained({UNSHARE_PROGRAM, "--pid", "--fork", "--mount", "--mount-proc", "/bin/sh", "-c",
                   "mount -t tmpfs tmpfs /tmp && cd /tmp && exec \"$0\" " + flag + " -e \"$1\"",
                   NODE_PROGRAM, std::string(kFunctions) + loop},
                  "node") {
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
  bool Names(const std::string& file, const std::vector<std::string>& names) const {
    const std::string content =
        test_support::ReadFile("/proc/" + std::to_string(pid) + "/root/tmp/" + file);
    for (const std::string& name : names) {
      if (content.find(name) == std::string::npos) return false;
    }
    return true;
  }
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
  base::StatusOr<session::SessionInfo> info = session::ReadSessionInfo(session);
  ASSERT_TRUE(info.ok()) << info.status().message();
  const session::AttachedProcess* node = nullptr;
  for (const session::AttachedProcess& process : info->attached) {
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
  just_node.filter.pids = {static_cast<uint32_t>(pid)};
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
  const test_support::ProcessResult record =
      RunProgram({JITSCOPE_CLI, "record", "-p", std::to_string(node.pid), "-o", session, "--",
                  CPU_TIME, "wait", "0.5", std::to_string(node.pid)});
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
  const std::string done = tmp.path() + "/done";
  std::vector<std::string> argv = {JITSCOPE_CLI, "record", "-a", "-o", session, "--"};
  for (const std::string& word : UntilCreated(done)) argv.push_back(word);
  Process record(argv);
  // Node, and with it its namespaces and private /tmp, ends before the recording does: once
  // record has written session.json, its fds are open and its command has started.
  for (int i = 0; i < 600 && test_support::ReadFile(session + "/session.json").empty(); ++i) {
    ::usleep(50 * 1000);
  }
  EXPECT_TRUE(test_support::WaitForCpuTime(pid, 0.5)) << "node never ran while recorded";
  node.Kill();
  node.unshare.Wait();
  ASSERT_TRUE(test_support::WriteFile(done, ""));
  ExpectNamedFromTheCopy(session, pid, record.Wait());
}

// Node --perf-prof writes jit-1.dump, the pid in its header 1 too: the copy, in the session's
// pid-PID/, is counted as process PID's. Node runs 1.2 s of CPU time and exits, and the recording
// lasts until it has: V8 writes its jitdump through a buffer, and only node's exit is sure to empty
// it (a node killed mid-run leaves its newest code out of the file, on the host as well).
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

// A contained shell that starts node only after the recording has begun (a container's entry
// point): node is the shell's child, forked while recorded, and its JIT file, in the namespace's
// /tmp and named by its own pid there, is kept as its own: a perf map (`--perf-basic-prof`), or
// a jitdump it maps (`--perf-prof`). The shell starts node once the test, seeing the recording
// started, creates `go` in its /tmp, and the recording lasts until the shell has exited.
void ExpectChildStartedWhileRecordedNamed(const std::string& flag) {
  TempDir tmp;
  const std::string session = tmp.path() + "/session";
  // A name of this test's own: the host's /tmp, seen before the shell mounts its own, lacks it.
  const std::string ready = "ready-" + tmp.path().substr(tmp.path().rfind('/') + 1);
  Contained shell(
      {UNSHARE_PROGRAM, "--pid", "--fork", "--mount", "--mount-proc", "/bin/sh", "-c",
       "mount -t tmpfs tmpfs /tmp && cd /tmp && : >" + ready +
           " && while [ ! -e go ]; do sleep 0.05; done && \"$0\" " + flag + " -e \"$1\"; sleep 1",
       NODE_PROGRAM, std::string(kFunctions) + kUntil},
      "sh", /*ticks=*/0);
  ASSERT_GT(shell.pid, 0) << "the shell never ran in its namespaces";
  // Attached once its /tmp is the tmpfs (record opens the directory when it starts).
  const std::string mounted = "/proc/" + std::to_string(shell.pid) + "/root/tmp/" + ready;
  for (int i = 0; i < 400 && ::access(mounted.c_str(), F_OK) != 0; ++i) ::usleep(25 * 1000);
  ASSERT_EQ(::access(mounted.c_str(), F_OK), 0) << "the shell never mounted its /tmp";
  Process recording({JITSCOPE_CLI, "record", "-p", std::to_string(shell.pid), "-o", session});
  for (int i = 0; i < 600 && test_support::ReadFile(session + "/session.json").empty(); ++i) {
    ::usleep(50 * 1000);
  }
  EXPECT_TRUE(test_support::WriteFile("/proc/" + std::to_string(shell.pid) + "/root/tmp/go", ""));
  const test_support::ProcessResult record = recording.Wait();
  shell.killed = true;  // it has exited
  EXPECT_TRUE(shell.unshare.Wait().ok());
  ASSERT_EQ(record.exit_code, 0) << record.Describe();

  base::StatusOr<session::SessionInfo> info = session::ReadSessionInfo(session);
  ASSERT_TRUE(info.ok()) << info.status().message();
  const session::AttachedProcess* node = nullptr;
  for (const session::AttachedProcess& process : info->attached) {
    if (process.pid != static_cast<uint32_t>(shell.pid)) {
      ASSERT_EQ(node, nullptr) << "only node has JIT files among the shell's children";
      node = &process;
    }
  }
  ASSERT_NE(node, nullptr) << "the child is listed in session.json\n" << record.err;
  const std::string pid = std::to_string(node->pid);
  ASSERT_GT(node->ns_pid, 1u) << "the shell is 1 in the namespace, its children after it";
  EXPECT_TRUE(node->own_mounts);
  const std::string ns_pid = std::to_string(node->ns_pid);
  const std::string copy = flag == "--perf-basic-prof" ? "perf-" + pid + ".map"
                                                       : "pid-" + pid + "/jit-" + ns_pid + ".dump";
  EXPECT_EQ(node->copied, std::vector<std::string>{copy});
  EXPECT_NE(record.err.find("jitscope record: process " + pid + " (pid " + ns_pid +
                            " in its namespace, with mounts of its own): kept its JIT files as " +
                            session + "/" + copy + " ("),
            std::string::npos)
      << record.err;

  report::BuildOptions just_node;
  just_node.filter.pids = {node->pid};
  base::StatusOr<report::Profile> profile = report::BuildProfile(session, just_node);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  const std::map<std::string, uint64_t> functions = JsFunctions(*profile);
  for (const char* name : {"nsSquareRoots", "nsSines"}) {
    EXPECT_TRUE(functions.contains(name)) << name << ": " << ::testing::PrintToString(functions);
  }
}

TEST(ContainerTest, AChildStartedWhileRecordedHasItsPerfMapKept) {
  ExpectChildStartedWhileRecordedNamed("--perf-basic-prof");
}

TEST(ContainerTest, AChildStartedWhileRecordedHasTheJitdumpItMapsKept) {
  ExpectChildStartedWhileRecordedNamed("--perf-prof");
}

// A root directory of its own for `program`, as /prog, which is nowhere on the host: the program
// and, at the paths ldd gives, its libraries and dynamic loader (copies of the host's, followed
// through their links). Empty when ldd fails, which the caller asserts.
bool MakeRoot(const std::string& root, const std::string& program) {
  const test_support::ProcessResult ldd = RunProgram({LDD_PROGRAM, program});
  EXPECT_TRUE(ldd.ok()) << ldd.Describe();
  if (!ldd.ok()) return false;
  std::vector<std::string> files;
  std::istringstream lines(ldd.out);
  for (std::string line; std::getline(lines, line);) {
    // "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)", "\t/lib64/ld-linux-x86-64.so.2
    // (0x...)"; the vDSO's line has no path.
    std::istringstream words(line);
    std::vector<std::string> word{std::istream_iterator<std::string>(words), {}};
    if (word.size() >= 3 && word[1] == "=>" && word[2].starts_with('/')) files.push_back(word[2]);
    if (!word.empty() && word[0].starts_with('/')) files.push_back(word[0]);
  }
  EXPECT_GE(files.size(), 2u) << "libc and the loader at least: " << ldd.out;
  std::error_code error;
  for (const std::string& file : files) {
    std::filesystem::create_directories(root + std::filesystem::path(file).parent_path().string(),
                                        error);
    std::filesystem::copy_file(std::filesystem::canonical(file), root + file, error);
    EXPECT_FALSE(error) << file << ": " << error.message();
  }
  std::filesystem::copy_file(program, root + "/prog", error);
  EXPECT_FALSE(error) << error.message();
  return !error && files.size() >= 2;
}

// The native frames of the profile named by function, with their samples as leaf, and what they
// were called from.
struct NativeFrames {
  std::map<std::string, uint64_t> leaf;
  std::set<std::pair<std::string, std::string>> calls;  // (caller, callee)
  std::set<std::string> modules;                        // of frames named Contained*
};
NativeFrames NativeFramesOf(const report::Profile& profile) {
  NativeFrames frames;
  for (const report::Stack& stack : profile.stacks) {
    for (size_t i = 0; i < stack.frames.size(); ++i) {
      const report::Location& frame = profile.locations[stack.frames[i]];
      if (frame.kind != report::FrameKind::kNative) continue;
      if (i == 0) frames.leaf[frame.function] += stack.samples;
      if (frame.function.starts_with("Contained")) frames.modules.insert(frame.module);
      if (i + 1 < stack.frames.size()) {
        frames.calls.emplace(profile.locations[stack.frames[i + 1]].function, frame.function);
      }
    }
  }
  return frames;
}

// A native program in a root directory of its own (pivot_root: a container's image), that
// exists only there: recorded from the host, its ELF files are copied into the session, and report
// names its functions from the copies, and unwinds through their CFI with --call-graph dwarf,
// after the program and its root are gone. Without the copies its frames were
// "/prog+0xOFFSET" (the mappings read from /proc carry no build id, and /prog is nowhere here).
void RecordAContainedProgram(const std::vector<std::string>& record_options, bool end_first) {
  TempDir tmp;
  const std::string root = tmp.path() + "/root";
  const std::string session = tmp.path() + "/session";
  ASSERT_TRUE(MakeRoot(root, CONTAINED_NATIVE_PROGRAM));
  // As a container runtime does: its root a mount of its own, made the namespace's root with
  // pivot_root, so that its paths are of that root to the host too (/proc/PID/maps names /prog;
  // under a mere chroot, `unshare --root`, the host's path to it). The old root stays under /old
  // (nothing in the new one could unmount it); the host's files are not reached through it.
  Contained program({UNSHARE_PROGRAM, "--pid", "--fork", "--mount", "/bin/sh", "-c",
                     "mount --bind \"$0\" \"$0\" && cd \"$0\" && mkdir old && "
                     "pivot_root . old && exec /prog",
                     root},
                    "prog");
  ASSERT_GT(program.pid, 0) << "the program never ran in its root";
  const pid_t pid = program.pid;
  base::StatusOr<ProcessNamespaces> namespaces = ReadNamespaces(pid);
  ASSERT_TRUE(namespaces.ok()) << namespaces.status().message();
  EXPECT_EQ(*namespaces,
            (ProcessNamespaces{.ns_pid = 1, .other_mounts = true, .other_root = true}));
  std::vector<std::string> argv = {JITSCOPE_CLI, "record"};
  argv.insert(argv.end(), record_options.begin(), record_options.end());
  for (const std::string& arg : {std::string("-o"), session, std::string("--")}) {
    argv.push_back(arg);
  }
  // Until it has used half a second of CPU time recorded, or, when it ends first, until the test
  // has seen it end.
  const std::string done = tmp.path() + "/done";
  const std::vector<std::string> command =
      end_first ? UntilCreated(done)
                : std::vector<std::string>{CPU_TIME, "wait", "0.5", std::to_string(pid)};
  argv.insert(argv.end(), command.begin(), command.end());
  if (record_options.front() == "-p") argv.insert(argv.begin() + 3, std::to_string(pid));
  Process record(argv);
  if (end_first) {
    // Ends, and its mount namespace with it, before the recording does: its files are copied
    // through the root record holds.
    for (int i = 0; i < 600 && test_support::ReadFile(session + "/session.json").empty(); ++i) {
      ::usleep(50 * 1000);
    }
    EXPECT_TRUE(test_support::WaitForCpuTime(pid, 0.5)) << "the program never ran recorded";
    program.Kill();
    program.unshare.Wait();
    EXPECT_TRUE(test_support::WriteFile(done, ""));
  }
  const test_support::ProcessResult recorded = record.Wait();
  program.Kill();
  program.unshare.Wait();
  ASSERT_EQ(recorded.exit_code, 0) << recorded.Describe();
  std::filesystem::remove_all(root);
  if (record_options.front() == "-p") {
    // Its samples wait for the end, when its files are in the session (until then the paths its
    // records name are the host's): none is unwound while recording.
    EXPECT_NE(recorded.err.find("jitscope record: unwound "), std::string::npos) << recorded.err;
    EXPECT_EQ(recorded.err.find(" of them while recording"), std::string::npos) << recorded.err;
  }

  const std::string copies = "pid-" + std::to_string(pid) + "/root";
  EXPECT_NE(recorded.err.find("jitscope record: process " + std::to_string(pid) +
                              " (pid 1 in its namespace, with mounts of its own, with a root "
                              "directory of its own): kept the "),
            std::string::npos)
      << recorded.err;
  EXPECT_NE(
      recorded.err.find(" ELF files its samples are in under " + session + "/" + copies + " ("),
      std::string::npos)
      << recorded.err;
  base::StatusOr<session::SessionInfo> info = session::ReadSessionInfo(session);
  ASSERT_TRUE(info.ok()) << info.status().message();
  const session::AttachedProcess* process = nullptr;
  for (const session::AttachedProcess& attached : info->attached) {
    if (attached.pid == static_cast<uint32_t>(pid)) process = &attached;
  }
  ASSERT_NE(process, nullptr) << "the contained process is listed in session.json";
  EXPECT_TRUE(process->own_root);
  ASSERT_FALSE(process->elf_copies.empty());
  EXPECT_NE(std::find(process->elf_copies.begin(), process->elf_copies.end(),
                      session::ElfCopy{"/prog", copies + "/prog"}),
            process->elf_copies.end())
      << "the program, where its samples are";
  EXPECT_EQ(test_support::ReadFile(session + "/" + copies + "/prog"),
            test_support::ReadFile(CONTAINED_NATIVE_PROGRAM))
      << "copied whole";
  for (const session::ElfCopy& copy : process->elf_copies) {
    EXPECT_EQ(copy.copy, copies + copy.path) << "one process: each its own copy";
    EXPECT_TRUE(copy.path == "/prog" || copy.path.starts_with("/lib")) << copy.path;
  }

  report::BuildOptions just_it;
  just_it.filter.pids = {static_cast<uint32_t>(pid)};
  base::StatusOr<report::Profile> profile = report::BuildProfile(session, just_it);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  const NativeFrames frames = NativeFramesOf(*profile);
  ASSERT_TRUE(frames.leaf.contains("ContainedSquares")) << ::testing::PrintToString(frames.leaf);
  ASSERT_TRUE(frames.leaf.contains("ContainedCubes")) << ::testing::PrintToString(frames.leaf);
  EXPECT_GT(frames.leaf.at("ContainedSquares") * 2, profile->total_samples)
      << "most samples in the hottest function: " << ::testing::PrintToString(frames.leaf);
  EXPECT_TRUE(frames.calls.contains({"ContainedOuter", "ContainedSquares"}))
      << ::testing::PrintToString(frames.calls);
  EXPECT_TRUE(frames.calls.contains({"ContainedOuter", "ContainedCubes"}))
      << ::testing::PrintToString(frames.calls);
  EXPECT_TRUE(frames.calls.contains({"main", "ContainedOuter"}))
      << ::testing::PrintToString(frames.calls);
  EXPECT_EQ(frames.modules, std::set<std::string>{"/prog"}) << "named by the path it mapped";
  for (const std::string& warning : profile->warnings) {
    EXPECT_EQ(warning.find("/prog"), std::string::npos) << warning;
  }
  if (record_options.front() != "-p") return;

  // Its copies are its archive: `jitscope archive` checks them by build id, counts them, and adds
  // nothing for it (its paths name nothing here); the report is the same.
  const std::string text = RunProgram({JITSCOPE_CLI, "report", session}).out;
  const test_support::ProcessResult archive = RunProgram({JITSCOPE_CLI, "archive", session});
  EXPECT_TRUE(archive.ok()) << archive.Describe();
  EXPECT_NE(archive.err.find(" the samples touched in " + session + "/files: 0 added (0 bytes), " +
                             std::to_string(process->elf_copies.size()) + " there already ("),
            std::string::npos)
      << archive.err;
  EXPECT_EQ(archive.err.find("not archived"), std::string::npos) << archive.err;
  EXPECT_FALSE(std::filesystem::exists(session + "/files"));
  EXPECT_EQ(RunProgram({JITSCOPE_CLI, "report", session}).out, text);
}

TEST(ContainerTest, AttachedByPidItsNativeFunctionsAreNamedFromItsCopiedFiles) {
  RecordAContainedProgram({"-p", "--call-graph", "dwarf"}, /*end_first=*/false);
}

TEST(ContainerTest, SystemWideItsNativeFunctionsAreNamedThoughItEndedFirst) {
  RecordAContainedProgram({"-a"}, /*end_first=*/true);
}

}  // namespace
}  // namespace jitscope::record
