// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/trace_sink.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>

#include "jitscope/base/files.h"
#include "jitscope/collector/live_records.h"
#include "jitscope/collector/readable_code.h"
#include "jitscope/trace/reader.h"
#include "jitscope/trace/record_codec.h"

namespace jitscope::collector {

base::StatusOr<std::unique_ptr<TraceSink::File>> TraceSink::CreateFile(int& attempt) {
  constexpr int kAttempts = 100;
  base::Status last;
  for (const int limit = attempt + kAttempts; attempt < limit; ++attempt) {
    char name[64];
    if (attempt == 0) {
      std::snprintf(name, sizeof(name), "jit-%u.jsc", identity_.pid);
    } else {
      std::snprintf(name, sizeof(name), "jit-%u.%d.jsc", identity_.pid, attempt);
    }
    auto fd = base::CreateExclusive(directory_, name, 0600);
    if (!fd.ok()) {
      last = fd.status();
      if (last.errno_value() == EEXIST)
        continue;  // a file (or a planted link) is there: try the next name
      return last;
    }
    auto writer = trace::TraceWriter::Create(std::move(fd).value(), identity_, options_.writer);
    if (!writer.ok()) {
      // A full disk: no empty file is left behind.
      const std::string path = directory_ + "/" + name;
      ::unlink(path.c_str());
      return writer.status().WithContext(path);
    }
    auto file = std::make_unique<File>();
    file->writer = std::move(writer).value();
    file->name = name;
    ++attempt;
    return file;
  }
  return last;
}

base::StatusOr<std::unique_ptr<TraceSink>> TraceSink::Create(const std::string& directory,
                                                             const trace::TraceIdentity& identity,
                                                             const Options& options, Log log) {
  std::unique_ptr<TraceSink> sink(new TraceSink(directory, identity, options, std::move(log)));
  ASSIGN_OR_RETURN(std::unique_ptr<File> file, sink->CreateFile(sink->next_attempt_));
  if (options.max_size != 0) file->continue_at = options.max_size;
  sink->first_path_ = directory + "/" + file->name;
  sink->current_.store(file.get(), std::memory_order_release);
  sink->files_.push_back(std::move(file));
  return sink;
}

base::Status TraceSink::error() const {
  const File* file = current_.load(std::memory_order_acquire);
  return file->writer->error().WithContext(directory_ + "/" + file->name);
}

namespace {

// iJIT_CT_DATA (jitprofiling.h, iJIT_SegmentType): an UPDATE_V2 of data changes no code.
constexpr uint32_t kSegmentData = 2;

// The region whose code an event places in memory, if any: top-level loads and METHOD_UPDATE
// (an inline instance's bytes are its parent's), and UPDATE_V2 of anything but data.
std::optional<trace::CodeBytesEvent> CodeRegionOf(const trace::Event& event) {
  if (const auto* code = std::get_if<trace::CodeEvent>(&event)) {
    if (code->api_event == trace::kEventMethodInlineLoadFinished) return std::nullopt;
    return trace::CodeBytesEvent{code->address, code->size, {}};
  }
  if (const auto* update = std::get_if<trace::RangeUpdateEvent>(&event)) {
    if (update->segment_type == kSegmentData) return std::nullopt;
    return trace::CodeBytesEvent{update->address, update->size, {}};
  }
  return std::nullopt;
}

EventSink::Result ResultOf(trace::TraceWriter::AppendResult result) {
  switch (result) {
    case trace::TraceWriter::AppendResult::kOk:
      return EventSink::Result::kOk;
    case trace::TraceWriter::AppendResult::kTooLarge:
      return EventSink::Result::kTooLarge;
    case trace::TraceWriter::AppendResult::kWriteFailed:
      return EventSink::Result::kWriteFailed;
  }
  return EventSink::Result::kWriteFailed;
}

}  // namespace

// Appends `record`, and after a code record the region's machine code.
EventSink::Result TraceSink::Append(File& file, const trace::Record& record, uint16_t flags) {
  trace::TraceWriter& writer = *file.writer;
  const size_t size = trace::EncodedRecordSize(record.event);
  std::optional<trace::CodeBytesEvent> region;
  if (options_.code_bytes) region = CodeRegionOf(record.event);
  // Copied while iJIT_NotifyEvent runs, when the engine vouches for the code; unreadable memory
  // (a buggy engine) is recorded as a region without bytes rather than faulting (readable_code.h).
  if (region && IsReadableCode(region->address, region->size)) {
    region->bytes = {reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(region->address)),
                     region->size};
  }
  const size_t region_size = region ? trace::EncodedRecordSize(*region) : 0;
  if (size == 0 || (region && region_size == 0)) return Result::kTooLarge;
  // One reservation for both: a load is in the file with its code bytes, or (the disk is full)
  // neither is, as the event is refused.
  if (const Result room = ResultOf(writer.Reserve(size + region_size, record.tid));
      room != Result::kOk) {
    return room;
  }
  const Result result = ResultOf(writer.Append(record.event, record.timestamp, record.tid, flags));
  if (result != Result::kOk || !region) return result;
  return ResultOf(writer.Append(*region, record.timestamp, record.tid, flags));
}

EventSink::Result TraceSink::Write(const trace::Record& record) {
  File* file = current_.load(std::memory_order_acquire);
  Pause(Options::PausePoint::kBeforeAppend);
  Result result = Append(*file, record, 0);
  // An unbounded trace is one file for good: nothing below concerns it, and the fence is the
  // dearest instruction of the event.
  const bool bounded = options_.max_size != 0;
  // The sink may have moved on meanwhile (the header says why this finds out): then every file
  // after this one gets the record too. The fence orders this thread's stores before its reading
  // of `next`, and the mover's linking before its reading of the old file; the acquire makes the
  // new file's set-up visible here.
  bool held = false;  // an earlier file of the chain holds the record: the later ones repeat it
  while (bounded) {
    Pause(Options::PausePoint::kAfterAppend);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    File* next = file->next.load(std::memory_order_acquire);
    if (next == nullptr) break;
    // Not appended, or stored into the zero pages of a file retired meanwhile: the next file
    // holds the first copy.
    held = held || (result == Result::kOk && file->writer->LastAppendReachedFile());
    file = next;
    result = Append(*file, record, held ? trace::kRecordFlagSnapshot : 0);
  }
  if (result != Result::kOk) return result;
  if (std::holds_alternative<trace::ShutdownEvent>(record.event)) file->writer->Trim();
  if (bounded && file->writer->size() >= file->continue_at.load(std::memory_order_relaxed)) {
    ContinueInNextFile(*file, record);
  }
  return result;
}

// Runs on the thread whose record filled `full`, while other threads go on appending.
void TraceSink::ContinueInNextFile(File& full, const trace::Record& trigger) {
  std::unique_lock lock(moving_, std::try_to_lock);
  if (!lock.owns_lock() || current_.load(std::memory_order_relaxed) != &full) return;
  auto created = CreateFile(next_attempt_);
  if (!created.ok()) {
    full.continue_at.store(UINT64_MAX, std::memory_order_relaxed);
    log_.Printf("the trace %s/%s stays one file past JITSCOPE_MAX_SIZE: %s", directory_.c_str(),
                full.name.c_str(), created.status().message().c_str());
    return;
  }
  File& next = **created;
  next.sequence = full.sequence + 1;
  const uint64_t at = trigger.timestamp;
  const uint32_t tid = trigger.tid;
  (void)next.writer->Append(trace::ChainLinkEvent{next.sequence, full.writer->size(), full.name},
                            at, tid);
  files_.push_back(std::move(created).value());
  full.next.store(&next, std::memory_order_seq_cst);
  current_.store(&next, std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  Pause(Options::PausePoint::kMoving);

  // Every record of a thread that did not see the link is in the file now.
  uint64_t repeated = 0;
  // Counted by the records repeated, not by the new file's size: other threads append to it
  // meanwhile, and a move that took long (its thread descheduled) would otherwise count all their
  // records as live code, and warn so.
  uint64_t snapshot_size = 0;
  if (auto mapped = full.writer->MapForReading(); mapped.ok()) {
    if (auto parsed = trace::ParseTrace({mapped->data(), mapped->size()}); parsed.ok()) {
      for (size_t index : LiveRecords(parsed->records)) {
        const trace::Record& record = parsed->records[index];
        if (next.writer->Append(record.event, record.timestamp, tid, trace::kRecordFlagSnapshot) ==
            trace::TraceWriter::AppendResult::kOk) {
          ++repeated;
          snapshot_size += trace::EncodedRecordSize(record.event);
        }
      }
    }
  }
  // Without SNAPSHOT_END (the old file could not be read back, or the process died meanwhile)
  // readers and `jitscope clean` keep the files before this one.
  (void)next.writer->Append(trace::SnapshotEndEvent{repeated}, at, tid);

  // The file's size counts the zeros of the segment being filled (up to a whole segment), and
  // what other threads appended meanwhile: the next move comes when it has grown by the
  // snapshot's size beyond that, so each file holds at least as much new content as repeated.
  next.continue_at.store(std::max(options_.max_size, next.writer->size() + snapshot_size),
                         std::memory_order_relaxed);
  if (2 * snapshot_size > options_.max_size && !warned_oversized_) {
    warned_oversized_ = true;
    log_.Printf(
        "the live JIT code's records (%llu KiB) alone fill half of JITSCOPE_MAX_SIZE (%llu KiB): "
        "each file of the trace's chain now grows to twice its snapshot of them",
        static_cast<unsigned long long>(snapshot_size / 1024),
        static_cast<unsigned long long>(options_.max_size / 1024));
  }
  // The old file keeps the zeros of its last segment (at most one segment's worth): cutting it
  // here would raise SIGBUS in a reader that mapped it a moment before (`jitscope report` of a
  // process that is still running).
  log_.Printf("the trace continues in %s/%s", directory_.c_str(), next.name.c_str());
  // Two moves back: no thread can still be writing there (in practice; see the header).
  if (files_.size() >= 3) files_[files_.size() - 3]->writer->Retire();
  Pause(Options::PausePoint::kMoved);
}

void TraceSink::AtExit(uint64_t timestamp) {
  (void)timestamp;
  // Never waits: another thread may be extending the file as the process exits.
  current_.load(std::memory_order_acquire)->writer->TryTrim();
}

}  // namespace jitscope::collector
