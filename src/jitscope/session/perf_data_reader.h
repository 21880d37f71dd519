// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads a perf.data file that `perf record` wrote in file mode (perf's
// Documentation/perf.data-file-format.txt; the facts this reader rests on are in the shared
// reference "perf-data-and-unwinding.md", part A). Layout, native little-endian only:
//
//   header (104 bytes)  "PERFILE2", header size, attr size, {offset, size} of the attrs, the
//                       data and the legacy event types, a 256-bit feature bitmap
//   attrs               {perf_event_attr (attr size bytes); {offset, size} of its u64 ids}...
//   data                perf records, each {u32 type; u16 misc; u16 size} + payload
//   feature index       right after the data: {offset, size} per set feature bit, in bit order
//
// The records become the same SampleData a session's samples file gives (samples_file.h), decoded
// by the same code (perf_record.h) with each record's own attr's layout, so `report` has one
// pipeline. A record names its attr through its event id when the file has several; records
// inside PERF_RECORD_COMPRESSED (`perf record -z`) are decompressed with one zstd stream, a record
// may straddle two of them. They are written as they come to an unlinked temporary file
// (base::CreateTemporaryFile: $TMPDIR, /var/tmp or /tmp), which is read back mapped once the data
// section has been: a large -z recording's records then cost page cache, not the reader's memory.
// The file is foreign and untrusted: every read is bounds-checked (bounded_reader.h); damage in the
// data ends the reading with a message naming its offset, and everything read before it is kept.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/session/samples_file.h"

namespace jitscope::session {

inline constexpr char kPerfDataMagic[8] = {'P', 'E', 'R', 'F', 'I', 'L', 'E', '2'};

// Whether the file at `path` starts with perf.data's magic (either mode, either byte order, or the
// first version's "PERFFILE"): what `report` takes for a perf recording rather than a session.
bool LooksLikePerfData(const std::string& path);

struct PerfDataAttr {
  perf_event_attr attr{};  // the file's attr, zero-extended (or cut) to this header's size
  std::vector<uint64_t> ids;
  std::string name;  // HEADER_EVENT_DESC's ("cpu-clock"), "" if the file has none
  SampleLayout layout() const;
};

// HEADER_BUILD_ID: the build id perf saw for a file a process mapped.
struct PerfDataBuildId {
  int32_t pid = 0;       // -1 for the kernel
  std::string build_id;  // lowercase hex
  std::string filename;
};

struct PerfData {
  // The samples of `attrs[sampled_attr]`, every process's mappings, names and tasks, the counters.
  SampleData data;
  std::vector<PerfDataAttr> attrs;
  size_t sampled_attr = 0;  // the first attr that is not perf's dummy event
  // Every event stamped its times with CLOCK_MONOTONIC (`perf record -k 1`, or `-k mono`): the
  // clock of jitdumps and of the collector's traces.
  bool monotonic_clock = false;
  std::string arch;                       // HEADER_ARCH: uname's machine ("x86_64"), or ""
  std::vector<std::string> command_line;  // HEADER_CMDLINE: how perf was run
  std::vector<PerfDataBuildId> build_ids;
  uint64_t other_event_samples = 0;            // samples of other attrs (not in `data`)
  uint64_t unknown_id_records = 0;             // samples whose event id no attr lists
  uint64_t compressed_records = 0;             // PERF_RECORD_COMPRESSED records read
  std::map<uint32_t, uint64_t> unknown_types;  // record types this reader does not know, counted
  // "FILE: offset N: ..." when the records stopped before the data section's end; empty if not.
  std::string damage;
  // Things about the header worth telling (a feature section out of bounds, an unfinished file).
  std::vector<std::string> notes;
};

// Decodes a perf.data file held in `bytes`; `name` is what messages call it. Fails when the header
// or the attrs cannot be used (another format, a pipe-mode or directory-format recording, an attr
// section out of bounds); damage in the data is `damage`. The samples are in a copy of `bytes` the
// data holds (SampleData::copy), or in the records it decompressed (SampleData::decompressed).
base::StatusOr<PerfData> ParsePerfData(std::span<const uint8_t> bytes, std::string_view name);
// Maps and decodes the file at `path` (samples point into the mapping, kept in `data.file`, or
// into the decompressed records').
base::StatusOr<PerfData> ReadPerfDataFile(const std::string& path);

}  // namespace jitscope::session
