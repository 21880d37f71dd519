// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/writer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "jitscope/base/files.h"
#include "jitscope/base/thread_local.h"
#include "jitscope/trace/record_codec.h"

namespace jitscope::trace {
namespace {

std::atomic<uint64_t> next_writer_id{1};

// MADV_POPULATE_WRITE (Linux 5.14); spelled out for older headers.
constexpr int kMadvPopulateWrite = 23;

constexpr uint64_t RoundUpToGranule(uint64_t n) { return (n + kGranule - 1) / kGranule * kGranule; }

// The calling thread's current chunk. One slot per thread: a thread that alternates between two
// writers claims a fresh chunk at each switch, which wastes space but stays correct.
struct ThreadChunk {
  uint64_t writer_id = 0;
  uint8_t* next = nullptr;  // where the next record goes
  uint64_t free = 0;        // bytes left in the chunk
};
JITSCOPE_THREAD_LOCAL ThreadChunk thread_chunk;

// Publishes a record: its header word is stored after its body, with release ordering, so a
// reader (or the file after a crash) never sees a header whose body is not there yet.
void PublishHeader(uint8_t* record, const RecordHeader& header) {
  uint64_t word = 0;
  std::memcpy(&word, &header, sizeof(word));
  __atomic_store_n(reinterpret_cast<uint64_t*>(record), word, __ATOMIC_RELEASE);
}

}  // namespace

base::StatusOr<std::unique_ptr<TraceWriter>> TraceWriter::Create(base::ScopedFd fd,
                                                                 const TraceIdentity& identity,
                                                                 const Options& options) {
  if (options.chunk_size == 0 || options.chunk_size % kGranule != 0 ||
      options.segment_size < options.chunk_size || options.segment_size % kGranule != 0) {
    return base::Status::Error("invalid trace writer options");
  }
  const size_t path_size = std::min<size_t>(identity.exe_path.size(), 64 * 1024);
  const uint64_t header_size = RoundUpToGranule(sizeof(FileHeader) + path_size);
  FileHeader header{};
  std::memcpy(header.magic, kFileMagic, sizeof(header.magic));
  header.version = kFormatVersion;
  header.header_size = static_cast<uint32_t>(header_size);
  header.granule = kGranule;
  header.pid = identity.pid;
  header.start_monotonic_ns = identity.start_monotonic_ns;
  header.start_realtime_ns = identity.start_realtime_ns;
  header.pointer_size = sizeof(void*);
  header.exe_path_size = static_cast<uint32_t>(path_size);

  std::vector<uint8_t> bytes(header_size, 0);
  std::memcpy(bytes.data(), &header, sizeof(header));
  std::memcpy(bytes.data() + sizeof(header), identity.exe_path.data(), path_size);
  RETURN_IF_ERROR(base::WriteAll(fd.get(), bytes.data(), bytes.size()));

  std::unique_ptr<TraceWriter> writer(new TraceWriter(std::move(fd), options, header_size));
  {
    std::lock_guard lock(writer->mutex_);
    RETURN_IF_ERROR(writer->AddSegment(options.segment_size));
  }
  return writer;
}

TraceWriter::TraceWriter(base::ScopedFd fd, const Options& options, uint64_t first_chunk_offset)
    : id_(next_writer_id.fetch_add(1, std::memory_order_relaxed)),
      options_(options),
      fd_(std::move(fd)),
      file_size_(first_chunk_offset) {}

TraceWriter::~TraceWriter() = default;

base::Status TraceWriter::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

// Called with mutex_ held.
base::Status TraceWriter::AddSegment(uint64_t min_size) {
  const uint64_t size = std::max(options_.segment_size, RoundUpToGranule(min_size));
  const uint64_t offset = file_size_;
  // Reserve the blocks now: a store into a mapping of a hole that the filesystem cannot back
  // raises SIGBUS in the host process, while a failed fallocate is an error we can report.
  if (const int error =
          ::posix_fallocate(fd_.get(), static_cast<off_t>(offset), static_cast<off_t>(size));
      error != 0) {
    return base::Status::Error("cannot extend the trace by %llu bytes: %s",
                               static_cast<unsigned long long>(size), std::strerror(error));
  }
  void* address = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(),
                         static_cast<off_t>(offset));
  if (address == MAP_FAILED) {
    return base::Status::Error("cannot map the trace: %s", std::strerror(errno));
  }
  // A fork()ed child must never write into its parent's trace; it does not even inherit it.
  ::madvise(address, size, MADV_DONTFORK);
  // Fault the whole segment in, writable, now: otherwise every 4 KiB page costs the first
  // thread to touch it a write fault on the hot path (page_mkwrite on a file mapping), which
  // measured as most of an event's cost. Best effort: kernels before 5.14 do not know it.
  ::madvise(address, size, kMadvPopulateWrite);
  Segment& segment = segments_.emplace_back();
  segment.mapping = base::ScopedMmap(address, size);
  segment.file_offset = offset;
  file_size_ = offset + size;
  current_.store(&segment, std::memory_order_release);
  return base::Status::Ok();
}

uint8_t* TraceWriter::ClaimChunk(uint64_t size, uint32_t tid) {
  for (;;) {
    if (failed_.load(std::memory_order_relaxed)) return nullptr;
    Segment* segment = current_.load(std::memory_order_acquire);
    const uint64_t offset = segment->used.fetch_add(size, std::memory_order_relaxed);
    if (offset + size <= segment->mapping.size()) {
      auto* chunk = static_cast<uint8_t*>(segment->mapping.data()) + offset;
      ChunkHeader header{0, tid, size};
      std::memcpy(chunk, &header, sizeof(header));
      __atomic_store_n(reinterpret_cast<uint32_t*>(chunk), kChunkMagic, __ATOMIC_RELEASE);
      return chunk;
    }
    // The segment is full. Its unclaimed tail stays zero, which readers skip granule by granule.
    std::lock_guard lock(mutex_);
    if (current_.load(std::memory_order_relaxed) != segment) continue;  // someone else grew it
    if (base::Status status = AddSegment(size); !status.ok()) {
      error_ = std::move(status);
      failed_.store(true, std::memory_order_relaxed);
      return nullptr;
    }
  }
}

TraceWriter::AppendResult TraceWriter::Append(const Event& event, uint64_t timestamp,
                                              uint32_t tid) {
  const size_t size = EncodedRecordSize(event);
  if (size == 0) return AppendResult::kTooLarge;
  ThreadChunk& chunk = thread_chunk;
  if (chunk.writer_id != id_ || chunk.free < size) {
    const uint64_t chunk_size =
        std::max(options_.chunk_size, RoundUpToGranule(size + sizeof(ChunkHeader)));
    uint8_t* claimed = ClaimChunk(chunk_size, tid);
    if (claimed == nullptr) return AppendResult::kWriteFailed;
    chunk = ThreadChunk{id_, claimed + sizeof(ChunkHeader), chunk_size - sizeof(ChunkHeader)};
  }
  uint8_t* record = chunk.next;
  const RecordHeader header = EncodeRecordBody(event, timestamp, record + sizeof(RecordHeader));
  PublishHeader(record, header);
  chunk.next += size;
  chunk.free -= size;
  return AppendResult::kOk;
}

}  // namespace jitscope::trace
