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
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/trace/event.h"

namespace jitscope::trace {

struct TraceIdentity {
  uint32_t pid = 0;
  std::string exe_path;
  uint64_t start_monotonic_ns = 0;
  uint64_t start_realtime_ns = 0;
};

class TraceWriter {
 public:
  struct Options {
    uint64_t chunk_size = 64 * 1024;          // per-thread chunk (a multiple of kGranule)
    uint64_t segment_size = 4 * 1024 * 1024;  // file growth step (a multiple of kGranule)
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
  // Thread-safe. `tid` is recorded in the chunk the record lands in.
  AppendResult Append(const Event& event, uint64_t timestamp, uint32_t tid);

  // The first error that stopped the writer (e.g. the disk is full), or OK.
  base::Status error() const;

 private:
  struct Segment {
    base::ScopedMmap mapping;
    uint64_t file_offset = 0;
    std::atomic<uint64_t> used{0};
  };
  struct Chunk;

  TraceWriter(base::ScopedFd fd, const Options& options, uint64_t first_chunk_offset);
  uint8_t* ClaimChunk(uint64_t size, uint32_t tid);
  base::Status AddSegment(uint64_t min_size);
  base::Status AppendZeros(uint64_t offset, uint64_t size);

  const uint64_t id_;  // tells thread-local chunk caches of different writers apart
  const Options options_;
  base::ScopedFd fd_;
  std::atomic<Segment*> current_{nullptr};
  std::atomic<bool> failed_{false};
  mutable std::mutex mutex_;  // guards segments_, file_size_, error_
  std::deque<Segment> segments_;
  uint64_t file_size_ = 0;
  base::Status error_;
};

}  // namespace jitscope::trace
