// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/record_stream.h"

#include <algorithm>
#include <utility>

#include "jitscope/trace/format.h"

namespace jitscope::trace {

base::StatusOr<RecordStream> RecordStream::Open(std::span<const uint8_t> bytes) {
  ASSIGN_OR_RETURN(const TraceLayout layout, ReadTraceLayout(bytes));
  RecordStream stream(bytes, layout, std::nullopt);
  stream.Scan();
  return stream;
}

base::StatusOr<RecordStream> RecordStream::Open(const std::string& path) {
  ASSIGN_OR_RETURN(base::MappedFile file, HoldFile(path));
  const std::span<const uint8_t> bytes(file.data(), file.size());
  auto layout = ReadTraceLayout(bytes);
  if (!layout.ok()) return layout.status().WithContext(path);
  RecordStream stream(bytes, *layout, std::move(file));
  stream.Scan();
  if (!stream.damage_.ok()) stream.damage_ = stream.damage_.WithContext(path);
  return stream;
}

RecordStream::RecordStream(std::span<const uint8_t> bytes, const TraceLayout& layout,
                           std::optional<base::MappedFile> file)
    : file_(std::move(file)), bytes_(bytes), layout_(layout), merge_(bytes, layout, {}) {}

void RecordStream::Scan() {
  RecordScanner scanner(bytes_, layout_, file_ ? &*file_ : nullptr);
  uint64_t last = 0;
  while (auto record = scanner.Next()) {
    if (runs_.empty() || record->timestamp < last) {
      runs_.push_back({record->timestamp, scanner.position(), 0});
    }
    ++runs_.back().left;
    last = record->timestamp;
  }
  stats_ = scanner.stats();
  damage_ = scanner.damage();
  // Runs are in file order, so a stable sort by first time puts runs that start at the same time
  // in file order.
  std::stable_sort(runs_.begin(), runs_.end(),
                   [](const Run& a, const Run& b) { return a.timestamp < b.timestamp; });
  merge_ = Merge(bytes_, layout_, runs_);
}

std::optional<Record> RecordStream::Next() { return merge_.Next(file_ ? &*file_ : nullptr); }

void RecordStream::ForEach(const RecordVisitor& visit) const {
  Merge merge(bytes_, layout_, runs_);
  while (const auto record = merge.Next(nullptr)) visit(*record);
}

// Whether run `a`'s next record comes after run `b`'s: later, or as early and further on in the
// file (two records of one time are never of one run and one place).
bool RecordStream::Merge::Later(size_t a, size_t b) const {
  const Run& x = runs_[a];
  const Run& y = runs_[b];
  if (x.timestamp != y.timestamp) return x.timestamp > y.timestamp;
  return x.next.record > y.next.record;
}

std::optional<Record> RecordStream::Merge::Next(const base::MappedFile* file) {
  const auto later = [this](size_t a, size_t b) { return Later(a, b); };
  for (;;) {
    // A run that starts no later than the earliest record of the merge joins it: every record of
    // a run that has not joined is later than that one.
    while (joined_ < runs_.size() &&
           (heap_.empty() || runs_[joined_].timestamp <= runs_[heap_.front()].timestamp)) {
      heap_.push_back(joined_++);
      std::push_heap(heap_.begin(), heap_.end(), later);
    }
    if (heap_.empty()) return std::nullopt;
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const size_t run_index = heap_.back();
    heap_.pop_back();
    Run& run = runs_[run_index];
    std::optional<Record> record;
    if (held_ && held_run_ == run_index) {
      record = std::move(held_);
    } else {
      scanner_.Seek(run.next);
      Touched(file, run.next.chunk, run.next.chunk + sizeof(ChunkHeader));
      record = scanner_.Next();
    }
    held_.reset();
    // The walk that found the run read it whole, so a walk over the same bytes reads it again.
    // Only a file changed since (by another process: the mapping is of the file) reads otherwise:
    // the run then ends where its records do.
    if (!record) continue;
    Touched(file, scanner_.position().record, scanner_.end());
    if (--run.left > 0) {
      held_ = scanner_.Next();
      if (held_) {
        held_run_ = run_index;
        run.timestamp = held_->timestamp;
        run.next = scanner_.position();
        heap_.push_back(run_index);
        std::push_heap(heap_.begin(), heap_.end(), later);
      }
    }
    return record;
  }
}

void RecordStream::Merge::Touched(const base::MappedFile* file, uint64_t begin, uint64_t end) {
  if (file == nullptr) return;
  touched_begin_ = std::min(touched_begin_, begin);
  touched_end_ = std::max(touched_end_, end);
  read_ += end - begin;
  if (read_ < base::MappedFile::kEvictEvery) return;
  file->Evict(touched_begin_, touched_end_);
  touched_begin_ = UINT64_MAX;
  touched_end_ = 0;
  read_ = 0;
}

}  // namespace jitscope::trace
