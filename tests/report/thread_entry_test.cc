// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// One root per path: which frames are a thread's entry, and which of them a stack keeps.
#include "jitscope/report/thread_entry.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace jitscope::report {
namespace {

Location Native(const std::string& function) {
  return Location{function, "/lib/x86_64-linux-gnu/libc.so.6", "", 0, FrameKind::kNative, false};
}

TEST(ThreadEntryTest, GlibcsEntryFunctionsAreNativeFramesOfTheirNames) {
  for (const char* name : {"_start", "__libc_start_main", "__libc_start_main_impl",
                           "__libc_start_call_main", "start_thread", "clone", "clone3", "__clone",
                           "__clone3", "__GI___clone", "__GI___clone3"}) {
    EXPECT_TRUE(IsThreadEntry(Native(name))) << name;
  }
  EXPECT_TRUE(IsThreadEntry(Native("__libc_start_main@GLIBC_2.2.5")));
  EXPECT_TRUE(IsThreadEntry(Native("__libc_start_main@@GLIBC_2.34")));
  EXPECT_FALSE(IsThreadEntry(Native("main")));
  EXPECT_FALSE(IsThreadEntry(Native("main@GLIBC_2.2.5")));
  EXPECT_FALSE(IsThreadEntry(Native("_start2")));
  Location jit = Native("_start");
  jit.kind = FrameKind::kJit;  // JIT code named like one is not glibc's
  EXPECT_FALSE(IsThreadEntry(jit));
  Location inlined = Native("start_thread");
  inlined.inlined = true;
  EXPECT_FALSE(IsThreadEntry(inlined));
}

TEST(ThreadEntryTest, NativeCodeWithoutASymbolIsNamedByItsFileOffset) {
  Location unnamed{"prog+0x10f0", "/usr/bin/prog", "", 0, FrameKind::kNative, false};
  EXPECT_TRUE(IsUnnamedNative(unnamed));
  EXPECT_FALSE(IsUnnamedNative(Native("main")));
  EXPECT_TRUE(IsUnnamedNative(Native("libc.so.6+0x10")));
  EXPECT_FALSE(IsUnnamedNative(Native("ld.so+0x10")));  // another file's name
  unnamed.kind = FrameKind::kJit;
  EXPECT_FALSE(IsUnnamedNative(unnamed));
}

// Frames are location ids, leaf first; ids 100 and above stand for entry functions, 50 to 99 for
// unnamed native code.
std::vector<uint32_t> Trimmed(std::vector<uint32_t> frames) {
  TrimOutsideThreadEntry(frames, [](uint32_t location) {
    return location >= 100  ? RootKind::kThreadEntry
           : location >= 50 ? RootKind::kUnnamed
                            : RootKind::kOther;
  });
  return frames;
}

TEST(ThreadEntryTest, AStackKeepsTheInnermostOfTheEntryFramesItEndsWith) {
  // main (1) under __libc_start_call_main (102), __libc_start_main_impl (101), _start (100).
  EXPECT_EQ(Trimmed({3, 2, 1, 102, 101, 100}), (std::vector<uint32_t>{3, 2, 1, 102}));
  // The walk that stopped at __libc_start_call_main gives the same stack.
  EXPECT_EQ(Trimmed({3, 2, 1, 102}), (std::vector<uint32_t>{3, 2, 1, 102}));
  // A thread's: start_thread (110) under clone3 (111), or without it.
  EXPECT_EQ(Trimmed({5, 110, 111}), (std::vector<uint32_t>{5, 110}));
  EXPECT_EQ(Trimmed({5, 110}), (std::vector<uint32_t>{5, 110}));
  // A sample in the entry code itself keeps its innermost frame.
  EXPECT_EQ(Trimmed({102, 101, 100}), (std::vector<uint32_t>{102}));
  EXPECT_EQ(Trimmed({100}), (std::vector<uint32_t>{100}));
  // Only the run the stack ends with: an entry function's name inside a stack stays.
  EXPECT_EQ(Trimmed({1, 110, 2, 102}), (std::vector<uint32_t>{1, 110, 2, 102}));
  EXPECT_EQ(Trimmed({}), (std::vector<uint32_t>{}));
  // A stack that does not end in one keeps all it has.
  EXPECT_EQ(Trimmed({1, 2, 3}), (std::vector<uint32_t>{1, 2, 3}));
}

// A stripped program: its `_start` (50) and `main` (51) have no names; the run goes through them,
// and its innermost entry frame is the root.
TEST(ThreadEntryTest, UnnamedFramesOfTheRunAreLeftOutToo) {
  EXPECT_EQ(Trimmed({52, 51, 102, 101, 50}), (std::vector<uint32_t>{52, 51, 102}));
  EXPECT_EQ(Trimmed({52, 51, 102}), (std::vector<uint32_t>{52, 51, 102}));
  // Unnamed frames alone are no entry: nothing is left out.
  EXPECT_EQ(Trimmed({1, 51, 50}), (std::vector<uint32_t>{1, 51, 50}));
}

}  // namespace
}  // namespace jitscope::report
