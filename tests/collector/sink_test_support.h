// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Helpers for the sink tests: events built the way the collector's decoder builds them (views
// into the caller's memory).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "jitscope/trace/event.h"

namespace jitscope::testing {

struct CodeSpec {
  uint32_t api_event = trace::kEventMethodLoadFinished;
  uint32_t method_id = 0;
  uint32_t parent_method_id = 0;
  const void* address = nullptr;
  uint32_t size = 0;
  std::optional<std::string_view> name;
  std::optional<std::string_view> source_file;
  std::optional<std::string_view> module;
  std::span<const trace::LineEntry> lines;
};

inline trace::Record CodeRecord(uint64_t timestamp, const CodeSpec& spec, uint32_t tid = 1) {
  trace::CodeEvent code;
  code.api_event = spec.api_event;
  code.method_id = spec.method_id;
  code.parent_method_id = spec.parent_method_id;
  code.address = reinterpret_cast<uintptr_t>(spec.address);
  code.size = spec.size;
  code.name = spec.name;
  code.source_file = spec.source_file;
  code.module = spec.module;
  code.lines = spec.lines;
  return trace::Record{timestamp, tid, code};
}

}  // namespace jitscope::testing
