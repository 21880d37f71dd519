// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/signal_forwarder.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace jitscope::record {
namespace {

void OwnHandler(int) {}

struct sigaction Current(int signal_number) {
  struct sigaction now {};
  ::sigaction(signal_number, nullptr, &now);
  return now;
}

TEST(SignalForwarderTest, ForwardsSigtermToTheChildAndRestoresTheOldHandlers) {
  // Forked first, so the child keeps the default action: SIGTERM ends it.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  struct sigaction own {};
  own.sa_handler = OwnHandler;
  struct sigaction old_int {
  }, old_term{};
  ASSERT_EQ(::sigaction(SIGINT, &own, &old_int), 0);
  ASSERT_EQ(::sigaction(SIGTERM, &own, &old_term), 0);

  {
    SignalForwarder forwarder(child);
    EXPECT_NE(Current(SIGTERM).sa_handler, OwnHandler);
    ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);  // not from a terminal: forwarded
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
  }
  EXPECT_EQ(Current(SIGINT).sa_handler, OwnHandler);
  EXPECT_EQ(Current(SIGTERM).sa_handler, OwnHandler);
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
}

}  // namespace
}  // namespace jitscope::record
