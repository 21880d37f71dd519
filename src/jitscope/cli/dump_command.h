// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope dump [--json] FILE`: prints every record of a native trace, or of an OProfile JIT dump
// (dump_oprofile.h), one stable line (or one JSON object) per record. It is the main test
// instrument (tests compare its output exactly), so its output is exact and deterministic: raw
// CLOCK_MONOTONIC nanoseconds, hex addresses, quoted strings.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace jitscope::cli {

struct DumpOptions {
  std::string path;
  bool json = false;
};

// Prints the dump to `out`; on damage, prints what was readable, then one error line to `err`.
// Returns the process exit code.
int RunDump(const DumpOptions& options, std::FILE* out, std::FILE* err);

// Shared by the dump printers: a string as a JSON-quoted one-line form ("-" for absent), bytes as
// lowercase hex, a JSON value on one line.
std::string Quote(std::optional<std::string_view> s);
std::string HexBytes(std::span<const uint8_t> bytes);
std::string DumpJson(const nlohmann::json& value);

}  // namespace jitscope::cli
