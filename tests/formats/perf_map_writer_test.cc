// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/perf_map_writer.h"

#include <gtest/gtest.h>

#include "jitscope/formats/jitdump_writer.h"
#include "jitscope/formats/pid_file_name.h"

namespace jitscope::formats {
namespace {

TEST(PerfMapWriter, LineIsLowercaseHexWithoutPrefix) {
  EXPECT_EQ("7f00abcd0000 1f4 engine!run loop\n",
            FormatPerfMapLine(0x7f00abcd0000, 500, "engine!run loop"));
}

TEST(PerfMapWriter, LineBreaksInANameBecomeSpaces) {
  EXPECT_EQ("10 2 a b c\n", FormatPerfMapLine(0x10, 2, "a\nb\rc"));
}

TEST(PerfMapWriter, AnEmptyNameIsStillALine) {
  EXPECT_EQ("10 2 [unnamed]\n", FormatPerfMapLine(0x10, 2, ""));
}

TEST(PerfMapWriter, FileNames) {
  EXPECT_EQ("perf-4242.map", PerfMapFileName(4242));
  EXPECT_EQ(4242u, ParsePerfMapFileName("perf-4242.map"));
  EXPECT_EQ("jit-17.dump", JitdumpFileName(17));
  EXPECT_EQ(17u, ParseJitdumpFileName("jit-17.dump"));
  EXPECT_EQ("/tmp", kPerfMapDirectory);
}

TEST(PidFileName, RejectsAnythingButAPlainPid) {
  for (const char* name : {"perf-.map", "perf-042.map", "perf-42.map.bak", "perf-4x2.map",
                           "perf--1.map", "perf-+1.map", "perf-99999999999.map", "xperf-1.map",
                           "perf-1.mapx", "perf-2147483648.map"}) {
    EXPECT_EQ(std::nullopt, ParsePidFileName(name, "perf-", ".map")) << name;
  }
  EXPECT_EQ(2147483647u, ParsePidFileName("perf-2147483647.map", "perf-", ".map"));
  EXPECT_EQ(1u, ParsePidFileName("perf-1.map", "perf-", ".map"));
}

TEST(PidFileName, ChainsAreThePidsFileAndItsNumberedParts) {
  EXPECT_EQ(42u, ParseChainFileName("jit-42.jsc", "jit-", ".jsc"));
  EXPECT_EQ(42u, ParseChainFileName("jit-42.1.jsc", "jit-", ".jsc"));
  EXPECT_EQ(42u, ParseChainFileName("jit-42.17.jsc", "jit-", ".jsc"));
  EXPECT_EQ(7u, ParseChainFileName("frames-7.jsf", "frames-", ".jsf"));
  for (const char* name :
       {"jit-42.jsc.partial", "jit-42..jsc", "jit-42.01.jsc", "jit-42.x.jsc", "jit-42.1.2.jsc",
        "jit-.jsc", "jit-042.jsc", "frames-7.jsc", "jit-42.dump", "jit-42.-1.jsc"}) {
    EXPECT_EQ(std::nullopt, ParseChainFileName(name, "jit-", ".jsc")) << name;
  }
}

}  // namespace
}  // namespace jitscope::formats
