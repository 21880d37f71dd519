// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/session_info.h"

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::formats {
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
       {"", "[]", "{}", "{\"command\": \"jitvm\"}", "not json",
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
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"ns_pid\": -1}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"own_root\": 1}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"copied\": [1]}]}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1, \"attached\": "
        "[{\"pid\": 7, \"command\": [], \"collector_output_dir\": \"\", \"copied\": \"x\"}]}"}) {
    base::StatusOr<SessionInfo> info = ParseSessionInfo(text);
    ASSERT_FALSE(info.ok()) << text;
    EXPECT_EQ(info.status().message(), "not a jitscope session.json");
  }
  EXPECT_TRUE(
      ParseSessionInfo("{\"command\": [], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1}")
          .ok());
}

}  // namespace
}  // namespace jitscope::formats
