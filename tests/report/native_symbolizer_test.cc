// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// NativeSymbolizer on this test binary itself (built with -g): a demangled C++ name with its
// file:line, and an inlined function reported as an inline frame at its own line, followed by
// the function it was inlined into at the call's line.
#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "jitscope/report/native_symbolizer.h"
#include "jitscope/walk/process_maps.h"

namespace jitscope::report::testing_probe {

volatile int g_sink = 0;

[[gnu::noinline]] void* ReturnAddress() {
  g_sink = g_sink + 1;
  return __builtin_return_address(0);
}

constexpr int kInlinedLine = __LINE__ + 3;
[[gnu::always_inline]] inline void* InlinedHelper(int round) {
  g_sink = g_sink + round;
  void* where = ReturnAddress();  // the call inside the inlined body
  g_sink = g_sink + 1;            // keeps the call from being a tail call
  return where;
}

constexpr int kCallerLine = __LINE__ + 2;
[[gnu::noinline]] void* OuterFunction(int round) {
  void* where = InlinedHelper(round);
  g_sink = g_sink + 1;
  return where;
}

}  // namespace jitscope::report::testing_probe

namespace jitscope::report {
namespace {

// The file that holds `address` in this process, and the address's offset in it, as a MMAP
// record would give them.
std::pair<std::string, uint64_t> FileOffsetOf(const void* address) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  char line[4096];
  std::pair<std::string, uint64_t> result;
  const auto target = reinterpret_cast<uint64_t>(address);
  while (maps != nullptr && std::fgets(line, sizeof(line), maps) != nullptr) {
    unsigned long start = 0, end = 0, offset = 0;
    char path[4096] = {};
    if (std::sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end, &offset, path) == 4 &&
        target >= start && target < end) {
      result = {path, target - start + offset};
    }
  }
  if (maps != nullptr) std::fclose(maps);
  return result;
}

TEST(NativeSymbolizerTest, InlineChainWithDemangledNamesAndLines) {
  void* return_address = testing_probe::OuterFunction(1);
  // A return address lies after the call; the call itself is one byte back.
  auto [path, offset] = FileOffsetOf(static_cast<char*>(return_address) - 1);
  ASSERT_FALSE(path.empty());
  NativeSymbolizer symbolizer;
  const std::vector<Location>& frames = symbolizer.Symbolize(path, offset);
  ASSERT_EQ(frames.size(), 2u) << (frames.empty() ? "" : frames[0].function);
  EXPECT_EQ(frames[0].function, "jitscope::report::testing_probe::InlinedHelper(int)");
  EXPECT_TRUE(frames[0].inlined);
  EXPECT_TRUE(frames[0].file.ends_with("tests/report/native_symbolizer_test.cc")) << frames[0].file;
  EXPECT_EQ(frames[0].line, static_cast<uint32_t>(testing_probe::kInlinedLine));
  EXPECT_EQ(frames[1].function, "jitscope::report::testing_probe::OuterFunction(int)");
  EXPECT_FALSE(frames[1].inlined);
  EXPECT_EQ(frames[1].line, static_cast<uint32_t>(testing_probe::kCallerLine));
  EXPECT_EQ(frames[1].module, path);
  EXPECT_EQ(frames[1].kind, FrameKind::kNative);
  EXPECT_TRUE(symbolizer.unreadable_files().empty());
}

TEST(NativeSymbolizerTest, UnreadableFilesGiveNoFramesAndAreListedOnce) {
  NativeSymbolizer symbolizer;
  EXPECT_TRUE(symbolizer.Symbolize("/nonexistent/libgone.so", 0x1000).empty());
  EXPECT_TRUE(symbolizer.Symbolize("/nonexistent/libgone.so", 0x2000).empty());
  EXPECT_EQ(symbolizer.unreadable_files(), std::vector<std::string>{"/nonexistent/libgone.so"});
}

TEST(NativeSymbolizerTest, DemangleLeavesPlainNamesAlone) {
  EXPECT_EQ(Demangle("_ZN3foo3barEv"), "foo::bar()");
  EXPECT_EQ(Demangle("memcpy"), "memcpy");
  EXPECT_EQ(Demangle("_Znot-a-symbol"), "_Znot-a-symbol");
}

session::Mapping MakeMapping(uint32_t pid, uint64_t time, uint64_t start, uint64_t length,
                             std::string file) {
  session::Mapping m;
  m.pid = pid;
  m.tid = pid;
  m.time_ns = time;
  m.start = start;
  m.length = length;
  m.filename = std::move(file);
  return m;
}

TEST(ProcessMapsTest, LatestMappingAtTheTimeAndInheritedAcrossFork) {
  const std::vector<session::Mapping> mappings = {
      MakeMapping(10, 100, 0x1000, 0x1000, "/old"),
      MakeMapping(10, 300, 0x1000, 0x1000, "/new"),
      MakeMapping(10, 400, 0x8000, 0x100000, "/big"),
      MakeMapping(11, 500, 0x1000, 0x800, "/child"),
  };
  session::Task fork;
  fork.pid = 11;
  fork.ppid = 10;
  fork.tid = 11;
  fork.ptid = 10;
  fork.time_ns = 200;
  const walk::ProcessMaps maps(mappings, {fork});
  EXPECT_EQ(maps.Find(10, 0x1800, 50), nullptr);
  EXPECT_EQ(maps.Find(10, 0x1800, 200)->filename, "/old");
  EXPECT_EQ(maps.Find(10, 0x1800, 300)->filename, "/new");
  EXPECT_EQ(maps.Find(10, 0x10'0000, 900)->filename, "/big");
  EXPECT_EQ(maps.Find(10, 0x2000, 900), nullptr);
  // The child: its own mapping first; otherwise what its parent had at the fork (not later).
  EXPECT_EQ(maps.Find(11, 0x1100, 600)->filename, "/child");
  EXPECT_EQ(maps.Find(11, 0x1900, 600)->filename, "/old");
  EXPECT_EQ(maps.Find(12, 0x1900, 600), nullptr);
}

}  // namespace
}  // namespace jitscope::report
