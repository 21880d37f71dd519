// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The native trace's layout (format.h) walked one record at a time, in file order: the header,
// then chunk after chunk, record after record. Both readers stand on it: ParseTrace (reader.h),
// which holds every record, and RecordStream (record_stream.h), which holds none. Every size and
// offset is checked before it is used; damage is counted and the first of it kept with its offset.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "jitscope/base/files.h"
#include "jitscope/base/status.h"
#include "jitscope/trace/event.h"
#include "jitscope/trace/reader.h"

namespace jitscope::trace {

// What the file header says, checked.
struct TraceLayout {
  TraceHeaderInfo header;
  uint64_t first_chunk = 0;  // where the first chunk starts
  uint32_t granule = 0;      // chunk alignment
};

// Fails only when `bytes` is not a trace at all (bad magic, unsupported version, header out of
// bounds). The header's views point into `bytes`.
base::StatusOr<TraceLayout> ReadTraceLayout(std::span<const uint8_t> bytes);

// A place to resume a walk at: the record at `record`, of the chunk at `chunk`.
struct ScanPosition {
  uint64_t chunk = 0;
  uint64_t record = 0;
};

class RecordScanner {
 public:
  // `file`, when `bytes` are its bytes: the walk gives back the pages it has passed
  // (MappedFile::Evict), so what it holds of a large file is a window, not all of it.
  RecordScanner(std::span<const uint8_t> bytes, const TraceLayout& layout,
                const base::MappedFile* file = nullptr)
      : bytes_(bytes), file_(file), granule_(layout.granule), next_chunk_(layout.first_chunk) {}

  // The next record that decodes, in file order; nullopt at the end of the file. Records of
  // unknown type, torn records and damaged parts are passed over and counted.
  std::optional<Record> Next();
  // Where the record Next() returned last starts.
  ScanPosition position() const { return {chunk_, record_}; }
  // Where that record ends.
  uint64_t end() const { return next_record_; }
  // Resumes the walk at a position a walk of the same bytes had (position()): Next() returns
  // that record again. A walk that resumes counts again what it passes over.
  void Seek(ScanPosition at);

  // What was passed over so far: counts, and the first damage (OK while there was none).
  const TraceStats& stats() const { return stats_; }
  const base::Status& damage() const { return damage_; }

 private:
  bool EnterNextChunk();
  void EnterChunk(uint64_t offset, uint32_t tid, uint64_t size);
  std::optional<Record> NextInChunk();
  void Damage(uint64_t offset, const char* what);
  void Passed(uint64_t offset);

  std::span<const uint8_t> bytes_;
  const base::MappedFile* file_ = nullptr;
  uint64_t evicted_ = 0;  // the file's pages before this one were given back
  uint32_t granule_ = 0;
  uint64_t next_chunk_ = 0;  // where to look for the chunk after this one
  bool in_chunk_ = false;
  bool ended_ = false;
  // The chunk being read: where it starts, the thread it holds records of, where its records end
  // and whether the file ends there (inside the chunk: it was cut short, reported once).
  uint64_t chunk_ = 0;
  uint32_t tid_ = 0;
  uint64_t chunk_end_ = 0;
  bool cut_ = false;
  uint64_t record_ = 0;  // the record Next() returned last
  uint64_t next_record_ = 0;
  TraceStats stats_;
  base::Status damage_;
};

}  // namespace jitscope::trace
