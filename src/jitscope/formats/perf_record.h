// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Decodes one kernel perf record (linux/perf_event.h, perf_event_open(2) "MMAP layout") of the
// layout a session's samples file holds (kSampleType, what `jitscope record` asks the kernel for):
// samples with IP|TID|TIME|CALLCHAIN, and MMAP/MMAP2, COMM,
// FORK/EXIT and LOST records carrying the sample_id_all trailer {pid, tid, time}. Every length is
// checked against the record's size before use; a malformed record is an error value, never a
// crash (STYLE.md §8, "Don't crash on input").
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::formats {

// What every sample of a session carries, in perf_event_open(2)'s field order
// ("PERF_RECORD_SAMPLE"). The sampler asks for it, the samples file records it in its header.
inline constexpr uint64_t kSampleType =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;

// One frame of a call chain. The kernel separates the kernel and user parts of a chain with
// PERF_CONTEXT_* markers; we turn the markers into this flag and drop them.
struct Frame {
  uint64_t ip = 0;
  bool kernel = false;
  bool operator==(const Frame&) const = default;
};

struct Sample {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time_ns = 0;
  uint64_t ip = 0;
  std::vector<Frame> callchain;  // leaf first, as the kernel writes it
};

// An executable mapping (MMAP or MMAP2).
struct Mapping {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time_ns = 0;
  uint64_t start = 0;
  uint64_t length = 0;
  uint64_t file_offset = 0;
  std::string filename;  // "//anon", "[vdso]", a path, ...
};

struct Comm {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time_ns = 0;
  bool exec = false;  // PERF_RECORD_MISC_COMM_EXEC: the name changed because of an exec
  std::string name;
};

// FORK or EXIT of a thread or process.
struct Task {
  bool exit = false;
  uint32_t pid = 0;
  uint32_t ppid = 0;
  uint32_t tid = 0;
  uint32_t ptid = 0;
  uint64_t time_ns = 0;
};

struct Lost {
  uint64_t count = 0;
};

// A record type we do not ask for (throttling, ...): kept so the caller can count it.
struct Other {
  uint32_t type = 0;
};

using PerfRecord = std::variant<Sample, Mapping, Comm, Task, Lost, Other>;

// Decodes `bytes`, which must hold exactly one record (its header's size equals bytes.size()).
base::StatusOr<PerfRecord> ParsePerfRecord(std::string_view bytes);

}  // namespace jitscope::formats
