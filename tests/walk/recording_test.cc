// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/recording.h"

#include <gtest/gtest.h>

namespace jitscope::walk {
namespace {

TEST(RecordingTest, RefusedEventsByReason) {
  EXPECT_EQ(DescribeRejectedEvents({}), "");
  EXPECT_EQ(DescribeRejectedEvents({{trace::RejectReason::kZeroSize, 0}}), "");
  EXPECT_EQ(DescribeRejectedEvents({{trace::RejectReason::kNullName, 1}}),
            "the collector refused 1 event the JIT reported (null_name: 1); 'jitscope dump' "
            "lists them");
  EXPECT_EQ(DescribeRejectedEvents(
                {{trace::RejectReason::kNullName, 2}, {trace::RejectReason::kZeroSize, 1}}),
            "the collector refused 3 events the JIT reported (null_name: 2, zero_size: 1); "
            "'jitscope dump' lists them");
}

}  // namespace
}  // namespace jitscope::walk
