// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: `jitscope record` on real commands, read back with the samples reader.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/record/sampler.h"
#include "jitscope/record/session.h"
#include "jitscope/record/session_directory.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/session/session_info.h"
#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::record {
namespace {

// The session files this test reads back (session/samples_file.h, session/session_info.h).
using session::Comm;
using session::kSamplesFileName;
using session::kSessionInfoFileName;
using session::Mapping;
using session::ReadSamplesFile;
using session::Sample;
using session::SampleCounters;
using session::SampleData;
using session::Task;

using test_support::RunProgram;
using test_support::TempDir;

// 0.3 s of CPU time, however fast or busy the machine: ~300 samples at 1 kHz.
const std::string kBusyLoop = std::string(CPU_TIME) + " spin 0.3";

TEST(RecordSessionTest, SamplesTheCommandAndReturnsItsExitStatus) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto result = RunProgram(
      {JITSCOPE_CLI, "record", "-o", dir, "--", "/bin/sh", "-c", kBusyLoop + "; exit 7"});
  EXPECT_EQ(result.exit_code, 7) << result.err;
  base::StatusOr<SampleData> data = ReadSamplesFile(dir + "/" + kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_GT(data->samples.size(), 50u);
  EXPECT_EQ(data->counters, SampleCounters{});
  // The exec of the command is seen: its name and the shell's mapping.
  EXPECT_TRUE(std::any_of(data->comms.begin(), data->comms.end(),
                          [](const Comm& c) { return c.exec && c.name == "sh"; }));
  EXPECT_TRUE(std::any_of(data->mappings.begin(), data->mappings.end(), [](const Mapping& m) {
    return m.filename.find("/dash") != std::string::npos ||
           m.filename.find("/sh") != std::string::npos;
  }));
  for (const Sample& sample : data->samples) {
    ASSERT_FALSE(sample.callchain.empty());
    ASSERT_GT(sample.time_ns, 0u);
  }
}

TEST(RecordSessionTest, FollowsChildProcesses) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  // The busy loop runs in a grandchild shell, not in the recorded command itself.
  auto result = RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--", "/bin/sh", "-c",
                            std::string("/bin/sh -c '") + kBusyLoop + "'; true"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  base::StatusOr<SampleData> data = ReadSamplesFile(dir + "/" + kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  const uint32_t command_pid = data->comms.at(0).pid;
  const auto in_child = std::count_if(data->samples.begin(), data->samples.end(),
                                      [&](const Sample& s) { return s.pid != command_pid; });
  EXPECT_GT(in_child, 50);
  EXPECT_TRUE(std::any_of(data->tasks.begin(), data->tasks.end(),
                          [&](const Task& t) { return !t.exit && t.ppid == command_pid; }));
}

TEST(RecordSessionTest, RotatesAnExistingSessionDirectory) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/jitscope.data";
  for (int i = 0; i < 3; ++i) {
    auto result = RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--", "/bin/true"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
  }
  struct stat st {};
  EXPECT_EQ(::stat((dir + "/" + kSamplesFileName).c_str(), &st), 0);
  EXPECT_EQ(::stat((dir + ".old/" + kSamplesFileName).c_str(), &st), 0);
  EXPECT_EQ(::stat((dir + ".1/" + kSamplesFileName).c_str(), &st), 0);
}

// A symlink planted where the session directory goes is moved aside like an old session, never
// followed: the new session is a fresh directory of the owner's only, and the link's target is
// untouched.
TEST(RecordSessionTest, APlantedSymlinkAtTheSessionPathIsNeverFollowed) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/jitscope.data";
  const std::string victim = tmp.path() + "/victim";
  ASSERT_EQ(::mkdir(victim.c_str(), 0755), 0);
  ASSERT_EQ(::symlink(victim.c_str(), dir.c_str()), 0);
  auto result = RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--", "/bin/true"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  struct stat st {};
  ASSERT_EQ(::lstat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  ASSERT_EQ(::lstat((dir + ".old").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(::rmdir(victim.c_str()), 0) << "the link's target must still be empty";
  ASSERT_EQ(::lstat((dir + "/" + kSamplesFileName).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

// A recording that never began gives the directory back as it was: what was made in the new
// session directory goes, links in it are removed and never followed, and the earlier session
// returns to its name.
TEST(SessionDirectoryTest, AbandoningGivesTheEarlierSessionBackAndFollowsNoLink) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/s";
  const std::string outside = tmp.path() + "/outside";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_TRUE(test_support::WriteFile(dir + "/earlier", "an earlier session"));
  ASSERT_TRUE(test_support::WriteFile(outside, "not the session's"));
  base::StatusOr<PreparedSession> prepared = PrepareSessionDirectory(dir + "/");
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  EXPECT_EQ(prepared->rotated_to, dir + ".old");
  ASSERT_TRUE(test_support::WriteFile(dir + "/samples.jss", "half made"));
  ASSERT_EQ(::mkdir((dir + "/files").c_str(), 0700), 0);
  ASSERT_TRUE(test_support::WriteFile(dir + "/files/copy", "a copy"));
  ASSERT_EQ(::symlink(outside.c_str(), (dir + "/link").c_str()), 0);
  ASSERT_EQ(::symlink(tmp.path().c_str(), (dir + "/files/up").c_str()), 0);
  const base::Status status = AbandonSessionDirectory(std::move(prepared).value(), dir + "/",
                                                      base::Status::Error("refused"));
  EXPECT_EQ(status.message(), "refused");
  EXPECT_EQ(test_support::ListDirectory(tmp.path()), (std::set<std::string>{"outside", "s"}));
  EXPECT_EQ(test_support::ListDirectory(dir), (std::set<std::string>{"earlier"}));
  EXPECT_EQ(test_support::ReadFile(dir + "/earlier"), "an earlier session");
  EXPECT_EQ(test_support::ReadFile(outside), "not the session's");
}

// A directory put at the session's name since it was made is not this recorder's: it is left
// alone, and the error says where the earlier session is.
TEST(SessionDirectoryTest, AnEarlierSessionThatCannotComeBackIsSaidWhereItIs) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/s";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  base::StatusOr<PreparedSession> prepared = PrepareSessionDirectory(dir);
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  ASSERT_EQ(::rename(dir.c_str(), (tmp.path() + "/moved").c_str()), 0);
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_TRUE(test_support::WriteFile(dir + "/someone", "else's"));
  const base::Status status =
      AbandonSessionDirectory(std::move(prepared).value(), dir, base::Status::Error("refused"));
  EXPECT_EQ(status.message(), "refused (the earlier session in " + dir + " was moved to " + dir +
                                  ".old, and is still there)");
  EXPECT_EQ(test_support::ListDirectory(tmp.path()),
            (std::set<std::string>{"moved", "s", "s.old"}));
  EXPECT_EQ(test_support::ReadFile(dir + "/someone"), "else's");
}

// One session directory, one recorder. Started together, exactly one of two `record -o SAME`
// records, however often it is tried, and the other is refused at once, saying why; each time the
// earlier session is moved aside whole. (In 2 of 20 tries both said they had written SAME, one
// into the other's files; otherwise the second failed on "SAME/vdso.so: File exists" and left
// an empty SAME.old.) The commands wait for a file, so that the recordings overlap.
TEST(RecordSessionTest, OneRecorderPerSessionDirectory) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/same";
  constexpr int kTries = 10;
  for (int i = 0; i < kTries; ++i) {
    SCOPED_TRACE("try " + std::to_string(i));
    const std::string go = tmp.path() + "/go-" + std::to_string(i);
    const std::vector<std::string> record = {JITSCOPE_CLI,
                                             "record",
                                             "-o",
                                             dir,
                                             "--",
                                             "/bin/sh",
                                             "-c",
                                             "while [ ! -e \"$0\" ]; do sleep 0.01; done",
                                             go};
    test_support::Process first(record, {}, {.timeout = std::chrono::seconds(120)});
    test_support::Process second(record, {}, {.timeout = std::chrono::seconds(120)});
    // The refused one ends by itself; then the other's command may end too.
    pid_t refused = 0;
    for (int waited = 0; refused == 0 && waited < 60000; waited += 10) {
      for (const test_support::Process* p : {&first, &second}) {
        if (refused == 0 && ::kill(p->pid(), 0) == 0) {
          char state = 0;
          const std::string stat =
              test_support::ReadFile("/proc/" + std::to_string(p->pid()) + "/stat");
          const size_t paren = stat.rfind(')');
          if (paren != std::string::npos && paren + 2 < stat.size()) state = stat[paren + 2];
          if (state == 'Z') refused = p->pid();
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_NE(refused, 0) << "neither recorder was refused";
    std::ofstream(go).put('\n');
    const test_support::ProcessResult a = first.Wait();
    const test_support::ProcessResult b = second.Wait();
    const test_support::ProcessResult& loser = a.ok() ? b : a;
    EXPECT_EQ(a.ok() + b.ok(), 1) << a.Describe() << b.Describe();
    EXPECT_EQ(loser.exit_code, 1) << loser.Describe();
    EXPECT_EQ(loser.err, "jitscope record: error: " + dir +
                             " is being recorded into by another jitscope record; record into "
                             "another directory (-o), or wait for it to end\n");
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + kSessionInfoFileName));
    EXPECT_GT(std::filesystem::file_size(dir + "/" + kSamplesFileName), 48u);
  }
  // Each earlier session moved aside whole, nothing left behind half made.
  size_t moved = 0;
  for (const auto& entry : std::filesystem::directory_iterator(tmp.path())) {
    const std::string name = entry.path().filename();
    EXPECT_FALSE(name.starts_with(".jitscope-record-")) << name;
    if (name.starts_with("same.")) {
      ++moved;
      EXPECT_TRUE(std::filesystem::exists(entry.path() / kSessionInfoFileName)) << name;
    }
  }
  EXPECT_EQ(moved, static_cast<size_t>(kTries - 1));
}

TEST(RecordSessionTest, ConfiguresTheCollectorInTheCommandsEnvironment) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  auto result =
      RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--formats", "jitdump", "--", "/bin/sh", "-c",
                  "echo \"$INTEL_JIT_PROFILER64|$JITSCOPE_OUTPUT_DIR|$JITSCOPE_FORMATS|"
                  "$INTEL_JIT_PROFILER32\""});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  base::StatusOr<std::string> collector = FindCollector();
  ASSERT_TRUE(collector.ok()) << collector.status().message();
  // The i386 collector is set when the build has one (plain builds on x86-64; sanitized builds
  // leave lib32 out).
  base::StatusOr<std::string> collector32 = FindCollector("lib32");
  EXPECT_EQ(result.out, *collector + "|" + dir + "|jitdump|" +
                            (collector32.ok() ? *collector32 : std::string()) + "\n");
}

// CPU time (user + system, in clock ticks) of the first child of `pid`, 0 while it has none.
long ChildCpuTicks(pid_t pid) {
  std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                         "/children");
  pid_t child = 0;
  if (!(children >> child)) return 0;
  return test_support::ProcessCpuTicks(child);
}

TEST(RecordSessionTest, ForwardsSigtermAndKeepsTheSession) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  test_support::Process process(
      {JITSCOPE_CLI, "record", "-o", dir, "--", "/bin/sh", "-c", "while :; do :; done"}, {});
  // Until the command has run for 0.2 s of CPU time (however busy the machine), at most 20 s.
  const long ticks = ::sysconf(_SC_CLK_TCK) / 5;
  for (int i = 0; i < 200 && ChildCpuTicks(process.pid()) < ticks; ++i) ::usleep(100 * 1000);
  ASSERT_GE(ChildCpuTicks(process.pid()), ticks) << "the command never got 0.2 s of CPU";
  ASSERT_EQ(::kill(process.pid(), SIGTERM), 0);
  auto result = process.Wait();
  EXPECT_EQ(result.exit_code, 128 + SIGTERM) << result.err;
  base::StatusOr<SampleData> data = ReadSamplesFile(dir + "/" + kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_GT(data->samples.size(), 20u);
}

// A command that cannot run, whether it is the one recorded or the one that times a recording of
// running processes (-p): one line, exit 127, and the session directory as it was, the earlier
// session at its name (nothing was recorded).
TEST(RecordSessionTest, UnrunnableCommandExits127WithOneLine) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/s";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_TRUE(test_support::WriteFile(dir + "/earlier", "an earlier session"));
  test_support::Process target({"/bin/sleep", "60"});
  ASSERT_GT(target.pid(), 0);
  for (const std::vector<std::string>& attach :
       {std::vector<std::string>{}, std::vector<std::string>{"-p", std::to_string(target.pid())}}) {
    std::vector<std::string> argv = {JITSCOPE_CLI, "record"};
    argv.insert(argv.end(), attach.begin(), attach.end());
    argv.insert(argv.end(), {"-o", dir, "--", "/nonexistent/x"});
    SCOPED_TRACE(attach.empty() ? "record -- CMD" : "record -p PID -- CMD");
    auto result = RunProgram(argv);
    EXPECT_EQ(result.exit_code, 127);
    EXPECT_EQ(result.err,
              "jitscope record: error: cannot run '/nonexistent/x': No such file or directory\n");
    EXPECT_EQ(test_support::ListDirectory(tmp.path()), (std::set<std::string>{"s"}));
    EXPECT_EQ(test_support::ListDirectory(dir), (std::set<std::string>{"earlier"}));
  }
  ::kill(target.pid(), SIGKILL);
}

}  // namespace
}  // namespace jitscope::record
