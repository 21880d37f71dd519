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
// Records are copied from the ring unchanged (but an unwound file's samples, which replace the
// --call-graph dwarf samples they were unwound from, and the samples `record` unwound while it
// recorded, of jitscope's own record type perf_record.h's kRecordUnwoundSample, in a file whose
// other samples are the kernel's), so recording costs one memcpy per record and
// the decoding rules live in one place (perf_record.h). A file cut short (the recorder was killed)
// ends in a torn record, which the reader counts and stops at: it is a normal end state
// (as SIGKILL leaves it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/file_window.h"
#include "jitscope/base/files.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/session/perf_record.h"

namespace jitscope::session {

inline constexpr char kSamplesFileName[] = "samples.jss";
inline constexpr char kSamplesMagic[8] = {'J', 'S', 'S', 'A', 'M', 'P', 'L', 'E'};
inline constexpr uint32_t kSamplesVersion = 1;
inline constexpr uint32_t kSamplesHeaderSize = 48;
inline constexpr uint32_t kSamplesHeaderSizeWithoutRegisters = 32;
inline constexpr uint64_t kFlagKernel = 1;
inline constexpr uint64_t kFlagUnwound = 2;
// The vDSO of the recording's kernel, kept beside the samples: its code is sampled (clock_gettime)
// and its CFI is needed to unwind through it.
inline constexpr char kVdsoFileName[] = "vdso.so";

// What every sample of a file carries (header offsets 16, 32 and 40).
struct SamplesFormat {
  SampleLayout layout;
  uint64_t stack_size = 0;
  bool operator==(const SamplesFormat&) const = default;
};

// The header of a samples file of `format` (kFlagUnwound is set in `flags` when
// format.layout.unwound).
std::string EncodeSamplesHeader(uint64_t flags, const SamplesFormat& format);

// How often a recorder checkpoints its sink (RecordSink::Checkpoint): a killed recorder loses
// about the samples of its last interval, and of what its sink has not finished writing.
inline constexpr uint64_t kCheckpointIntervalNs = 250'000'000;

// Where a recorder's records go, in the order it drains them: the samples file as recorded
// (SamplesWriter), or a writer that unwinds the samples as they come
// (walk/recording_unwinder.h).
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual base::Status Append(std::string_view record) = 0;
  // Everything appended is in the file.
  virtual base::Status Flush() = 0;
  // The recorder calls this every so often (kCheckpointIntervalNs), on the thread that appends:
  // what was appended so far is to reach the file soon, without the recorder waiting for it, so
  // that a recorder killed meanwhile loses only its last moments.
  virtual base::Status Checkpoint() { return Flush(); }
  // The bytes of the records in the file so far.
  virtual uint64_t records_bytes() const = 0;
};

// Appends records to a new samples file, buffered.
class SamplesWriter : public RecordSink {
 public:
  // Creates `directory`/`name` exclusively, for samples of `format` (kFlagUnwound is set in
  // `flags` when format.layout.unwound).
  static base::StatusOr<SamplesWriter> Create(const std::string& directory, uint64_t flags,
                                              const SamplesFormat& format = {},
                                              const char* name = kSamplesFileName);

  SamplesWriter(SamplesWriter&&) = default;
  SamplesWriter& operator=(SamplesWriter&&) = default;
  ~SamplesWriter() override;

  base::Status Append(std::string_view record) override;
  base::Status Flush() override;
  // The bytes of the records appended so far, as written (stack copies cut).
  uint64_t records_bytes() const override { return records_bytes_; }

 private:
  SamplesWriter(base::ScopedFd fd, const SampleLayout& layout)
      : fd_(std::move(fd)), layout_(layout) {}
  base::ScopedFd fd_;
  SampleLayout layout_;
  std::string buffer_;
  uint64_t records_bytes_ = 0;
  Sample scratch_;   // what a sample is decoded into to cut its stack copy
  std::string cut_;  // the sample with its copy cut
};

// What a reader skipped or the kernel dropped; `report` prints the non-zero ones.
struct SampleCounters {
  uint64_t lost_samples = 0;       // PERF_RECORD_LOST: the ring was full
  uint64_t throttled = 0;          // PERF_RECORD_THROTTLE: the kernel paused sampling
  uint64_t malformed_records = 0;  // a record that failed to decode
  uint64_t unknown_records = 0;    // a record type we did not ask for
  uint64_t torn_tail_bytes = 0;    // an incomplete last record
  bool operator==(const SampleCounters&) const = default;
};

// A recording's samples, each kept as the record it was read as, where the reader read it (the
// mapped file, or the records perf.data's reader decompressed), and decoded again when it is used.
// An entry is where its record is, a pointer, where a decoded Sample, with its call chain,
// registers and stack view, is hundreds of bytes (docs/performance.md, "Reports at a million
// samples"); a report aggregates them one at a time instead (SampleData::ForEachSample).
// Every record was decoded when it was added, and its bytes do not change, so decoding it again
// gives the same sample.
class SampleList {
 public:
  // Each sample decoded in turn; `*it` is a Sample of its own (SampleData::ForEachSample reuses
  // one, for a pass over all of them).
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Sample;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Sample;
    Iterator() = default;
    Iterator(const SampleList* list, size_t index) : list_(list), index_(index) {}
    Sample operator*() const { return (*list_)[index_]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    bool operator==(const Iterator&) const = default;

   private:
    const SampleList* list_ = nullptr;
    size_t index_ = 0;
  };

  // The layout every sample of the list has (a perf.data's samples are of its sampled attr's).
  const SampleLayout& layout() const { return layout_; }
  void set_layout(const SampleLayout& layout) { layout_ = layout; }

  // Appends the sample record `record` (its header and all its bytes), which must stay where it
  // is as long as the list does: or `kept_at`, if not null, holds the same bytes and does (the
  // record is a passing copy of them). Fails, adding nothing, when it does not decode.
  base::Status Add(std::string_view record, const char* kept_at = nullptr);
  // Appends `record`, already decoded: a sample of process `pid` taken at `time_ns`.
  void Append(std::string_view record, uint64_t time_ns, uint32_t pid);
  // Makes room for as many samples as `bytes` of records of layout() can hold. The room is
  // reserved, not used: memory the list never fills is never touched, so it costs no more than
  // address space, where growing by doubling would hold the old entries and the new at once.
  void ReserveFor(size_t bytes);

  size_t size() const { return records_.size(); }
  bool empty() const { return records_.empty(); }
  // The processes with samples, ascending: known without a pass over the samples.
  const std::vector<uint32_t>& pids() const { return pids_; }
  // Read from the record's first bytes, without decoding the rest (a call chain, a stack copy):
  // a pass that needs only the times touches no more of the file than that.
  uint64_t time_ns(size_t i) const;
  // The i-th sample's record, as it was added; where it starts, without reading it.
  std::string_view record(size_t i) const;
  const char* record_start(size_t i) const { return records_[i]; }
  // The i-th sample, decoded into `out` (whose call chain's capacity is reused).
  void Decode(size_t i, Sample& out) const;
  Sample operator[](size_t i) const;
  Sample front() const { return (*this)[0]; }
  Sample back() const { return (*this)[size() - 1]; }
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

  // Puts the samples in time order, keeping the order they were added in among equal times.
  // `file`, if not null, holds records of the list: their times are read through `window` (over
  // the same file), if not null, or from the mapping, evicting it behind.
  void SortByTime(const base::MappedFile* file = nullptr, base::FileWindow* window = nullptr);

 private:
  // Where a record's PERF_SAMPLE_TIME is.
  size_t TimeOffset() const;

  SampleLayout layout_;
  std::vector<const char*> records_;  // each a perf_event_header, whose size says how long it is
  std::vector<uint32_t> pids_;
  // The samples were added in time order (what a recorder draining one busy CPU writes): then
  // there is nothing to sort.
  bool in_time_order_ = true;
  uint64_t last_time_ns_ = 0;
  uint32_t last_pid_ = 0;
  // Each record was added after the one before it in memory (the records of one file): then the
  // order of their addresses is the order they were added in.
  bool ascending_ = true;
  Sample scratch_;  // what Add decodes into, so adding allocates nothing per sample
};

struct SampleData {
  uint64_t flags = 0;
  SamplesFormat format;
  // The bytes the samples' records are in, when the reader mapped the file itself.
  std::shared_ptr<const base::MappedFile> file;
  // The file `file` maps, open: passes over all the samples read their records from it through
  // a base::FileWindow rather than touch the mapping. Not open: they read the mapping.
  base::ScopedFd file_fd;
  // The records a reader decompressed (perf.data's PERF_RECORD_COMPRESSED), which it wrote to an
  // unlinked temporary file and mapped: more bytes samples' records are in, paged like `file`'s
  // rather than held in memory.
  std::shared_ptr<const base::MappedFile> decompressed;
  // The bytes a reader was given rather than mapped itself (ParseSamples, ParsePerfData), which
  // it copied: the samples' records are in them, so the data stands on its own.
  std::unique_ptr<const std::string> copy;
  SampleList samples;
  std::vector<Mapping> mappings;
  std::vector<Comm> comms;
  std::vector<Task> tasks;
  std::vector<Switch> switches;  // with record --switch-events (perf record's too)
  SampleCounters counters;

  // Calls `visit` with each sample in order, decoded into one Sample that is reused (a stack
  // copy it points to is valid only during the call). The records are read through a window of
  // `file_fd` (base::FileWindow), or, without it, from the mappings, whose pages that only samples
  // already visited are in are given back as it goes (base::MappedFile::Evict): either way a pass
  // over a file of any size keeps only a window of it in memory.
  void ForEachSample(const std::function<void(const Sample&)>& visit) const;
};

// A samples file's header, as the reader reads it.
struct SamplesHeader {
  uint64_t flags = 0;
  SamplesFormat format;
  uint32_t size = 0;  // where the records begin
};
// Fails when `bytes` do not begin with a header of a samples file this version can read.
base::StatusOr<SamplesHeader> ReadSamplesHeader(std::string_view bytes);

// The record at `offset` of `bytes` (a samples file's records, each a perf_event_header and its
// bytes), or nullopt when what is left there is torn: shorter than a header, or than the size
// its header says.
std::optional<std::string_view> RecordAt(std::string_view bytes, size_t offset);

// Files a decoded record, `bytes` as decoded, into `data`'s lists and counters. (A reader adds
// samples with SampleList::Add, which decodes one without allocating.)
void AddRecord(std::string_view bytes, PerfRecord&& record, SampleData& data);
// Sorts each of `data`'s lists by time, keeping the file's order among equal times.
void SortByTime(SampleData& data);

// Decodes a whole samples file into lists each sorted by time (the file itself is in drain
// order: one ring per CPU). Fails only when the header is not one of a samples file this
// version can read; damage after the header is counted in `counters`. The samples are in a copy
// of `bytes` the data holds (SampleData::copy).
base::StatusOr<SampleData> ParseSamples(std::string_view bytes);
// The same, keeping `bytes` itself rather than a copy.
base::StatusOr<SampleData> ParseOwnedSamples(std::string bytes);
base::StatusOr<SampleData> ReadSamplesFile(const std::string& path);

}  // namespace jitscope::session
