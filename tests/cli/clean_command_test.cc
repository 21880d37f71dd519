// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope clean` against a scratch directory tree and a fake process table: which files go,
// which stay, and what it says (clean_command.h lists the rules).
#include "jitscope/cli/clean_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/trace/writer.h"
#include "support/temp_dir.h"

namespace jitscope::cli {
namespace {

constexpr int64_t kWritten = 1'700'000'000;  // every test file's mtime, in seconds

std::map<uint32_t, ProcessTable::Process>* fake_processes = nullptr;

ProcessTable::Process FakeLookup(uint32_t pid) {
  const auto found = fake_processes->find(pid);
  return found == fake_processes->end() ? ProcessTable::Process{} : found->second;
}

class CleanCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = scratch_.path();
    maps_ = root_ + "/maps";
    out_ = root_ + "/out";
    std::filesystem::create_directories(maps_);
    std::filesystem::create_directories(out_);
    fake_processes = &processes_;
  }
  void TearDown() override { fake_processes = nullptr; }

  // A file as the collector leaves it: tagged, last written at kWritten.
  void Make(const std::string& path, bool tagged = true) {
    base::ScopedFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    ASSERT_TRUE(fd) << path;
    ASSERT_EQ(1, ::write(fd.get(), "x", 1));
    if (tagged) {
      ASSERT_TRUE(base::TagCreatedByJitscope(fd.get(), "test"));
    }
    const timespec times[2] = {{kWritten, 0}, {kWritten, 0}};
    ASSERT_EQ(0, ::futimens(fd.get(), times));
  }

  std::pair<int, std::string> Clean(CleanOptions options) {
    if (options.output_dirs.empty()) options.output_dirs = {out_};
    if (options.perf_map_dir.empty()) options.perf_map_dir = maps_;
    char* text = nullptr;
    size_t size = 0;
    std::FILE* out = ::open_memstream(&text, &size);
    const int code = RunClean(options, ProcessTable{&FakeLookup}, out, stderr);
    std::fclose(out);
    std::string printed(text, size);
    std::free(text);
    return {code, printed};
  }

  static bool Exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
  }

  test_support::TempDir scratch_;
  std::string root_, maps_, out_;
  std::map<uint32_t, ProcessTable::Process> processes_;
};

constexpr uint64_t Ns(int64_t seconds) { return static_cast<uint64_t>(seconds) * 1'000'000'000u; }

TEST_F(CleanCommandTest, RemovesOnlyJitscopesFilesOfExitedProcesses) {
  ASSERT_EQ(0u, ::geteuid()) << "this test must run as root: it gives a file to another user";
  Make(maps_ + "/perf-100.map");  // gone: removed
  Make(maps_ + "/perf-101.map");  // running: kept
  processes_[101] = {ProcessTable::State::kRunning, 0};
  Make(maps_ + "/perf-102.map", /*tagged=*/false);  // another tool's: kept
  Make(maps_ + "/perf-103.map");                    // pid reused since: removed
  processes_[103] = {ProcessTable::State::kRunningSince, Ns(kWritten + 10)};
  Make(maps_ + "/perf-104.map");  // its writer still runs: kept
  processes_[104] = {ProcessTable::State::kRunningSince, Ns(kWritten - 10)};
  Make(maps_ + "/victim");
  ASSERT_EQ(0, ::symlink((maps_ + "/victim").c_str(), (maps_ + "/perf-105.map").c_str()));
  Make(maps_ + "/perf-106.map");  // another user's: not even looked at
  ASSERT_EQ(0, ::chown((maps_ + "/perf-106.map").c_str(), 65534, 65534));
  Make(maps_ + "/perf-0107.map");  // not a name jitscope writes
  Make(out_ + "/jit-200.dump");
  Make(out_ + "/jit-200.jsc");  // the native trace is the user's data
  std::filesystem::create_directories(out_ + "/jitscope-201-Ab12Cd");
  Make(out_ + "/jitscope-201-Ab12Cd/jit-201.dump");
  std::filesystem::create_directories(out_ + "/jitscope-202-Xy34Zw");
  Make(out_ + "/jitscope-202-Xy34Zw/jit-202.dump");
  Make(out_ + "/jitscope-202-Xy34Zw/jitted-202-1.so");  // perf inject's: stays, and so does the dir

  const auto [code, printed] = Clean({});
  EXPECT_EQ(0, code);
  EXPECT_EQ("removed " + maps_ + "/perf-100.map (process 100 is gone)\n" + "removed " + maps_ +
                "/perf-103.map (process 103 is gone)\n" + "removed " + out_ +
                "/jit-200.dump (process 200 is gone)\n" + "removed " + out_ +
                "/jitscope-201-Ab12Cd/jit-201.dump (process 201 is gone)\n" + "removed " + out_ +
                "/jitscope-202-Xy34Zw/jit-202.dump (process 202 is gone)\n" +
                "jitscope clean: removed 5 files; kept 2 of running processes; kept 1 written by "
                "other tools (--all-writers removes them)\n",
            printed);
  for (const char* gone : {"/maps/perf-100.map", "/maps/perf-103.map", "/out/jit-200.dump",
                           "/out/jitscope-201-Ab12Cd", "/out/jitscope-202-Xy34Zw/jit-202.dump"}) {
    EXPECT_FALSE(Exists(root_ + gone)) << gone;
  }
  for (const char* kept :
       {"/maps/perf-101.map", "/maps/perf-102.map", "/maps/perf-104.map", "/maps/perf-105.map",
        "/maps/victim", "/maps/perf-106.map", "/maps/perf-0107.map", "/out/jit-200.jsc",
        "/out/jitscope-202-Xy34Zw/jitted-202-1.so"}) {
    EXPECT_TRUE(Exists(root_ + kept)) << kept;
  }

  CleanOptions all;
  all.all_writers = true;
  const auto [all_code, all_printed] = Clean(all);
  EXPECT_EQ(0, all_code);
  EXPECT_EQ("removed " + maps_ + "/perf-102.map (process 102 is gone)\n" +
                "jitscope clean: removed 1 file; kept 2 of running processes\n",
            all_printed);
}

TEST_F(CleanCommandTest, DryRunOnlyTells) {
  Make(maps_ + "/perf-100.map");
  CleanOptions dry;
  dry.dry_run = true;
  const auto [code, printed] = Clean(dry);
  EXPECT_EQ(0, code);
  EXPECT_EQ("would remove " + maps_ + "/perf-100.map (process 100 is gone)\n" +
                "jitscope clean: would remove 1 file\n",
            printed);
  EXPECT_TRUE(Exists(maps_ + "/perf-100.map"));
}

TEST_F(CleanCommandTest, NothingToRemove) {
  EXPECT_EQ((std::pair<int, std::string>{0, "jitscope clean: nothing to remove\n"}), Clean({}));
}

// A file of a trace chain in `dir`: with `previous`, it continues that file, its snapshot
// complete or not.
void MakeChainFile(const std::string& dir, const std::string& name, uint32_t pid,
                   const std::string& previous = "", bool complete = true) {
  auto fd = base::CreateExclusive(dir, name, 0600);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  auto writer = trace::TraceWriter::Create(std::move(fd).value(), {pid, "/bin/jit", 0, 0});
  ASSERT_TRUE(writer.ok());
  if (!previous.empty()) {
    ASSERT_EQ((*writer)->Append(trace::ChainLinkEvent{1, 4096, previous}, 1, 1),
              trace::TraceWriter::AppendResult::kOk);
    if (complete) {
      ASSERT_EQ((*writer)->Append(trace::SnapshotEndEvent{0}, 1, 1),
                trace::TraceWriter::AppendResult::kOk);
    }
  }
  (*writer)->Trim();
}

TEST_F(CleanCommandTest, FilesOfATraceChainBeforeItsLastCompleteSnapshotGo) {
  processes_[300] = {ProcessTable::State::kRunning, 0};  // the chain's process still runs
  MakeChainFile(out_, "jit-300.jsc", 300);
  MakeChainFile(out_, "jit-300.1.jsc", 300, "jit-300.jsc");
  MakeChainFile(out_, "jit-300.2.jsc", 300, "jit-300.1.jsc", /*complete=*/false);
  MakeChainFile(out_, "jit-301.jsc", 301);
  MakeChainFile(out_, "jit-301.3.jsc", 301, "jit-301.jsc");
  MakeChainFile(out_, "jit-301.4.jsc", 301, "jit-301.3.jsc");
  MakeChainFile(out_, "jit-302.jsc", 302);  // no chain: the user's data
  // A file naming another process's file as its predecessor supersedes nothing.
  MakeChainFile(out_, "jit-303.1.jsc", 303, "jit-302.jsc");

  CleanOptions dry;
  dry.dry_run = true;
  const std::string why = " (a later file of its trace's chain holds its live code)\n";
  EXPECT_EQ(Clean(dry),
            (std::pair<int, std::string>{0, "would remove " + out_ + "/jit-300.jsc" + why +
                                                "would remove " + out_ + "/jit-301.3.jsc" + why +
                                                "would remove " + out_ + "/jit-301.jsc" + why +
                                                "jitscope clean: would remove 3 files\n"}));
  EXPECT_TRUE(Exists(out_ + "/jit-300.jsc"));

  EXPECT_EQ(Clean({}).second, "removed " + out_ + "/jit-300.jsc" + why + "removed " + out_ +
                                  "/jit-301.3.jsc" + why + "removed " + out_ + "/jit-301.jsc" +
                                  why + "jitscope clean: removed 3 files\n");
  for (const char* kept :
       {"/jit-300.1.jsc", "/jit-300.2.jsc", "/jit-301.4.jsc", "/jit-302.jsc", "/jit-303.1.jsc"}) {
    EXPECT_TRUE(Exists(out_ + kept)) << kept;
  }
  EXPECT_EQ(Clean({}).second, "jitscope clean: nothing to remove\n");
}

TEST(CleanCommandProcesses, TheSystemTableKnowsThisProcessAndItsStart) {
  const ProcessTable table = SystemProcessTable();
  const auto self = table.lookup(static_cast<uint32_t>(::getpid()));
  ASSERT_EQ(ProcessTable::State::kRunningSince, self.state);
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const uint64_t now_ns = Ns(now.tv_sec);
  EXPECT_LT(self.start_realtime_ns, now_ns + Ns(2));
  EXPECT_GT(self.start_realtime_ns, now_ns - Ns(600));  // this test binary started recently
  // pid_max is at most 2^22: this pid cannot exist.
  EXPECT_EQ(ProcessTable::State::kGone, table.lookup(4'194'305).state);
}

}  // namespace
}  // namespace jitscope::cli
