// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/base/status.h"

#include <cerrno>

#include <gtest/gtest.h>

namespace jitscope::base {
namespace {

TEST(StatusTest, OkHasNoMessage) {
  Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.message(), "");
}

TEST(StatusTest, ErrorFormatsItsMessage) {
  Status status = Status::Error("bad %s at %d", "record", 42);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "bad record at 42");
  EXPECT_EQ(status.errno_value(), 0);
}

TEST(StatusTest, ErrnoAppendsTheSystemMessageAndKeepsTheCode) {
  Status status = Status::Errno(ENOENT, "cannot open %s", "x");
  EXPECT_EQ(status.message(), "cannot open x: No such file or directory");
  EXPECT_EQ(status.errno_value(), ENOENT);
}

StatusOr<int> Half(int n) {
  if (n % 2 != 0) return Status::Error("%d is odd", n);
  return n / 2;
}

int evaluations = 0;
StatusOr<int> CountedHalf(int n) {
  ++evaluations;
  return Half(n);
}

Status QuarterInto(int n, int* out) {
  ASSIGN_OR_RETURN(int half, CountedHalf(n));
  ASSIGN_OR_RETURN(*out, CountedHalf(half));
  return Status::Ok();
}

TEST(StatusOrTest, AssignOrReturnEvaluatesItsArgumentOnce) {
  evaluations = 0;
  int out = 0;
  ASSERT_TRUE(QuarterInto(8, &out).ok());
  EXPECT_EQ(out, 2);
  EXPECT_EQ(evaluations, 2);
}

TEST(StatusOrTest, AssignOrReturnPropagatesTheError) {
  evaluations = 0;
  int out = -1;
  Status status = QuarterInto(6, &out);  // 6 / 2 = 3 is odd
  EXPECT_EQ(status.message(), "3 is odd");
  EXPECT_EQ(out, -1);
  EXPECT_EQ(evaluations, 2);
}

int status_evaluations = 0;
Status CountedCheck(bool ok) {
  ++status_evaluations;
  return ok ? Status::Ok() : Status::Error("failed");
}

Status CheckTwice(bool first, bool second) {
  RETURN_IF_ERROR(CountedCheck(first));
  RETURN_IF_ERROR(CountedCheck(second));
  return Status::Ok();
}

TEST(StatusTest, ReturnIfErrorEvaluatesOnceAndStopsAtTheFirstError) {
  status_evaluations = 0;
  EXPECT_EQ(CheckTwice(false, true).message(), "failed");
  EXPECT_EQ(status_evaluations, 1);
  status_evaluations = 0;
  EXPECT_TRUE(CheckTwice(true, true).ok());
  EXPECT_EQ(status_evaluations, 2);
}

}  // namespace
}  // namespace jitscope::base
