// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The native-trace sink: creates jit-<pid>.jsc in the output directory and appends every event.
//
// A bounded trace (Options::max_size, JITSCOPE_MAX_SIZE) is a chain of files. When the file
// being written reaches the bound, the sink continues in the next one, jit-<pid>.<n>.jsc, which
// starts with a link to the file before it and a snapshot of the records of every piece of code
// still loaded (live_records.h), flagged as repeats (kRecordFlagSnapshot), then SNAPSHOT_END.
// Any file of the chain, with those after it, names all code that runs from its start on, so
// `jitscope clean` may delete the files before the last complete snapshot.
//
// Moving on never stops the host's threads. The sink links the old file to the new one first,
// then reads the old one back for the snapshot; a thread that appended to a file sees, after a
// full fence, whether it has a next one, and if so appends the record again to that one and to
// every one after it, flagged as a repeat. Either the snapshot read its record or it repeats it
// itself, so nothing acknowledged is missing from any later file. A file is closed, and its pages
// given back, two moves later (TraceWriter::Retire()); a thread descheduled until then may have
// stored its record into the file, or into the zero pages that replaced it, and asks the writer
// which (TraceWriter::LastAppendReachedFile()): a record lost there goes to the next file as new,
// one kept as a repeat, so a reader of the whole chain sees each record once.
//
// When the live code alone is bigger than the bound, the snapshot is still written whole: the
// next move then waits until the file is twice its snapshot's size, so a file holds at least as
// much new content as repeated, and the collector says so once.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "jitscope/base/status.h"
#include "jitscope/collector/event_sink.h"
#include "jitscope/collector/log.h"
#include "jitscope/trace/writer.h"

namespace jitscope::collector {

class TraceSink : public EventSink {
 public:
  struct Options {
    // Each Intel-API region's machine code follows its record (trace/format.h).
    bool code_bytes = true;
    // The size at which the trace continues in the next file; 0: one unbounded file.
    uint64_t max_size = 0;
    trace::TraceWriter::Options writer;
    // Tests only (null in the collector): called where a thread that is descheduled lets the
    // others move the trace on under it, so a test can deschedule threads exactly there.
    enum class PausePoint { kBeforeAppend, kAfterAppend, kMoving, kMoved };
    void (*pause)(PausePoint point) = nullptr;
  };

  // Creates the trace exclusively (never following or clobbering an existing file). If
  // jit-<pid>.jsc exists (a recycled pid), jit-<pid>.1.jsc, .2, ... are tried; the files of a
  // chain take the next free numbers after it.
  static base::StatusOr<std::unique_ptr<TraceSink>> Create(const std::string& directory,
                                                           const trace::TraceIdentity& identity,
                                                           const Options& options, Log log);

  // SHUTDOWN, and the process's exit, are clean ends: the trace gives back its unused tail.
  Result Write(const trace::Record& record) override;
  void AtExit(uint64_t timestamp) override;
  // The first file of the trace.
  const std::string& path() const { return first_path_; }
  base::Status error() const override;
  bool KeepsTimeline() const override { return true; }

 private:
  struct File {
    std::unique_ptr<trace::TraceWriter> writer;
    std::string name;  // without the directory
    uint32_t sequence = 0;
    std::atomic<uint64_t> continue_at{UINT64_MAX};
    std::atomic<File*> next{nullptr};  // set once, before the sink moves on to it
  };

  TraceSink(std::string directory, const trace::TraceIdentity& identity, const Options& options,
            Log log)
      : directory_(std::move(directory)),
        identity_(identity),
        options_(options),
        log_(std::move(log)) {}

  // Creates the next free jit-<pid>[.<n>].jsc, from number `attempt` on.
  base::StatusOr<std::unique_ptr<File>> CreateFile(int& attempt);
  Result Append(File& file, const trace::Record& record, uint16_t flags);
  void ContinueInNextFile(File& full, const trace::Record& trigger);
  void Pause(Options::PausePoint point) const {
    if (options_.pause != nullptr) options_.pause(point);
  }

  const std::string directory_;
  const trace::TraceIdentity identity_;
  const Options options_;
  const Log log_;
  std::string first_path_;
  std::atomic<File*> current_{nullptr};
  std::mutex moving_;  // held (try_lock) by the one thread moving to the next file
  std::deque<std::unique_ptr<File>> files_;  // every file so far, oldest first; under moving_
  int next_attempt_ = 0;                     // under moving_
  bool warned_oversized_ = false;            // under moving_
};

}  // namespace jitscope::collector
