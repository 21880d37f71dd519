// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/session_info.h"

#include <gtest/gtest.h>

#include "../support/subprocess.h"

namespace jitscope::formats {
namespace {

TEST(SessionInfoTest, RoundTripAndNoOverwrite) {
  test_support::TempDir tmp;
  const SessionInfo info{{"jitvm", "a b.jv", "7"}, 4242, 997, 123456789};
  ASSERT_TRUE(WriteSessionInfo(tmp.path(), info).ok());
  base::StatusOr<SessionInfo> read = ReadSessionInfo(tmp.path());
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, info);
  EXPECT_FALSE(WriteSessionInfo(tmp.path(), info).ok()) << "an existing file is never replaced";
}

TEST(SessionInfoTest, WrongShapesAreErrorsNotCrashes) {
  for (const char* text :
       {"", "[]", "{}", "{\"command\": \"jitvm\"}", "not json",
        "{\"command\": [1], \"pid\": 1, \"frequency_hz\": 1, \"start_time_ns\": 1}",
        "{\"command\": [], \"pid\": -1, \"frequency_hz\": 1, \"start_time_ns\": 1}",
        "{\"command\": [], \"pid\": 4294967296, \"frequency_hz\": 1, \"start_time_ns\": 1}",
        "{\"command\": [], \"pid\": 1, \"frequency_hz\": 1.5, \"start_time_ns\": 1}"}) {
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
