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

}  // namespace
}  // namespace jitscope::report
