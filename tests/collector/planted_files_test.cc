// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Files and permissions: a real client process (all_events_client through the stub and
// libjitscope-collector.so, every output format on) meets what an attacker or a stale run leaves
// at the paths the collector creates — planted symlinks, another user's files, a directory it may
// not write, one that does not exist. The collector never follows, clobbers or appends; it says
// why in one line and the host program runs on unaffected. The paths are planted for the pid
// the client will have: the client waits (as a shell that then execs it) until they are there.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/trace/reader.h"
#include "support/files.h"
#include "support/process.h"
#include "support/read_back.h"
#include "support/temp_dir.h"

namespace jitscope {
namespace {

using test_support::RunProgram;
using test_support::TempDir;
namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;
const char kTheirs[] = "someone else's bytes\n";

struct ClientRun {
  pid_t pid = 0;
  test_support::ProcessResult result;
};

// Runs all_events_client with every format written into `out`, after `plant(pid)` prepared the
// paths it will use. With `as_nobody` the client runs as uid/gid 65534. `env` is set over the
// collector's variables (JITSCOPE_LOG is unset unless it sets it); the client is killed after a
// minute (a collector that blocks it fails the test rather than hanging it).
ClientRun RunClient(const std::string& scratch, const std::string& out,
                    const std::function<void(pid_t)>& plant, bool as_nobody = false,
                    const std::map<std::string, std::string>& env = {}) {
  const std::string go = scratch + "/go";
  std::vector<std::string> argv = {
      "/bin/sh", "-c", "while [ ! -e \"$0\" ]; do sleep 0.01; done; shift; exec \"$@\"", go, "--"};
  if (as_nobody) {
    argv.insert(argv.end(),
                {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  }
  argv.push_back(JITSCOPE_ALL_EVENTS_CLIENT);
  std::map<std::string, std::string> variables = {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR},
                                                  {"JITSCOPE_FORMATS", "trace,jitdump,perfmap"},
                                                  {"JITSCOPE_OUTPUT_DIR", out},
                                                  {"JITSCOPE_PERF_MAP_DIR", out}};
  for (const auto& [name, value] : env) variables[name] = value;
  test_support::Process process(argv, variables,
                                {.unset = {"JITSCOPE_LOG"}, .timeout = std::chrono::seconds(60)});
  ClientRun run;
  run.pid = process.pid();
  plant(run.pid);
  std::ofstream(go).put('\n');
  run.result = process.Wait();
  return run;
}

std::vector<std::string> Names(pid_t pid) {
  const std::string p = std::to_string(pid);
  return {"jit-" + p + ".jsc", "jit-" + p + ".dump", "perf-" + p + ".map"};
}

std::string Prefix(pid_t pid) { return "jitscope[" + std::to_string(pid) + "]: "; }

// The trace the client left is complete: the all-events client's 10 records, and the code bytes
// of the 4 regions it places.
void ExpectCompleteTrace(const std::string& path) {
  const auto trace = test_support::OpenUndamagedTrace(path);
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->trace().records.size(), 14u);
}

// The jitdump must be named jit-<pid>.dump for perf inject, so when that name is taken the
// collector makes a fresh private directory for it: out/jitscope-<pid>-XXXXXX/jit-<pid>.dump.
std::string FallbackJitdump(const std::string& out, pid_t pid) {
  const std::string prefix = "jitscope-" + std::to_string(pid) + "-";
  for (const auto& entry : fs::directory_iterator(out)) {
    const std::string name = entry.path().filename();
    if (!name.starts_with(prefix)) continue;
    struct stat st {};
    EXPECT_EQ(::lstat(entry.path().c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0700u) << entry.path();
    return entry.path().string() + "/jit-" + std::to_string(pid) + ".dump";
  }
  ADD_FAILURE() << "no fallback directory " << prefix << "* in " << out;
  return "";
}

TEST(PlantedFiles, SymlinksAtEveryPathTheCollectorCreatesAreNeverFollowed) {
  TempDir scratch;
  const std::string out = scratch.path() + "/out";
  const std::string victim = scratch.path() + "/victim";
  fs::create_directory(out);
  std::ofstream(victim) << kTheirs;
  const ClientRun run = RunClient(scratch.path(), out, [&](pid_t pid) {
    for (const std::string& name : Names(pid)) {
      ASSERT_EQ(::symlink(victim.c_str(), (out + "/" + name).c_str()), 0) << name;
    }
  });
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(test_support::ReadFile(victim), kTheirs);
  for (const std::string& name : Names(run.pid)) {
    EXPECT_EQ(fs::read_symlink(out + "/" + name), victim) << name;
  }
  const std::string p = std::to_string(run.pid);
  const std::string trace = out + "/jit-" + p + ".1.jsc";
  const std::string jitdump = FallbackJitdump(out, run.pid);
  ExpectCompleteTrace(trace);
  EXPECT_GT(test_support::JitdumpCodeLoads(jitdump), 0u);
  const std::string log = run.result.err;
  EXPECT_NE(log.find(Prefix(run.pid) + "recording JIT events to " + trace + "\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find(Prefix(run.pid) + "writing a perf jitdump to " + jitdump + "\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find(Prefix(run.pid) + "no perf map: " + out + "/perf-" + p +
                     ".map is a symbolic link; not following it\n"),
            std::string::npos)
      << log;
}

TEST(PlantedFiles, AnotherUsersFilesAreNeitherClobberedNorAppendedTo) {
  ASSERT_EQ(::geteuid(), 0u) << "this test must run as root: it gives files to another user";
  TempDir scratch;
  const std::string out = scratch.path() + "/out";
  fs::create_directory(out);
  const ClientRun run = RunClient(scratch.path(), out, [&](pid_t pid) {
    for (const std::string& name : Names(pid)) {
      const std::string path = out + "/" + name;
      std::ofstream(path) << kTheirs;
      ASSERT_EQ(::chown(path.c_str(), kNobody, kNobody), 0);
      ASSERT_EQ(::chmod(path.c_str(), 0666), 0);  // writable by anyone: still not ours to touch
    }
  });
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  for (const std::string& name : Names(run.pid)) {
    const std::string path = out + "/" + name;
    EXPECT_EQ(test_support::ReadFile(path), kTheirs) << name;
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, kNobody) << name;
  }
  const std::string p = std::to_string(run.pid);
  ExpectCompleteTrace(out + "/jit-" + p + ".1.jsc");
  EXPECT_GT(test_support::JitdumpCodeLoads(FallbackJitdump(out, run.pid)), 0u);
  EXPECT_NE(run.result.err.find(Prefix(run.pid) + "no perf map: "), std::string::npos)
      << run.result.err;
}

// A directory the client may not write (it runs as nobody; the directory is root's, 0755):
// profiling is off with one line saying why; the client runs on.
TEST(PlantedFiles, AnUnwritableOutputDirectoryTurnsProfilingOffWithOneLine) {
  ASSERT_EQ(::geteuid(), 0u) << "this test must run as root: it runs the client as nobody";
  TempDir scratch;
  ASSERT_EQ(::chmod(scratch.path().c_str(), 0755), 0);
  const std::string read_only = scratch.path() + "/read-only";
  fs::create_directory(read_only);
  ASSERT_EQ(::chmod(read_only.c_str(), 0755), 0);
  const ClientRun denied = RunClient(
      scratch.path(), read_only, [](pid_t) {}, /*as_nobody=*/true);
  EXPECT_EQ(denied.result.exit_code, 0) << denied.result.err;
  EXPECT_TRUE(fs::is_empty(read_only));
  EXPECT_EQ(denied.result.err, Prefix(denied.pid) + "cannot create " + read_only + "/jit-" +
                                   std::to_string(denied.pid) +
                                   ".jsc: Permission denied; JIT profiling is off\n");
}

// An output directory that does not exist is made, with its missing parents, each the owner's
// alone (0700 whatever the umask); the run records as usual.
TEST(PlantedFiles, AMissingOutputDirectoryIsMadeWithItsParentsForTheOwnerOnly) {
  TempDir scratch;
  const std::string out = scratch.path() + "/no/such/directory";
  const ClientRun run = RunClient(scratch.path(), out, [](pid_t) {});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_TRUE(run.result.err.starts_with(Prefix(run.pid) + "recording JIT events to " + out +
                                         "/jit-" + std::to_string(run.pid) + ".jsc\n"))
      << run.result.err;
  for (const std::string& dir : {scratch.path() + "/no", scratch.path() + "/no/such", out}) {
    struct stat st {};
    ASSERT_EQ(::lstat(dir.c_str(), &st), 0) << dir;
    EXPECT_TRUE(S_ISDIR(st.st_mode)) << dir;
    EXPECT_EQ(st.st_mode & 07777, 0700u) << dir;
    EXPECT_EQ(st.st_uid, ::geteuid()) << dir;
  }
  ExpectCompleteTrace(out + "/jit-" + std::to_string(run.pid) + ".jsc");
}

// Making a missing output directory never goes through a symbolic link: one planted on the way
// (here to a directory the attacker wants the files in) is refused, and nothing is made there.
TEST(PlantedFiles, ALinkPlantedOnTheWayToAMissingOutputDirectoryIsRefused) {
  TempDir scratch;
  const std::string target = scratch.path() + "/target";
  fs::create_directory(target);
  fs::create_directory_symlink(target, scratch.path() + "/link");
  const std::string out = scratch.path() + "/link/out";
  const ClientRun run = RunClient(scratch.path(), out, [](pid_t) {});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_TRUE(fs::is_empty(target));
  EXPECT_EQ(run.result.err, Prefix(run.pid) + "cannot open " + scratch.path() +
                                "/link as a directory (a link or a file is there?): Not a "
                                "directory; JIT profiling is off\n");
}

// Another user's directory is refused as their files are: as the output directory itself, and
// on the way to a missing one.
TEST(PlantedFiles, AnotherUsersOutputDirectoryIsRefused) {
  ASSERT_EQ(::geteuid(), 0u) << "this test must run as root: it gives a directory to nobody";
  TempDir scratch;
  const std::string theirs = scratch.path() + "/theirs";
  fs::create_directory(theirs);
  ASSERT_EQ(::chown(theirs.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::chmod(theirs.c_str(), 0777), 0);  // writable by anyone: still not ours to use
  for (const std::string& out : {theirs, theirs + "/out"}) {
    SCOPED_TRACE(out);
    fs::remove(scratch.path() + "/go");
    const ClientRun run = RunClient(scratch.path(), out, [](pid_t) {});
    ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
    EXPECT_TRUE(fs::is_empty(theirs));
    EXPECT_EQ(run.result.err, Prefix(run.pid) + theirs +
                                  " belongs to another user (uid 65534); not writing there: "
                                  "Permission denied; JIT profiling is off\n");
  }
}

// What a normal run creates: owner-only files (the trace, the jitdump, the perf map), nothing
// any other user may write.
TEST(PlantedFiles, CreatedFilesAreTheOwnersOnly) {
  TempDir scratch;
  const std::string out = scratch.path() + "/out";
  fs::create_directory(out);
  const ClientRun run = RunClient(scratch.path(), out, [](pid_t) {});
  ASSERT_EQ(run.result.exit_code, 0) << run.result.err;
  for (const std::string& name : Names(run.pid)) {
    struct stat st {};
    ASSERT_EQ(::lstat((out + "/" + name).c_str(), &st), 0) << name;
    EXPECT_TRUE(S_ISREG(st.st_mode)) << name;
    EXPECT_EQ(st.st_mode & 07777, 0600u) << name;
    EXPECT_EQ(st.st_uid, ::geteuid()) << name;
  }
}

// How often `needle` occurs in `text`.
size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

// JITSCOPE_LOG naming a FIFO blocked the collector's first call forever (opening a FIFO for
// writing waits for a reader); a link, another user's file: never followed nor appended to. Each
// is said once, on stderr, and the client runs on with a complete trace.
TEST(PlantedFiles, ALogPathThatIsNoFileOfOursIsRefusedOnceAndNeverBlocks) {
  TempDir scratch;
  const std::string out = scratch.path() + "/out";
  fs::create_directory(out);
  const std::string fifo = scratch.path() + "/log-fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  const std::string theirs = scratch.path() + "/log-theirs";
  std::ofstream(theirs) << kTheirs;
  ASSERT_EQ(::chown(theirs.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::chmod(theirs.c_str(), 0666), 0);
  const std::string link = scratch.path() + "/log-link";
  const std::string victim = scratch.path() + "/victim";
  std::ofstream(victim) << kTheirs;
  ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fifo, "is a FIFO, not a regular file"},
      {theirs, "belongs to another user; not appending to it"},
      {link, "is a symbolic link; not following it"}};
  for (const auto& [path, why] : cases) {
    const ClientRun run =
        RunClient(scratch.path(), out, [](pid_t) {}, false, {{"JITSCOPE_LOG", path}});
    ASSERT_TRUE(run.result.ok()) << run.result.Describe();
    const std::string refusal =
        Prefix(run.pid) + "JITSCOPE_LOG file " + path + " " + why + "; logging to stderr\n";
    EXPECT_EQ(Count(run.result.err, refusal), 1u) << run.result.err;
    ExpectCompleteTrace(out + "/jit-" + std::to_string(run.pid) + ".jsc");
  }
  EXPECT_EQ(test_support::ReadFile(theirs), kTheirs);
  EXPECT_EQ(test_support::ReadFile(victim), kTheirs);
  EXPECT_EQ(fs::read_symlink(link), victim);
}

// JITSCOPE_PERF_MAP_DIR of another user's: no perf map there (they could replace or read it), as
// for JITSCOPE_OUTPUT_DIR; the trace and the jitdump are written.
TEST(PlantedFiles, APerfMapDirectoryOfAnotherUserIsNotWrittenTo) {
  TempDir scratch;
  const std::string out = scratch.path() + "/out";
  const std::string maps = scratch.path() + "/maps";
  fs::create_directory(out);
  fs::create_directory(maps);
  ASSERT_EQ(::chown(maps.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::chmod(maps.c_str(), 0777), 0);
  const ClientRun run =
      RunClient(scratch.path(), out, [](pid_t) {}, false, {{"JITSCOPE_PERF_MAP_DIR", maps}});
  ASSERT_TRUE(run.result.ok()) << run.result.Describe();
  EXPECT_TRUE(fs::is_empty(maps));
  EXPECT_NE(run.result.err.find(Prefix(run.pid) + "no perf map: " + maps +
                                " belongs to another user (uid 65534); not writing there"),
            std::string::npos)
      << run.result.err;
  ExpectCompleteTrace(out + "/jit-" + std::to_string(run.pid) + ".jsc");
}

}  // namespace
}  // namespace jitscope
