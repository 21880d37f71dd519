// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// ProcessNames: a process's name at a time, from its main thread's COMM records, and for a
// forked child that never exec'd, its parent's.
#include "jitscope/report/process_names.h"

#include <vector>

#include <gtest/gtest.h>

namespace jitscope::report {
namespace {

session::Comm Comm(uint32_t pid, uint32_t tid, uint64_t time, const char* name) {
  return {.pid = pid, .tid = tid, .time_ns = time, .exec = true, .name = name};
}

session::Task Fork(uint32_t pid, uint32_t ppid, uint64_t time) {
  return {.exit = false, .pid = pid, .ppid = ppid, .tid = pid, .ptid = ppid, .time_ns = time};
}

TEST(ProcessNamesTest, MainThreadsNameAtTheTimeAndForkedChildrenTheirParents) {
  const std::vector<session::Comm> comms = {
      Comm(10, 10, 100, "sh"),
      Comm(10, 11, 150, "worker"),  // a thread's name is not the process's
      Comm(10, 10, 200, "jitvm"),   // exec
      Comm(30, 30, 500, "node"),
  };
  const std::vector<session::Task> tasks = {
      Fork(20, 10, 300),  // never execs
      Fork(40, 20, 400),  // its child
      Fork(30, 10, 450),  // execs node at 500
      // A loop of parents in hostile records ends.
      Fork(50, 60, 10),
      Fork(60, 50, 10),
  };
  const ProcessNames names(comms, tasks);
  EXPECT_EQ(names.NameAt(10, 150), "sh");
  EXPECT_EQ(names.NameAt(10, 200), "jitvm");
  EXPECT_EQ(names.NameAt(10, 50), "sh") << "before the first COMM: the first one";
  EXPECT_EQ(names.NameAt(20, 350), "jitvm") << "the parent's as of the fork";
  EXPECT_EQ(names.NameAt(40, 450), "jitvm");
  EXPECT_EQ(names.NameAt(30, 600), "node");
  EXPECT_EQ(names.NameAt(30, 460), "jitvm") << "forked, before its exec";
  EXPECT_EQ(names.NameAt(99, 100), "");
  EXPECT_EQ(names.NameAt(0, 100), "swapper") << "the idle task, sampled by record -a";
  EXPECT_EQ(names.NameAt(50, 100), "");
}

session::Task NewThread(uint32_t pid, uint32_t tid, uint32_t creator, uint64_t time) {
  return {.exit = false, .pid = pid, .ppid = pid, .tid = tid, .ptid = creator, .time_ns = time};
}

// A thread is named by its own COMM records; before its first, it bears the name of the thread
// that started it (pthread_create copies it), and one recorded without a start or a name bears
// its process's.
TEST(ProcessNamesTest, EveryThreadHasItsOwnNameAtTheTime) {
  const std::vector<session::Comm> comms = {
      Comm(10, 10, 100, "node"),
      Comm(10, 11, 300, "V8 Worker"),  // renamed after it started
      Comm(10, 12, 400, "libuv-worker"),
  };
  const std::vector<session::Task> tasks = {
      NewThread(10, 11, 10, 200),  // started by the main thread
      NewThread(10, 13, 11, 500),  // started by the worker: its name
  };
  const ProcessNames names(comms, tasks);
  EXPECT_EQ(names.ThreadNameAt(10, 10, 150), "node");
  EXPECT_EQ(names.ThreadNameAt(10, 11, 250), "node") << "started by main, not renamed yet";
  EXPECT_EQ(names.ThreadNameAt(10, 11, 350), "V8 Worker");
  EXPECT_EQ(names.ThreadNameAt(10, 13, 600), "V8 Worker");
  EXPECT_EQ(names.ThreadNameAt(10, 12, 350), "libuv-worker") << "no start recorded: its first";
  EXPECT_EQ(names.ThreadNameAt(10, 14, 350), "node") << "nothing recorded: its process's";
  EXPECT_EQ(names.NameAt(10, 350), "node") << "the process keeps its main thread's name";
}

}  // namespace
}  // namespace jitscope::report
