// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The samples file of a session directory (`samples.jss`). Format, version 1, little-endian:
//
//   offset 0   char[8]  magic "JSSAMPLE"
//          8   u32      version (kSamplesVersion)
//         12   u32      header size in bytes (48; a reader skips what it does not know; files
//                       of 32 bytes end after the flags and have no registers)
//         16   u64      perf sample_type of every PERF_RECORD_SAMPLE (perf_record.h's
//                       kSampleType, or kDwarfSampleType with registers and stack)
//         24   u64      flags: bit 0 = kernel frames were sampled
//         32   u64      sample_regs_user: which registers each sample holds (0 without)
//         40   u64      sample_stack_user: the stack bytes asked for per sample (0 without)
//         48   records: kernel perf records verbatim, in ring order — each a perf_event_header
//                       {u32 type; u16 misc; u16 size} followed by size - 8 bytes
//
// Records are copied from the ring unchanged, so recording costs one memcpy per record and the
// decoding rules live in one place (perf_record.h). A file cut short (the recorder was killed)
// ends in a torn record, which the reader counts and stops at: it is a normal end state
// (STYLE.md §9).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/files.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/formats/perf_record.h"

namespace jitscope::formats {

inline constexpr char kSamplesFileName[] = "samples.jss";
inline constexpr char kSamplesMagic[8] = {'J', 'S', 'S', 'A', 'M', 'P', 'L', 'E'};
inline constexpr uint32_t kSamplesVersion = 1;
inline constexpr uint32_t kSamplesHeaderSize = 48;
inline constexpr uint32_t kSamplesHeaderSizeWithoutRegisters = 32;
inline constexpr uint64_t kFlagKernel = 1;
// The vDSO of the recording's kernel, kept beside the samples: its code is sampled (clock_gettime)
// and its CFI is needed to unwind through it.
inline constexpr char kVdsoFileName[] = "vdso.so";

// What every sample of a file carries (header offsets 16, 32 and 40).
struct SamplesFormat {
  SampleLayout layout;
  uint64_t stack_size = 0;
  bool operator==(const SamplesFormat&) const = default;
};

// Appends records to a new samples file, buffered.
class SamplesWriter {
 public:
  // Creates `directory`/samples.jss exclusively, for samples of `format`.
  static base::StatusOr<SamplesWriter> Create(const std::string& directory, uint64_t flags,
                                              const SamplesFormat& format = {});

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
  uint64_t throttled = 0;          // PERF_RECORD_THROTTLE: the kernel paused sampling
  uint64_t malformed_records = 0;  // a record that failed to decode
  uint64_t unknown_records = 0;    // a record type we did not ask for
  uint64_t torn_tail_bytes = 0;    // an incomplete last record
  bool operator==(const SampleCounters&) const = default;
};

struct SampleData {
  uint64_t flags = 0;
  SamplesFormat format;
  // The bytes the samples' stack copies point into, when the reader mapped the file itself.
  std::shared_ptr<const base::MappedFile> file;
  // Records a reader decompressed (perf.data's PERF_RECORD_COMPRESSED): more bytes samples' stack
  // copies point into. Each string is allocated once and never moves.
  std::vector<std::unique_ptr<const std::string>> decompressed;
  std::vector<Sample> samples;
  std::vector<Mapping> mappings;
  std::vector<Comm> comms;
  std::vector<Task> tasks;
  SampleCounters counters;
};

// Files a decoded record into `data`'s lists and counters.
void AddRecord(PerfRecord&& record, SampleData& data);
// Sorts each of `data`'s lists by time, keeping the file's order among equal times.
void SortByTime(SampleData& data);

// Decodes a whole samples file into lists each sorted by time (the file itself is in drain
// order: one ring per CPU). Fails only when the header is not one of a samples file this
// version can read; damage after the header is counted in `counters`. Samples' stack copies
// point into `bytes`.
base::StatusOr<SampleData> ParseSamples(std::string_view bytes);
base::StatusOr<SampleData> ReadSamplesFile(const std::string& path);

}  // namespace jitscope::formats
