// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: `jitscope record` SIGKILLed while it records. What it had recorded is in its session
// up to its last moments, in either call-graph mode (it wrote nothing for seconds: its buffer, or
// with --call-graph dwarf its batch of 32 MiB, had not filled), and `report` says the recording
// was cut short (it said the command had ended before the first sample).
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "jitscope/base/clock.h"
#include "jitscope/report/profile_builder.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::report {
namespace {

constexpr char kStillRecording[] =
    "jitscope record is still recording this session: what it has written so far is shown";
constexpr char kCutShort[] =
    "the recording was cut short: jitscope record was killed before it ended, and the samples of "
    "its last moments are missing";

bool Warns(const Profile& profile, const std::string& warning) {
  return std::find(profile.warnings.begin(), profile.warnings.end(), warning) !=
         profile.warnings.end();
}

class KilledRecordTest : public ::testing::TestWithParam<const char*> {};

// Killed once its command has used 0.3 s, 1 s and 2.5 s of CPU time (moments of the command's,
// not of the clock, however busy the machine): the last sample in the session is at most a second
// older than the kill. A kill within the recording's first second may find no sample in the file
// (a sanitized recorder's first batch can still be on its way): that second is what may be lost.
TEST_P(KilledRecordTest, LosesAtMostTheLastSecondAndReportSaysItWasCutShort) {
  for (const long ticks : {30L, 100L, 250L}) {
    SCOPED_TRACE(std::to_string(ticks) + " ticks");
    test_support::TempDir dir;
    const std::string session = dir.path() + "/session";
    const std::string stop = dir.path() + "/stop";
    const uint64_t started_at = base::MonotonicNowNs();
    test_support::Process record({JITSCOPE_CLI, "record", "-o", session, "--call-graph", GetParam(),
                                  "--", "/bin/sh", "-c", "while [ ! -e \"$0\" ]; do :; done", stop},
                                 {}, {.timeout = std::chrono::seconds(300)});
    const pid_t command = test_support::WaitForChild(record.pid(), "sh", ticks);
    ASSERT_NE(command, 0) << "the command never ran";

    // While it records, its session reads as far as it goes, and says so.
    base::StatusOr<Profile> running = BuildProfile(session, BuildOptions{});
    ASSERT_TRUE(running.ok()) << running.status().message();
    EXPECT_TRUE(Warns(*running, kStillRecording));

    const uint64_t killed_at = base::MonotonicNowNs();
    ASSERT_EQ(::kill(record.pid(), SIGKILL), 0);
    std::ofstream(stop).put('\n');  // the command outlives record: ended by hand
    const test_support::ProcessResult killed = record.Wait();
    EXPECT_EQ(killed.signal, SIGKILL) << killed.Describe();

    base::StatusOr<Profile> profile = BuildProfile(session, BuildOptions{});
    ASSERT_TRUE(profile.ok()) << profile.status().message();
    if (profile->total_samples == 0) {
      EXPECT_LT(killed_at - started_at, 1'000'000'000u)
          << "killed " << (killed_at - started_at) / 1'000'000
          << " ms after the recording began, with no sample in the session";
      EXPECT_EQ(profile->no_samples_reason,
                "jitscope record was killed before its first samples reached the file");
    } else {
      EXPECT_LE(profile->end_time_ns, killed_at);
      EXPECT_LE(killed_at - std::min(killed_at, profile->end_time_ns), 1'000'000'000u)
          << "the last sample in the session is " << (killed_at - profile->end_time_ns) / 1'000'000
          << " ms older than the kill";
    }
    EXPECT_TRUE(Warns(*profile, kCutShort));
    EXPECT_FALSE(Warns(*profile, kStillRecording));
  }
}

INSTANTIATE_TEST_SUITE_P(CallGraphs, KilledRecordTest, ::testing::Values("fp", "dwarf"));

}  // namespace
}  // namespace jitscope::report
