// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The perf map sink: its lines, and that it never writes where it should not (perf_map_sink.h).
#include "jitscope/collector/perf_map_sink.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "sink_test_support.h"
#include "support/files.h"
#include "support/hex.h"
#include "support/temp_dir.h"

namespace jitscope::collector {
namespace {

using testing::CodeRecord;

using test_support::ReadFile;

TEST(PerfMapSink, OneLinePerRegionNamedByItsMethod) {
  test_support::TempDir dir;
  auto sink = PerfMapSink::Create(dir.path(), 31337);
  ASSERT_TRUE(sink.ok()) << sink.status().message();
  EXPECT_EQ(dir.path() + "/perf-31337.map", (*sink)->path());
  struct stat st {};
  ASSERT_EQ(0, ::stat((*sink)->path().c_str(), &st));
  EXPECT_EQ(0600u, st.st_mode & 0777);

  char code[64];
  auto write = [&](const trace::Record& record) {
    EXPECT_EQ(EventSink::Result::kOk, (*sink)->Write(record));
  };
  write(CodeRecord(1, {.method_id = 5, .address = code, .size = 16, .name = "first"}));
  write(CodeRecord(2, {.method_id = 5, .address = code + 32, .size = 8, .name = "alias"}));
  write(CodeRecord(3, {.api_event = trace::kEventMethodInlineLoadFinished,
                       .method_id = 6,
                       .parent_method_id = 5,
                       .address = code + 4,
                       .size = 4,
                       .name = "inl"}));
  write(CodeRecord(4, {.api_event = trace::kEventMethodLoadFinishedV2,
                       .method_id = 7,
                       .address = code + 48,
                       .size = 0x10,
                       .name = "k",
                       .module = "dnn"}));
  write(CodeRecord(
      5,
      {.api_event = trace::kEventMethodUpdate, .method_id = 7, .address = code + 48, .size = 8}));
  write(trace::Record{6, 1, trace::RangeUpdateEvent{reinterpret_cast<uintptr_t>(code), 4, 1, {}}});
  write(trace::Record{7, 1, trace::UnloadEvent{5}});
  write(CodeRecord(8, {.method_id = 5, .address = code, .size = 16, .name = "reused id"}));
  write(trace::Record{9, 1, trace::ShutdownEvent{}});
  // Method 5 loses all its code to method 10, so when id 5 comes back it is a new method.
  write(CodeRecord(10, {.method_id = 10, .address = code, .size = 32, .name = "over"}));
  write(CodeRecord(11, {.method_id = 5, .address = code + 32, .size = 8, .name = "again"}));
  // A perf map's addresses: hexadecimal digits alone.
  const auto at = [&](size_t offset) {
    return test_support::HexDigits(reinterpret_cast<uintptr_t>(code + offset));
  };
  EXPECT_EQ(at(0) + " 10 first\n" +          //
                at(32) + " 8 first\n" +      // split region: the first name wins
                at(48) + " 10 dnn!k\n" +     //
                at(48) + " 8 dnn!k\n" +      // METHOD_UPDATE
                at(0) + " 10 reused id\n" +  // after the unload, the id starts afresh
                at(0) + " 20 over\n" +       //
                at(32) + " 8 again\n",       // after being overwritten, too
            ReadFile((*sink)->path()));
}

TEST(PerfMapSink, NeverTouchesAnExistingMap) {
  test_support::TempDir dir;
  const std::string path = dir.path() + "/perf-99.map";
  { std::ofstream(path) << "1000 10 oneDNN's kernel\n"; }
  auto sink = PerfMapSink::Create(dir.path(), 99);
  ASSERT_FALSE(sink.ok());
  EXPECT_NE(std::string::npos, sink.status().message().find("already exists"))
      << sink.status().message();
  EXPECT_EQ("1000 10 oneDNN's kernel\n", ReadFile(path));
}

TEST(PerfMapSink, NeverFollowsAPlantedLink) {
  test_support::TempDir dir;
  const std::string target = dir.path() + "/victim";
  { std::ofstream(target) << "precious\n"; }
  ASSERT_EQ(0, ::symlink(target.c_str(), (dir.path() + "/perf-99.map").c_str()));
  auto sink = PerfMapSink::Create(dir.path(), 99);
  ASSERT_FALSE(sink.ok());
  EXPECT_NE(std::string::npos, sink.status().message().find("symbolic link"))
      << sink.status().message();
  EXPECT_EQ("precious\n", ReadFile(target));
}

TEST(PerfMapSink, NeverAppendsToAnotherUsersFile) {
  ASSERT_EQ(0u, ::geteuid()) << "this test must run as root: it gives a file to another user";
  test_support::TempDir dir;
  const std::string path = dir.path() + "/perf-99.map";
  { std::ofstream(path) << "theirs\n"; }
  ASSERT_EQ(0, ::chown(path.c_str(), 65534, 65534));
  auto sink = PerfMapSink::Create(dir.path(), 99);
  ASSERT_FALSE(sink.ok());
  EXPECT_NE(std::string::npos, sink.status().message().find("another user (uid 65534)"))
      << sink.status().message();
  EXPECT_EQ("theirs\n", ReadFile(path));
}

TEST(PerfMapSink, ConcurrentLinesNeverInterleave) {
  test_support::TempDir dir;
  auto sink = PerfMapSink::Create(dir.path(), 1);
  ASSERT_TRUE(sink.ok()) << sink.status().message();
  constexpr int kThreads = 4, kLines = 500;
  static char code[kThreads];
  const std::string long_name(300, 'x');
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kLines; ++i) {
        (*sink)->Write(CodeRecord(1, {.method_id = static_cast<uint32_t>(t * kLines + i + 1),
                                      .address = &code[t],
                                      .size = 1,
                                      .name = long_name}));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::istringstream lines(ReadFile((*sink)->path()));
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_TRUE(line.ends_with(" 1 " + long_name)) << line;
  }
  EXPECT_EQ(kThreads * kLines, count);
}

}  // namespace
}  // namespace jitscope::collector
