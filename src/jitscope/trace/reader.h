// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads a native trace (format.h). Every file is treated as hostile: each size and offset is
// checked before it is used, a damaged part is reported with its offset and skipped, and what
// a crash leaves behind (a torn last record, claimed-but-empty chunks, the zero tail of the
// last segment) is a normal end state, counted but not an error.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/files.h"
#include "jitscope/base/status.h"
#include "jitscope/trace/event.h"

namespace jitscope::trace {

struct TraceHeaderInfo {
  uint32_t version = 0;
  uint32_t pid = 0;
  uint32_t pointer_size = 0;
  uint64_t start_monotonic_ns = 0;
  uint64_t start_realtime_ns = 0;
  std::string_view exe_path;
  std::array<uint8_t, 16> image{};  // the program image (format.h); all zero: unknown
};

struct TraceStats {
  uint64_t chunks = 0;
  uint64_t records = 0;
  uint64_t torn_records = 0;     // a record started but never published (the process died)
  uint64_t unknown_records = 0;  // record types this reader does not know (newer writer)
  uint64_t damaged_regions = 0;  // parts of the file that are neither records nor empty
};

// The parsed content of a trace. Views point into the bytes it was parsed from.
struct ParsedTrace {
  TraceHeaderInfo header;
  std::vector<Record> records;  // in time order; records of equal time keep file order
  TraceStats stats;
  base::Status damage;  // the first damage found, with its offset; OK for an intact file
};

// Fails only when `bytes` is not a trace at all (bad magic, unsupported version, header out of
// bounds); damage past the header is reported in ParsedTrace::damage.
base::StatusOr<ParsedTrace> ParseTrace(std::span<const uint8_t> bytes);

// True when `bytes` starts with the native trace magic (for format detection).
bool LooksLikeTrace(std::span<const uint8_t> bytes);

// The bytes of the file at `path`, mapped; but a trace whose process still runs is copied into
// memory instead: its collector cuts it short when the process ends (writer.h trims the zeros of
// its last segment), and reading the cut-off pages of a mapping would raise SIGBUS (`jitscope
// report` of a process that is still running, or record's unwinding at the end of `-p`).
base::StatusOr<base::MappedFile> HoldFile(const std::string& path);

// A trace file mapped into memory together with what was parsed from it.
class TraceFile {
 public:
  static base::StatusOr<TraceFile> Open(const std::string& path);

  const ParsedTrace& trace() const { return trace_; }

 private:
  TraceFile(base::MappedFile file, ParsedTrace trace)
      : file_(std::move(file)), trace_(std::move(trace)) {}
  base::MappedFile file_;
  ParsedTrace trace_;
};

}  // namespace jitscope::trace
