// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The perf map (tools/perf/Documentation/jit-interface.txt): a text file `perf-<pid>.map` in /tmp,
// one symbol per line, "START SIZE name\n" with START and SIZE in hexadecimal without "0x". The one
// place that knows the file's name, where perf looks for it, and the shape of a line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jitscope::formats {

// perf reads maps only from here (util/symbol.c: "/tmp/perf-%d.map"); writers may be pointed
// elsewhere for tests.
inline constexpr std::string_view kPerfMapDirectory = "/tmp";

std::string PerfMapFileName(uint32_t pid);  // "perf-<pid>.map"
std::string PerfMapPath(uint32_t pid);      // where perf looks: "/tmp/perf-<pid>.map"
std::optional<uint32_t> ParsePerfMapFileName(std::string_view name);

// One line: lowercase hex without "0x" (what every reader accepts, §7 item 6), single spaces,
// and always a final '\n' (perf drops the last character of every line, §3.1). perf reads the
// name as the rest of the line, so a line break inside it becomes a space; perf skips a line with
// an empty name, so an empty name is written as "[unnamed]".
std::string FormatPerfMapLine(uint64_t start, uint64_t size, std::string_view name);

}  // namespace jitscope::formats
