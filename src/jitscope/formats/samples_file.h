// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The samples file of a session directory (`samples.jss`). Format, version 1, little-endian:
//
//   offset 0   char[8]  magic "JSSAMPLE"
//          8   u32      version (kSamplesVersion)
//         12   u32      header size in bytes (32; a reader skips what it does not know)
//         16   u64      perf sample_type of every PERF_RECORD_SAMPLE (perf_record.h's kSampleType)
//         24   u64      flags: bit 0 = kernel frames were sampled
//         32   records: kernel perf records verbatim, in ring order — each a perf_event_header
//                       {u32 type; u16 misc; u16 size} followed by size - 8 bytes
//
// Records are copied from the ring unchanged, so recording costs one memcpy per record and the
// decoding rules live in one place (perf_record.h). A file cut short (the recorder was killed)
// ends in a torn record, which the reader counts and stops at: it is a normal end state
// (STYLE.md §9).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/formats/perf_record.h"

namespace jitscope::formats {

inline constexpr char kSamplesFileName[] = "samples.jss";
inline constexpr char kSamplesMagic[8] = {'J', 'S', 'S', 'A', 'M', 'P', 'L', 'E'};
inline constexpr uint32_t kSamplesVersion = 1;
inline constexpr uint32_t kSamplesHeaderSize = 32;
inline constexpr uint64_t kFlagKernel = 1;

// Appends records to a new samples file, buffered.
class SamplesWriter {
 public:
  // Creates `directory`/samples.jss exclusively.
  static base::StatusOr<SamplesWriter> Create(const std::string& directory, uint64_t flags);

  SamplesWriter(SamplesWriter&&) = default;
  SamplesWriter& operator=(SamplesWriter&&) = default;
  ~SamplesWriter();

  base::Status Append(std::string_view record);
  base::Status Flush();

 private:
  explicit SamplesWriter(base::ScopedFd fd) : fd_(std::move(fd)) {}
  base::ScopedFd fd_;
  std::string buffer_;
};

// What a reader skipped or the kernel dropped; `report` prints the non-zero ones (STYLE.md §8).
struct SampleCounters {
  uint64_t lost_samples = 0;       // PERF_RECORD_LOST: the ring was full
  uint64_t malformed_records = 0;  // a record that failed to decode
  uint64_t unknown_records = 0;    // a record type we did not ask for
  uint64_t torn_tail_bytes = 0;    // an incomplete last record
  bool operator==(const SampleCounters&) const = default;
};

struct SampleData {
  uint64_t flags = 0;
  std::vector<Sample> samples;
  std::vector<Mapping> mappings;
  std::vector<Comm> comms;
  std::vector<Task> tasks;
  SampleCounters counters;
};

// Decodes a whole samples file into lists each sorted by time (the file itself is in drain
// order: one ring per CPU). Fails only when the header is not one of a samples file this
// version can read; damage after the header is counted in `counters`.
base::StatusOr<SampleData> ParseSamples(std::string_view bytes);
base::StatusOr<SampleData> ReadSamplesFile(const std::string& path);

}  // namespace jitscope::formats
