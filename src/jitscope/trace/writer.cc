// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/writer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <vector>

#include "jitscope/base/files.h"
#include "jitscope/base/thread_local.h"
#include "jitscope/trace/record_codec.h"

namespace jitscope::trace {
namespace {

std::atomic<uint64_t> next_writer_id{1};

// Segments are mapped at file offsets past 2 GiB in long runs, 32-bit processes included
// (_FILE_OFFSET_BITS=64 in the top-level CMakeLists.txt).
static_assert(sizeof(off_t) == 8, "the trace needs 64-bit file offsets");

// MADV_POPULATE_WRITE (Linux 5.14); spelled out for older headers.
constexpr int kMadvPopulateWrite = 23;

constexpr uint64_t RoundUpToGranule(uint64_t n) { return (n + kGranule - 1) / kGranule * kGranule; }

// Added to a segment's claim counter by Trim(): every later claim in that segment fails and takes
// the slow path, which grows the file after the trimmed end. Far below overflow however many
// claims follow.
constexpr uint64_t kSealed = uint64_t{1} << 62;

// The calling thread's current chunk. One slot per thread: a thread that alternates between two
// writers claims a fresh chunk at each switch, which wastes space but stays correct.
struct ThreadChunk {
  uint64_t writer_id = 0;
  uint8_t* next = nullptr;   // where the next record goes
  uint64_t free = 0;         // bytes left in the chunk
  uint8_t* start = nullptr;  // the chunk's header, for Trim()
  uint64_t next_size = 0;    // the size of this thread's next chunk
  uint8_t* last = nullptr;   // the last record appended, for LastAppendReachedFile()
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
      options.segment_size < options.chunk_size || options.segment_size % kGranule != 0 ||
      options.first_chunk_size == 0 || options.first_chunk_size % kGranule != 0 ||
      options.first_segment_size == 0 || options.first_segment_size % kGranule != 0) {
    return base::Status::Error("invalid trace writer options");
  }
  const size_t path_size = std::min<size_t>(identity.exe_path.size(), 64 * 1024);
  const bool image_known = identity.image != std::array<uint8_t, 16>{};
  const size_t image_offset = (sizeof(FileHeader) + path_size + 7) / 8 * 8;
  const uint64_t header_size =
      RoundUpToGranule(image_known ? image_offset + sizeof(ImageExtension) : image_offset);
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
  if (image_known) {
    ImageExtension image{};
    std::memcpy(image.magic, kImageMagic, sizeof(image.magic));
    std::memcpy(image.id, identity.image.data(), sizeof(image.id));
    std::memcpy(bytes.data() + image_offset, &image, sizeof(image));
  }
  RETURN_IF_ERROR(base::WriteAll(fd.get(), bytes.data(), bytes.size()));

  std::unique_ptr<TraceWriter> writer(new TraceWriter(std::move(fd), options, header_size));
  {
    std::lock_guard lock(writer->mutex_);
    RETURN_IF_ERROR(writer->AddSegment(0));
  }
  return writer;
}

TraceWriter::TraceWriter(base::ScopedFd fd, const Options& options, uint64_t first_chunk_offset)
    : id_(next_writer_id.fetch_add(1, std::memory_order_relaxed)),
      options_{.chunk_size = options.chunk_size,
               .segment_size = options.segment_size,
               .first_chunk_size = std::min(options.first_chunk_size, options.chunk_size),
               .first_segment_size = std::min(options.first_segment_size, options.segment_size)},
      fd_(std::move(fd)),
      file_size_(first_chunk_offset),
      next_segment_size_(options_.first_segment_size) {}

TraceWriter::~TraceWriter() = default;

base::Status TraceWriter::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

// Called with mutex_ held. Writes `size` zero bytes at `offset` (the end of the file).
base::Status TraceWriter::AppendZeros(uint64_t offset, uint64_t size) {
  static constexpr uint8_t kZeros[64 * 1024] = {};
  for (uint64_t done = 0; done < size;) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(sizeof(kZeros), size - done));
    const ssize_t written = ::pwrite(fd_.get(), kZeros, chunk, static_cast<off_t>(offset + done));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      const int error = written < 0 ? errno : ENOSPC;
      // Give back what was written: the file must end where the last mapped segment ends.
      (void)::ftruncate(fd_.get(), static_cast<off_t>(offset));
      return base::Status::Errno(error, "cannot extend the trace by %llu bytes",
                                 static_cast<unsigned long long>(size));
    }
    done += static_cast<uint64_t>(written);
  }
  return base::Status::Ok();
}

// Called with mutex_ held.
base::Status TraceWriter::AddSegment(uint64_t min_size) {
  const uint64_t size = std::max(next_segment_size_, RoundUpToGranule(min_size));
  const uint64_t offset = file_size_;
  // The segment must be backed by disk blocks before the host's threads store into it: a store
  // into a mapped page the filesystem cannot back raises SIGBUS in the host process. Writing the
  // segment's zeros with write() reserves the blocks here, in the slow path, where a full disk is
  // an error we can report, and leaves the pages in the page cache, so that faulting them in
  // below is cheap. Rejected: posix_fallocate, whose unwritten extents make ext4 read every page
  // in on its first fault (measured 3x slower per event); ftruncate alone, which defers the block
  // reservation to the first store (SIGBUS when the disk is full).
  RETURN_IF_ERROR(AppendZeros(offset, size));
  void* address = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(),
                         static_cast<off_t>(offset));
  if (address == MAP_FAILED) return base::Status::Errno(errno, "cannot map the trace");
  base::ScopedMmap mapping(address, size);
  // Map every page writable now, so the hot path takes no page faults. Best effort: kernels
  // before 5.14 do not know MADV_POPULATE_WRITE, and then the first store to each page faults.
  ::madvise(address, size, kMadvPopulateWrite);
  // A fork()ed child must never write into its parent's trace; it does not even inherit it.
  ::madvise(address, size, MADV_DONTFORK);
  Segment& segment = segments_.emplace_back();
  segment.mapping = std::move(mapping);
  segment.file_offset = offset;
  file_size_ = offset + size;
  next_segment_size_ = std::min(options_.segment_size, next_segment_size_ * 2);
  current_.store(&segment, std::memory_order_release);
  return base::Status::Ok();
}

base::StatusOr<base::MappedFile> TraceWriter::MapForReading() const {
  std::lock_guard lock(mutex_);
  if (!fd_) return base::Status::Error("the trace writer is retired");
  return base::MappedFile::FromFd(fd_.get(), "the trace");
}

void TraceWriter::Retire() {
  std::lock_guard lock(mutex_);
  if (!fd_) return;
  // Seen by a thread that stored into a mapping replaced below: TraceSink then appends its
  // record again elsewhere.
  retired_.store(true, std::memory_order_seq_cst);
  failed_.store(true, std::memory_order_relaxed);
  if (error_.ok()) error_ = base::Status::Error("the trace writer is retired");
  for (Segment& segment : segments_) {
    // Claims in this segment fail from now on; a thread between its claim and its stores writes
    // into the zero page copies below instead of the file.
    segment.used.fetch_add(kSealed, std::memory_order_relaxed);
    void* address = segment.mapping.data();
    if (address == nullptr) continue;
    if (::mmap(address, segment.mapping.size(), PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
      continue;  // the file's pages stay mapped, and stay correct: nothing is lost
    }
    segment.replaced = true;
  }
  fd_.reset();
}

bool TraceWriter::LastAppendReachedFile() const {
  // Retire() sets retired_ before it replaces any page. Not set yet: this thread's stores, which
  // its fence made visible before this load, reached the file's pages before any replacement.
  if (!retired_.load(std::memory_order_seq_cst)) return true;
  std::lock_guard lock(mutex_);  // Retire() holds it until every page is replaced
  const ThreadChunk& chunk = thread_chunk;
  if (chunk.writer_id != id_ || chunk.last == nullptr) return false;
  for (const Segment& segment : segments_) {
    const auto* base = static_cast<const uint8_t*>(segment.mapping.data());
    if (base == nullptr || chunk.last < base || chunk.last >= base + segment.mapping.size()) {
      continue;
    }
    if (!segment.replaced) return true;
    // Only this thread stores into its chunk, so the word is what it stored after the
    // replacement, or the replacement's zero.
    return __atomic_load_n(reinterpret_cast<const uint64_t*>(chunk.last), __ATOMIC_RELAXED) == 0;
  }
  return false;
}

void TraceWriter::Trim() {
  std::lock_guard lock(mutex_);
  TrimLocked();
}

void TraceWriter::TryTrim() {
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (lock.owns_lock()) TrimLocked();
}

// Called with mutex_ held, which keeps AddSegment out. Threads may be claiming chunks in the
// current segment meanwhile: sealing it with one atomic add splits them into those that claimed
// before (below `claimed`, kept in the file) and those after (they fail, wait for the mutex and
// add a segment after the new end). No thread ever stores outside a chunk it claimed, so nothing
// stores into the pages cut off (which would raise SIGBUS).
void TraceWriter::TrimLocked() {
  if (!fd_) return;  // retired
  Segment* segment = current_.load(std::memory_order_relaxed);
  if (segment->used.load(std::memory_order_relaxed) >= kSealed) return;  // trimmed already
  // A claim that did not fit pushed the counter past the end without claiming anything.
  const uint64_t claimed = std::min<uint64_t>(
      segment->used.fetch_add(kSealed, std::memory_order_relaxed), segment->mapping.size());
  auto* const base = static_cast<uint8_t*>(segment->mapping.data());
  uint64_t end = segment->file_offset + claimed;
  // When the last chunk claimed is the calling thread's own, no other thread writes in it: it
  // ends after its last record, and this thread's next record goes to a fresh chunk.
  ThreadChunk& own = thread_chunk;
  if (own.writer_id == id_ && own.start >= base && own.start < base + claimed &&
      own.next + own.free == base + claimed) {
    const uint64_t kept = RoundUpToGranule(static_cast<uint64_t>(own.next - own.start));
    // Before the file is cut: a crash in between leaves zeros after the chunk, which readers skip.
    std::memcpy(own.start + offsetof(ChunkHeader, size), &kept, sizeof(kept));
    end = segment->file_offset + static_cast<uint64_t>(own.start - base) + kept;
    own.free = 0;
  }
  // Best effort: if the file cannot be cut, its zeros stay and the next segment goes after them.
  if (::ftruncate(fd_.get(), static_cast<off_t>(end)) != 0) return;
  file_size_ = end;
  next_segment_size_ = options_.first_segment_size;
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
    if (failed_.load(std::memory_order_relaxed)) return nullptr;        // retired meanwhile
    if (base::Status status = AddSegment(size); !status.ok()) {
      error_ = std::move(status);
      failed_.store(true, std::memory_order_relaxed);
      return nullptr;
    }
  }
}

TraceWriter::AppendResult TraceWriter::Reserve(uint64_t size, uint32_t tid) {
  ThreadChunk& chunk = thread_chunk;
  if (chunk.writer_id != id_ || chunk.free < size) {
    if (chunk.writer_id != id_)
      chunk = ThreadChunk{id_, nullptr, 0, nullptr, options_.first_chunk_size, nullptr};
    const uint64_t chunk_size =
        std::max(chunk.next_size, RoundUpToGranule(size + sizeof(ChunkHeader)));
    uint8_t* claimed = ClaimChunk(chunk_size, tid);
    if (claimed == nullptr) return AppendResult::kWriteFailed;
    chunk = ThreadChunk{id_,
                        claimed + sizeof(ChunkHeader),
                        chunk_size - sizeof(ChunkHeader),
                        claimed,
                        std::min(options_.chunk_size, chunk.next_size * 2),
                        nullptr};
  }
  return AppendResult::kOk;
}

TraceWriter::AppendResult TraceWriter::Append(const Event& event, uint64_t timestamp, uint32_t tid,
                                              uint16_t flags) {
  const size_t size = EncodedRecordSize(event);
  if (size == 0) return AppendResult::kTooLarge;
  if (const AppendResult room = Reserve(size, tid); room != AppendResult::kOk) return room;
  ThreadChunk& chunk = thread_chunk;
  uint8_t* record = chunk.next;
  const RecordHeader header =
      EncodeRecordBody(event, timestamp, record + sizeof(RecordHeader), flags);
  PublishHeader(record, header);
  chunk.last = record;
  chunk.next += size;
  chunk.free -= size;
  return AppendResult::kOk;
}

}  // namespace jitscope::trace
