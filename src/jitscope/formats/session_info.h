// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `session.json` of a session directory: what was recorded, so a report can say it. Written by
// `jitscope record` before the command starts; a session without it (an older one, or one
// assembled by hand) is still reported, without a title.
//
//   {"command": ["jitvm", "hotspot.jv", "1000"], "pid": 1234, "frequency_hz": 1000,
//    "start_time_ns": 123456789}
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::formats {

inline constexpr char kSessionInfoFileName[] = "session.json";

struct SessionInfo {
  std::vector<std::string> command;
  uint32_t pid = 0;  // of the command
  uint64_t frequency_hz = 0;
  uint64_t start_time_ns = 0;  // CLOCK_MONOTONIC
  bool operator==(const SessionInfo&) const = default;
};

base::Status WriteSessionInfo(const std::string& directory, const SessionInfo& info);
// Fails when the file is missing or not a session.json this version understands.
base::StatusOr<SessionInfo> ReadSessionInfo(const std::string& directory);
// The same for the file's bytes (hostile input: any bytes give a value or an error).
base::StatusOr<SessionInfo> ParseSessionInfo(std::string_view bytes);

}  // namespace jitscope::formats
