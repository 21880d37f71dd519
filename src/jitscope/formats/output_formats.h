// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The files the collector can write, by the names JITSCOPE_FORMATS uses. This is the one list:
// the collector parses its environment with it, and `jitscope record --formats` checks its value
// against it before anything runs, so the two can never disagree on what a format is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "jitscope/base/status.h"

namespace jitscope::formats {

enum OutputFormat : uint32_t {
  kFormatTrace = 1u << 0,    // the native trace, jit-<pid>.jsc
  kFormatJitdump = 1u << 1,  // perf's jitdump, jit-<pid>.dump (for perf inject --jit)
  kFormatPerfMap = 1u << 2,  // perf's map, perf-<pid>.map
};

// What the collector writes when JITSCOPE_FORMATS is unset or empty.
inline constexpr uint32_t kDefaultOutputFormats = kFormatTrace;

// The known names, comma-separated: "trace, jitdump, perfmap".
std::string KnownOutputFormats();

// A comma-separated list of names (blanks around each ignored, empty items skipped) as a set of
// OutputFormat bits. Fails on the first unknown name, or if no name is given, with a message that
// starts with `what` (where the list came from, e.g. "JITSCOPE_FORMATS") and names the culprit.
base::StatusOr<uint32_t> ParseOutputFormats(std::string_view list, const char* what);

}  // namespace jitscope::formats
