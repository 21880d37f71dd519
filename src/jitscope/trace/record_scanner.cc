// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/record_scanner.h"

#include <algorithm>
#include <cstring>

#include "jitscope/trace/format.h"
#include "jitscope/trace/record_codec.h"

namespace jitscope::trace {
namespace {

template <typename T>
T Load(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

bool AllZero(std::span<const uint8_t> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

}  // namespace

base::StatusOr<TraceLayout> ReadTraceLayout(std::span<const uint8_t> bytes) {
  if (!LooksLikeTrace(bytes)) return base::Status::Error("not a jitscope trace (bad magic)");
  if (bytes.size() < sizeof(FileHeader)) return base::Status::Error("trace header is truncated");
  const auto header = Load<FileHeader>(bytes.data());
  if (header.version < kOldestFormatVersion || header.version > kFormatVersion) {
    return base::Status::Error("unsupported trace version %u (this reader reads versions %u to %u)",
                               header.version, kOldestFormatVersion, kFormatVersion);
  }
  if (header.granule < 512 || header.granule > (1u << 20) ||
      (header.granule & (header.granule - 1)) != 0) {
    return base::Status::Error("invalid granule size %u in trace header", header.granule);
  }
  if (header.exe_path_size >
          header.header_size - std::min<uint32_t>(header.header_size, sizeof(FileHeader)) ||
      header.header_size < sizeof(FileHeader) || header.header_size % header.granule != 0) {
    return base::Status::Error("invalid header size in trace header");
  }
  if (header.header_size > bytes.size()) return base::Status::Error("trace header is truncated");

  TraceLayout layout;
  layout.first_chunk = header.header_size;
  layout.granule = header.granule;
  layout.header.version = header.version;
  layout.header.pid = header.pid;
  layout.header.pointer_size = header.pointer_size;
  layout.header.start_monotonic_ns = header.start_monotonic_ns;
  layout.header.start_realtime_ns = header.start_realtime_ns;
  layout.header.exe_path = std::string_view(
      reinterpret_cast<const char*>(bytes.data() + sizeof(FileHeader)), header.exe_path_size);
  if (const size_t image = (sizeof(FileHeader) + header.exe_path_size + 7) / 8 * 8;
      image + sizeof(ImageExtension) <= header.header_size) {
    const auto extension = Load<ImageExtension>(bytes.data() + image);
    if (std::memcmp(extension.magic, kImageMagic, sizeof(kImageMagic)) == 0) {
      std::memcpy(layout.header.image.data(), extension.id, sizeof(extension.id));
    }
  }
  return layout;
}

std::optional<Record> RecordScanner::Next() {
  for (;;) {
    if (in_chunk_) {
      if (auto record = NextInChunk()) return record;
    } else if (!EnterNextChunk()) {
      return std::nullopt;
    }
  }
}

void RecordScanner::Seek(ScanPosition at) {
  const auto header = Load<ChunkHeader>(bytes_.data() + at.chunk);
  EnterChunk(at.chunk, header.tid, header.size);
  next_record_ = at.record;
}

void RecordScanner::EnterChunk(uint64_t offset, uint32_t tid, uint64_t size) {
  chunk_ = offset;
  tid_ = tid;
  // The writer grows the file a whole segment at a time and cuts it only after a chunk's end
  // (writer.h), so a file that ends inside a chunk was cut short after it was written (a truncated
  // copy): damage, said once (by EnterNextChunk), at the cut. The chunk is read as far as it goes.
  cut_ = size > bytes_.size() - offset;
  chunk_end_ = cut_ ? bytes_.size() : offset + size;
  // Not offset + size for a cut chunk: a size near 2^64 would wrap round to an earlier chunk.
  next_chunk_ = chunk_end_;
  next_record_ = offset + sizeof(ChunkHeader);
  in_chunk_ = true;
}

bool RecordScanner::EnterNextChunk() {
  if (ended_) return false;
  uint64_t offset = next_chunk_;
  while (offset < bytes_.size() && bytes_.size() - offset >= sizeof(ChunkHeader)) {
    Passed(offset);
    const auto header = Load<ChunkHeader>(bytes_.data() + offset);
    if (header.magic != kChunkMagic) {
      // No magic: a granule nobody claimed, or a chunk whose thread was killed before it
      // published the chunk (the writer stores the tid and size first and the magic last, and
      // writes records only after that), so nothing in it is a record. Any other magic, or
      // bytes in a granule whose header is all zeros, is damage.
      const uint64_t span = std::min<uint64_t>(granule_, bytes_.size() - offset);
      if (header.magic != 0 ||
          (header.tid == 0 && header.size == 0 && !AllZero(bytes_.subspan(offset, span)))) {
        Damage(offset, "invalid chunk header");
      }
      offset += granule_;
      continue;
    }
    if (header.size < granule_ || header.size % granule_ != 0) {
      Damage(offset, "invalid chunk size");
      offset += granule_;
      continue;
    }
    ++stats_.chunks;
    EnterChunk(offset, header.tid, header.size);
    if (cut_) Damage(bytes_.size(), "the file ends inside a chunk: it was cut short");
    return true;
  }
  // Fewer bytes than a chunk header are left: zeros, or a header cut short.
  if (offset < bytes_.size() && !AllZero(bytes_.subspan(offset))) {
    Damage(bytes_.size(), "the file ends inside a chunk header: it was cut short");
  }
  ended_ = true;
  return false;
}

std::optional<Record> RecordScanner::NextInChunk() {
  // (A chunk that Seek() entered again is shorter than it was only in a file changed since.)
  while (next_record_ <= chunk_end_ && chunk_end_ - next_record_ >= sizeof(RecordHeader)) {
    const uint64_t offset = next_record_;
    Passed(offset);
    const auto header = Load<RecordHeader>(bytes_.data() + offset);
    if (header.size == 0 && header.type == 0 && header.flags == 0) {
      // End of this chunk's records. Bytes after it mean a record was being written when the
      // process died: a torn record, skipped.
      if (!AllZero(bytes_.subspan(offset, chunk_end_ - offset))) ++stats_.torn_records;
      break;
    }
    // A chunk the file cuts short: a record it cuts short is not damage of its own.
    if (cut_ && header.size > chunk_end_ - offset && header.size % 8 == 0) break;
    if (header.size < sizeof(RecordHeader) + 8 || header.size % 8 != 0 ||
        header.size > chunk_end_ - offset) {
      Damage(offset, "invalid record size");
      break;
    }
    next_record_ = offset + header.size;
    const auto type = static_cast<RecordType>(header.type);
    auto body = bytes_.subspan(offset + sizeof(RecordHeader), header.size - sizeof(RecordHeader));
    if (header.type < static_cast<uint16_t>(kFirstRecordType) ||
        header.type > static_cast<uint16_t>(kLastRecordType)) {
      ++stats_.unknown_records;
    } else if (auto record = DecodeRecordBody(type, body); record.ok()) {
      record->tid = tid_;
      record->snapshot = (header.flags & kRecordFlagSnapshot) != 0;
      ++stats_.records;
      record_ = offset;
      return std::move(record).value();
    } else {
      Damage(offset, record.status().message().c_str());
    }
  }
  in_chunk_ = false;
  return std::nullopt;
}

void RecordScanner::Passed(uint64_t offset) {
  if (file_ == nullptr || offset - evicted_ < base::MappedFile::kEvictEvery) return;
  file_->Evict(evicted_, offset);
  evicted_ = offset;
}

void RecordScanner::Damage(uint64_t offset, const char* what) {
  ++stats_.damaged_regions;
  if (damage_.ok()) {
    damage_ = base::Status::Error("damaged trace at offset %llu: %s",
                                  static_cast<unsigned long long>(offset), what);
  }
}

}  // namespace jitscope::trace
