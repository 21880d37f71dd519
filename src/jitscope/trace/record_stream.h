// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A native trace's records one at a time, in the order ParseTrace (reader.h) gives them — time
// order, records of equal time in file order — without holding them: for a reader that is done
// with each record before it asks for the next (`jitscope dump`). ParseTrace's vector of records
// took ~170 bytes a record, 21 GB for a trace of 800 MB.
//
// How: a first walk over the file counts what it holds (so stats() and damage() are known before
// the first record) and splits its records, in file order, into runs that never go back in time.
// A thread's records are in time order, and its chunks are in the file in time order, so a
// collector's trace has a run per chunk at the most (one run in all when one thread reported).
// Next() merges the runs: a run joins the merge when the merge reaches its first time, and each
// record is decoded again when its turn comes. What is held is 32 bytes a run, and of the file a
// window (its pages are given back behind the reader). A hostile file whose every other record
// goes back in time is a run per two records: about as many bytes again as the file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "jitscope/base/files.h"
#include "jitscope/base/status.h"
#include "jitscope/trace/event.h"
#include "jitscope/trace/reader.h"
#include "jitscope/trace/record_scanner.h"

namespace jitscope::trace {

// Records in time order, walked as often as a reader needs: `walk(visit)` calls `visit` on each.
using RecordVisitor = std::function<void(const Record&)>;
using RecordWalk = std::function<void(const RecordVisitor&)>;

class RecordStream {
 public:
  // Fails as ParseTrace does, only when `bytes` is not a trace at all. The records' views point
  // into `bytes`.
  static base::StatusOr<RecordStream> Open(std::span<const uint8_t> bytes);
  // The trace at `path`, held as HoldFile holds it; every message starts with `path`.
  static base::StatusOr<RecordStream> Open(const std::string& path);

  const TraceHeaderInfo& header() const { return layout_.header; }
  // The whole file's counts and first damage, as ParseTrace's.
  const TraceStats& stats() const { return stats_; }
  const base::Status& damage() const { return damage_; }

  // The next record; nullopt after the last.
  std::optional<Record> Next();
  // Calls `visit` on every record, in the same order, on a walk of its own (Next() is not moved
  // on): for a reader that reads the trace more than once. Gives back no pages of the file.
  void ForEach(const RecordVisitor& visit) const;

 private:
  // A run's next record: when it arrived, where it is, and how many the run has left.
  struct Run {
    uint64_t timestamp = 0;
    ScanPosition next;
    uint64_t left = 0;
  };
  // One walk over the runs, merging them.
  class Merge {
   public:
    Merge(std::span<const uint8_t> bytes, const TraceLayout& layout, std::vector<Run> runs)
        : runs_(std::move(runs)), scanner_(bytes, layout) {}
    // `file`, when the bytes are its: the pages read are given back every so often.
    std::optional<Record> Next(const base::MappedFile* file);

   private:
    bool Later(size_t a, size_t b) const;
    void Touched(const base::MappedFile* file, uint64_t begin, uint64_t end);

    std::vector<Run> runs_;     // by first time, then in file order
    size_t joined_ = 0;         // runs_[0, joined_) have joined the merge
    std::vector<size_t> heap_;  // the joined runs with records left: the earliest first
    RecordScanner scanner_;
    // The record the scanner read last, of run `held_run_`: the run's next, read to learn its
    // time and position. When that run's turn comes again, it is this record, and the scanner is
    // past it.
    std::optional<Record> held_;
    size_t held_run_ = 0;
    // The part of the file read since its pages were last given back.
    uint64_t touched_begin_ = UINT64_MAX;
    uint64_t touched_end_ = 0;
    uint64_t read_ = 0;
  };

  RecordStream(std::span<const uint8_t> bytes, const TraceLayout& layout,
               std::optional<base::MappedFile> file);
  void Scan();

  std::optional<base::MappedFile> file_;
  std::span<const uint8_t> bytes_;
  TraceLayout layout_;
  TraceStats stats_;
  base::Status damage_;
  std::vector<Run> runs_;  // by first time, then in file order
  Merge merge_;            // Next()'s
};

}  // namespace jitscope::trace
