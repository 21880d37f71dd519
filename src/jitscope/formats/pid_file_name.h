// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// File names that carry a process id, such as perf's `perf-<pid>.map` and `jit-<pid>.dump`
// (perf's jitdump specification): consumers find these
// files by their exact name, so the writers and `jitscope clean` build and parse them here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jitscope::formats {

// "<prefix><pid><suffix>", the pid in decimal.
std::string PidFileName(std::string_view prefix, uint32_t pid, std::string_view suffix);

// The pid of a name of exactly that shape (decimal digits only, no sign, no leading zero, a
// value that fits a pid), or nullopt.
std::optional<uint32_t> ParsePidFileName(std::string_view name, std::string_view prefix,
                                         std::string_view suffix);

// The pid of a file of a chain (trace/chain.h): "<prefix><pid><extension>", or a later part of
// it, "<prefix><pid>.<n><extension>" (n decimal, no leading zero), such as jit-42.jsc,
// jit-42.1.jsc and frames-42.jsf; nullopt for any other name.
std::optional<uint32_t> ParseChainFileName(std::string_view name, std::string_view prefix,
                                           std::string_view extension);

}  // namespace jitscope::formats
