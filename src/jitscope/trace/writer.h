// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// TraceWriter appends records to a native trace (format.h) from any number of threads.
//
// Data flow and threading: Append() encodes the event straight into the calling thread's own
// chunk of a MAP_SHARED mapping of the file and publishes it with one release store of its
// header. The common path takes no lock and makes no syscall; a thread only touches shared
// state when its chunk is full (one atomic add on the current segment) and a mutex only when the
// segment is full (the file is extended with zeros and the next segment mapped).
// Because the records live in the page cache as soon as they are stored, a record whose
// Append() returned survives a SIGKILL of the process.
//
// Size: a trace is as big as its content. Segments start small and double up to
// Options::segment_size, and so does each thread's chunk up to Options::chunk_size, so a process
// that reports a few methods writes a few KiB. Trim() (at SHUTDOWN and at a clean exit) gives back
// the unclaimed tail of the last segment; a crash leaves at most that segment's zeros.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "jitscope/base/files.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/trace/event.h"
#include "jitscope/trace/format.h"

namespace jitscope::trace {

struct TraceIdentity {
  uint32_t pid = 0;
  std::string exe_path;
  uint64_t start_monotonic_ns = 0;
  uint64_t start_realtime_ns = 0;
  // The program image (format.h, ImageExtension); all zero: unknown, and not written.
  std::array<uint8_t, 16> image{};
};

class TraceWriter {
 public:
  // Every size is a multiple of kGranule. A first size larger than its maximum is the maximum.
  struct Options {
    uint64_t chunk_size = 64 * 1024;          // largest per-thread chunk
    uint64_t segment_size = 4 * 1024 * 1024;  // largest file growth step
    uint64_t first_chunk_size = kGranule;     // a thread's first chunk; each next one doubles
    uint64_t first_segment_size = 64 * 1024;  // the first growth step; each next one doubles
  };

  // Takes ownership of `fd`, an empty file opened for reading and writing.
  static base::StatusOr<std::unique_ptr<TraceWriter>> Create(base::ScopedFd fd,
                                                             const TraceIdentity& identity,
                                                             const Options& options);
  static base::StatusOr<std::unique_ptr<TraceWriter>> Create(base::ScopedFd fd,
                                                             const TraceIdentity& identity) {
    return Create(std::move(fd), identity, Options{});
  }
  ~TraceWriter();

  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  enum class AppendResult { kOk, kTooLarge, kWriteFailed };
  // Thread-safe. `tid` is recorded in the chunk the record lands in; `flags` in the record's
  // header (kRecordFlag*).
  AppendResult Append(const Event& event, uint64_t timestamp, uint32_t tid, uint16_t flags = 0);
  // Makes room in the calling thread's chunk for `bytes` of records (EncodedRecordSize), claiming
  // a new chunk if needed: the appends that follow, up to that size, cannot fail for want of
  // room, so records that belong together (a load and its code bytes) are all in the file or
  // none is (a full disk fails the reservation).
  AppendResult Reserve(uint64_t bytes, uint32_t tid);

  // The file's size: its records and the zeros of the segment being filled. Thread-safe, cheap.
  uint64_t size() const { return file_size_.load(std::memory_order_relaxed); }

  // The file as it is now, mapped read-only, for reading back what was written (the next file of
  // a chain starts with the live records of this one).
  base::StatusOr<base::MappedFile> MapForReading() const;

  // Ends the writer for good while threads may still hold it: its mappings are replaced by
  // private zero memory (a late store lands there, harmlessly, and the file's pages and disk
  // blocks are no longer pinned) and its file is closed. A later Append() that needs a new chunk
  // fails; one that fits its thread's chunk "succeeds" into the zero memory, so a caller that
  // may race Retire() asks LastAppendReachedFile() after appending.
  void Retire();
  bool retired() const { return retired_.load(std::memory_order_relaxed); }

  // Whether the calling thread's last successful Append() to this writer is in the file: always,
  // unless Retire() raced it. Then the record's header word, read back, tells where its stores
  // went: Retire() replaced the file's pages with zeros, so a header still there was stored into
  // the replacement, and a header gone was stored into the file before it. retired() alone cannot
  // tell: a thread that appended, was descheduled while the writer was retired, and took the
  // record for lost, appended it again elsewhere as new, and a reader of both files saw it twice.
  // The caller has a sequentially consistent fence between its Append() and this call. Waits
  // while Retire() runs.
  bool LastAppendReachedFile() const;

  // A clean end: cuts the file after the last chunk claimed (and the calling thread's chunk after
  // its last record), so that the file holds no zeros past its content. Other threads may go on
  // appending: their chunks are kept, and their next claims grow the file again, starting over
  // from the first segment size. Best effort: a failure leaves the zeros, which readers skip.
  // Trim() waits for a thread that is extending the file; TryTrim() does not (at process exit).
  void Trim();
  void TryTrim();

  // The first error that stopped the writer (e.g. the disk is full), or OK.
  base::Status error() const;

 private:
  struct Segment {
    base::ScopedMmap mapping;
    uint64_t file_offset = 0;
    std::atomic<uint64_t> used{0};
    bool replaced = false;  // by Retire()'s zeros; under mutex_
  };
  struct Chunk;

  TraceWriter(base::ScopedFd fd, const Options& options, uint64_t first_chunk_offset);
  uint8_t* ClaimChunk(uint64_t size, uint32_t tid);
  base::Status AddSegment(uint64_t min_size);
  base::Status AppendZeros(uint64_t offset, uint64_t size);
  void TrimLocked();

  const uint64_t id_;  // tells thread-local chunk caches of different writers apart
  const Options options_;
  base::ScopedFd fd_;
  std::atomic<Segment*> current_{nullptr};
  std::atomic<bool> failed_{false};
  std::atomic<bool> retired_{false};
  mutable std::mutex mutex_;  // guards segments_, file_size_, next_segment_size_, error_
  std::deque<Segment> segments_;
  std::atomic<uint64_t> file_size_{0};  // written under mutex_
  uint64_t next_segment_size_ = 0;
  base::Status error_;
};

}  // namespace jitscope::trace
