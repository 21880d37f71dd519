// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/session/session_info.h"

#include <fcntl.h>
#include <sys/file.h>

#include <filesystem>
#include <optional>

#include <gtest/gtest.h>

#include "jitscope/base/scoped_resource.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::session {
namespace {

TEST(SessionInfoTest, RoundTripAndReplace) {
  test_support::TempDir tmp;
  const SessionInfo info{.command = {"jitvm", "a b.jv", "7"},
                         .pid = 4242,
                         .frequency_hz = 997,
                         .start_time_ns = 123456789,
                         .attached = {}};
  ASSERT_TRUE(WriteSessionInfo(tmp.path(), info).ok());
  base::StatusOr<SessionInfo> read = ReadSessionInfo(tmp.path());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, info);
  // record writes it again when it ends: the new version replaces the old whole.
  SessionInfo later = info;
  later.command = {"x"};
  ASSERT_TRUE(WriteSessionInfo(tmp.path(), later).ok());
  read = ReadSessionInfo(tmp.path());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, later);
}

// The end of the recording: 0 while it records (and for good, when its recorder was killed), then
// its time; a session from before it says nothing, and counts as ended. A recorder still at it
// holds the directory (an exclusive flock), which tells the two unended ones apart.
TEST(SessionInfoTest, TheEndOfTheRecording) {
  test_support::TempDir tmp;
  SessionInfo info{
      .command = {"jitvm"}, .pid = 1, .frequency_hz = 1000, .start_time_ns = 5, .attached = {}};
  EXPECT_EQ(RecordingEndOf(tmp.path(), info), RecordingEnd::kEnded);
  info.end_time_ns = 0;
  ASSERT_TRUE(WriteSessionInfo(tmp.path(), info).ok());
  base::StatusOr<SessionInfo> read = ReadSessionInfo(tmp.path());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, info);
  EXPECT_EQ(RecordingEndOf(tmp.path(), *read), RecordingEnd::kCutShort);
  {
    base::ScopedFd recorder(::open(tmp.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_EQ(::flock(recorder.get(), LOCK_EX | LOCK_NB), 0);
    EXPECT_EQ(RecordingEndOf(tmp.path(), *read), RecordingEnd::kStillRecording);
  }
  EXPECT_EQ(RecordingEndOf(tmp.path(), *read), RecordingEnd::kCutShort);
  info.end_time_ns = 9;
  ASSERT_TRUE(WriteSessionInfo(tmp.path(), info).ok());
  read = ReadSessionInfo(tmp.path());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->end_time_ns, std::optional<uint64_t>(9));
  EXPECT_EQ(RecordingEndOf(tmp.path(), *read), RecordingEnd::kEnded);
}

// A process in a container: its pid there, its own mounts and root, and the files copied.
TEST(SessionInfoTest, NamespacedProcessRoundTrip) {
  test_support::TempDir tmp;
  SessionInfo info{.command = {},
                   .pid = 0,
                   .frequency_hz = 1000,
                   .start_time_ns = 5,
                   .attached = {{4321, {"node", "app.js"}, ""}, {4400, {"jitvm"}, "/t"}},
                   .system_wide = true};
  info.attached[0].ns_pid = 1;
  info.attached[0].own_mounts = true;
  info.attached[0].own_root = true;
  info.attached[0].copied = {"perf-4321.map", "pid-4321/jit-1.dump"};
  ASSERT_TRUE(WriteSessionInfo(tmp.path(), info).ok());
  EXPECT_EQ(test_support::ReadFile(tmp.path() + "/session.json"),
            "{\"command\":[],\"pid\":0,\"frequency_hz\":1000,\"start_time_ns\":5,"
            "\"attached\":[{\"pid\":4321,\"command\":[\"node\",\"app.js\"],"
            "\"collector_output_dir\":\"\",\"ns_pid\":1,\"own_mounts\":true,\"own_root\":true,"
            "\"copied\":[\"perf-4321.map\",\"pid-4321/jit-1.dump\"]},{\"pid\":4400,"
            "\"command\":[\"jitvm\"],\"collector_output_dir\":\"/t\"}],\"system_wide\":true}\n");
  base::StatusOr<SessionInfo> read = ReadSessionInfo(tmp.path());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, info);
  EXPECT_TRUE(read->attached[0].Elsewhere());
  EXPECT_FALSE(read->attached[1].Elsewhere());
  EXPECT_EQ(CopiesDirectories("s", *read), (std::map<std::string, uint32_t>{{"s/pid-4321", 4321}}));
}

// What a hostile session.json can name as copies: never a directory outside the session.
TEST(SessionInfoTest, CopiesAreOnlyInsideTheSession) {
  SessionInfo info;
  info.attached = {{7, {}, ""}};
  info.attached[0].copied = {"/etc/x",           "../x/y",          "a/../../b", "perf-7.map",
                             "pid-7/jit-1.dump", "pid-7/jit-1.jsc", "d/e/f"};
  EXPECT_EQ(CopiesDirectories("/s", info),
            (std::map<std::string, uint32_t>{{"/s/pid-7", 7}, {"/s/d/e", 7}}));
}

// A container's ELF files, copied: each path in its root with its copy, which may be another
// process's of the same build id.
TEST(SessionInfoTest, ElfCopiesRoundTrip) {
  test_support::TempDir tmp;
  SessionInfo info{.command = {},
                   .pid = 0,
                   .frequency_hz = 1000,
                   .start_time_ns = 5,
                   .attached = {{4300, {"a"}, ""}, {4321, {"b"}, ""}},
                   .system_wide = true};
  info.attached[0].own_root = true;
  info.attached[0].elf_copies = {{"/lib/libc.so.6", "pid-4300/root/lib/libc.so.6"}};
  info.attached[1].own_root = true;
  info.attached[1].elf_copies = {{"/usr/bin/b", "pid-4321/root/usr/bin/b"},
                                 {"/lib/libc.so.6", "pid-4300/root/lib/libc.so.6"}};
  ASSERT_TRUE(WriteSessionInfo(tmp.path(), info).ok());
  EXPECT_EQ(test_support::ReadFile(tmp.path() + "/session.json"),
            "{\"command\":[],\"pid\":0,\"frequency_hz\":1000,\"start_time_ns\":5,"
            "\"attached\":[{\"pid\":4300,\"command\":[\"a\"],\"collector_output_dir\":\"\","
            "\"own_root\":true,\"elf_copies\":[{\"path\":\"/lib/libc.so.6\",\"copy\":"
            "\"pid-4300/root/lib/libc.so.6\"}]},{\"pid\":4321,\"command\":[\"b\"],"
            "\"collector_output_dir\":\"\",\"own_root\":true,\"elf_copies\":[{\"path\":"
            "\"/usr/bin/b\",\"copy\":\"pid-4321/root/usr/bin/b\"},{\"path\":\"/lib/libc.so.6\","
            "\"copy\":\"pid-4300/root/lib/libc.so.6\"}]}],\"system_wide\":true}\n");
  base::StatusOr<SessionInfo> read = ReadSessionInfo(tmp.path());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, info);
  EXPECT_TRUE(CopiesDirectories(tmp.path(), *read).empty()) << "ELF copies hold no JIT files";
}

// The files a session.json names as a process's copies, to be read in place of its paths: only
// regular files inside the session, however a hostile file names them.
TEST(SessionInfoTest, ElfCopiesAreOnlyRegularFilesInsideTheSession) {
  test_support::TempDir tmp;
  const std::string session = tmp.path() + "/s";
  ASSERT_TRUE(std::filesystem::create_directories(session + "/pid-7/root/lib"));
  ASSERT_TRUE(std::filesystem::create_directories(session + "/pid-7/root/dir"));
  ASSERT_TRUE(test_support::WriteFile(session + "/pid-7/root/lib/a.so", "a"));
  ASSERT_TRUE(test_support::WriteFile(tmp.path() + "/outside.so", "o"));
  std::filesystem::create_symlink(tmp.path() + "/outside.so", session + "/pid-7/root/lib/out.so");
  std::filesystem::create_symlink("a.so", session + "/pid-7/root/lib/in.so");
  SessionInfo info;
  info.attached = {{7, {}, ""}, {8, {}, ""}};
  info.attached[0].elf_copies = {
      {"/lib/a.so", "pid-7/root/lib/a.so"},
      {"lib/a.so", "pid-7/root/lib/a.so"},            // not a path of its root
      {"/abs.so", session + "/pid-7/root/lib/a.so"},  // absolute
      {"/up.so", "../outside.so"},                    // climbs out
      {"/up2.so", "pid-7/../../outside.so"},          // climbs out
      {"/dot.so", "pid-7/./root/lib/a.so"},           // not in its plain form
      {"/empty.so", "pid-7//root/lib/a.so"},          // not in its plain form
      {"/none.so", ""},                               // nothing
      {"/link-out.so", "pid-7/root/lib/out.so"},      // a link out of the session
      {"/link-in.so", "pid-7/root/lib/in.so"},        // a link inside it
      {"/dir.so", "pid-7/root/dir"},                  // not a regular file
      {"/missing.so", "pid-7/root/lib/missing.so"}};  // not there
  info.attached[1].elf_copies = {{"/lib/a.so", "pid-7/root/lib/a.so"}};
  EXPECT_EQ(ElfCopies(session, info), (std::map<std::pair<uint32_t, std::string>, std::string>{
                                          {{7, "/lib/a.so"}, session + "/pid-7/root/lib/a.so"},
                                          {{7, "/link-in.so"}, session + "/pid-7/root/lib/in.so"},
                                          {{8, "/lib/a.so"}, session + "/pid-7/root/lib/a.so"}}));
  EXPECT_TRUE(ElfCopies(tmp.path() + "/gone", info).empty());
}

// record -p: the attached processes are written after the command's fields, and read back.
TEST(SessionInfoTest, AttachedProcessesRoundTrip) {
  test_support::TempDir tmp;
  const SessionInfo info{
      .command = {"sleep", "1"},
      .pid = 77,
      .frequency_hz = 1000,
      .start_time_ns = 5,
      .attached = {{1234, {"jitvm", "hotspot.jv"}, "/srv/traces"}, {1300, {}, ""}}};
  ASSERT_TRUE(WriteSessionInfo(tmp.path(), info).ok());
  EXPECT_EQ(test_support::ReadFile(tmp.path() + "/session.json"),
            "{\"command\":[\"sleep\",\"1\"],\"pid\":77,\"frequency_hz\":1000,\"start_time_ns\":5,"
            "\"attached\":[{\"pid\":1234,\"command\":[\"jitvm\",\"hotspot.jv\"],"
            "\"collector_output_dir\":\"/srv/traces\"},{\"pid\":1300,\"command\":[],"
            "\"collector_output_dir\":\"\"}]}\n");
  base::StatusOr<SessionInfo> read = ReadSessionInfo(tmp.path());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, info);
}

TEST(SessionInfoTest, SystemWideRoundTrip) {
  test_support::TempDir tmp;
  const SessionInfo info{.command = {},
                         .pid = 0,
                         .frequency_hz = 99,
                         .start_time_ns = 5,
                         .attached = {{1234, {"jitvm"}, "/srv/traces"}},
                         .system_wide = true};
  ASSERT_TRUE(WriteSessionInfo(tmp.path(), info).ok());
  EXPECT_EQ(test_support::ReadFile(tmp.path() + "/session.json"),
            "{\"command\":[],\"pid\":0,\"frequency_hz\":99,\"start_time_ns\":5,"
            "\"attached\":[{\"pid\":1234,\"command\":[\"jitvm\"],"
            "\"collector_output_dir\":\"/srv/traces\"}],\"system_wide\":true}\n");
  base::StatusOr<SessionInfo> read = ReadSessionInfo(tmp.path());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, info);
}

// What record asked of the JVMs (--jvm-perf-map, --jvm-agent) is written only when asked.
TEST(SessionInfoTest, JvmRequestsRoundTrip) {
  test_support::TempDir tmp;
  const SessionInfo info{.command = {"sleep", "1"},
                         .pid = 77,
                         .frequency_hz = 1000,
                         .start_time_ns = 5,
                         .attached = {{1234, {"java", "HotLoop"}, ""}},
                         .system_wide = false,
                         .jvm_perf_map = true,
                         .jvm_agent = true};
  ASSERT_TRUE(WriteSessionInfo(tmp.path(), info).ok());
  EXPECT_EQ(test_support::ReadFile(tmp.path() + "/session.json"),
            "{\"command\":[\"sleep\",\"1\"],\"pid\":77,\"frequency_hz\":1000,"
            "\"start_time_ns\":5,\"attached\":[{\"pid\":1234,\"command\":[\"java\","
            "\"HotLoop\"],\"collector_output_dir\":\"\"}],\"jvm_perf_map\":true,"
            "\"jvm_agent\":true}\n");
  base::StatusOr<SessionInfo> read = ReadSessionInfo(tmp.path());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, info);
}

TEST(SessionInfoTest, WrongShapesAreErrorsNotCrashes) {
  for (const char* text :
       {"",
        "[]",
        "{}",
        "{\"command\": \"jitvm\"}",
        "not json",
        "{\"command\": [1], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1}",
        "{\"command\": [], \"pid\": -1, \"frequency_hz\": 1, \"start_time_ns\": 1}",
        "{\"command\": [], \"pid\": 4294967296, \"frequency_hz\": 1, \"start_time_ns\": 1}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1.5, \"start_time_ns\": 1}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, "
        "\"attached\": {}}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, "
        "\"attached\": [7]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, "
        "\"attached\": [{\"pid\": 7, \"command\": []}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, "
        "\"attached\": [{\"pid\": 7, \"command\": [3], \"collector_output_dir\": \"\"}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, "
        "\"system_wide\": 1}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, "
        "\"jvm_agent\": \"yes\"}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, "
        "\"end_time_ns\": -1}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"ns_pid\": -1}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"own_root\": 1}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"copied\": [1]}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"copied\": \"x\"}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"elf_copies\": {}}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"elf_copies\": [\"x\"]}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"elf_copies\": "
        "[{\"path\": \"/a\"}]}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"elf_copies\": "
        "[{\"path\": \"/a\", \"copy\": 3}]}]}"}) {
    base::StatusOr<SessionInfo> info = ParseSessionInfo(text);
    ASSERT_FALSE(info.ok()) << text;
    EXPECT_EQ(info.status().message(), "not a jitscope session.json");
  }
  EXPECT_TRUE(
      ParseSessionInfo("{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1}")
          .ok());
}

}  // namespace
}  // namespace jitscope::session
