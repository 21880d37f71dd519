// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/reader.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
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

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, ParsedTrace& out) : bytes_(bytes), out_(out) {}

  void ParseChunks(uint64_t first_chunk, uint32_t granule) {
    uint64_t offset = first_chunk;
    while (offset < bytes_.size() && bytes_.size() - offset >= sizeof(ChunkHeader)) {
      const auto header = Load<ChunkHeader>(bytes_.data() + offset);
      if (header.magic != kChunkMagic) {
        // No magic: a granule nobody claimed, or a chunk whose thread was killed before it
        // published the chunk (the writer stores the tid and size first and the magic last, and
        // writes records only after that), so nothing in it is a record. Any other magic, or
        // bytes in a granule whose header is all zeros, is damage.
        const uint64_t span = std::min<uint64_t>(granule, bytes_.size() - offset);
        if (header.magic != 0 ||
            (header.tid == 0 && header.size == 0 && !AllZero(bytes_.subspan(offset, span)))) {
          Damage(offset, "invalid chunk header");
        }
        offset += granule;
        continue;
      }
      if (header.size < granule || header.size % granule != 0) {
        Damage(offset, "invalid chunk size");
        offset += granule;
        continue;
      }
      ++out_.stats.chunks;
      // The writer grows the file a whole segment at a time and cuts it only after a chunk's end
      // (writer.h), so a file that ends inside a chunk was cut short after it was written (a
      // truncated copy): damage, said once, at the cut. The chunk is read as far as it goes.
      const bool cut = header.size > bytes_.size() - offset;
      if (cut) Damage(bytes_.size(), "the file ends inside a chunk: it was cut short");
      const uint64_t end = cut ? bytes_.size() : offset + header.size;
      ParseRecords(offset + sizeof(ChunkHeader), end, header.tid, cut);
      offset += header.size;
    }
    // Fewer bytes than a chunk header are left: zeros, or a header cut short.
    if (offset < bytes_.size() && !AllZero(bytes_.subspan(offset))) {
      Damage(bytes_.size(), "the file ends inside a chunk header: it was cut short");
    }
  }

 private:
  // `cut`: the file ends at `end`, inside the chunk (already reported): a record it cuts short
  // is not damage of its own.
  void ParseRecords(uint64_t offset, uint64_t end, uint32_t tid, bool cut) {
    while (end - offset >= sizeof(RecordHeader)) {
      const auto header = Load<RecordHeader>(bytes_.data() + offset);
      if (header.size == 0 && header.type == 0 && header.flags == 0) {
        // End of this chunk's records. Bytes after it mean a record was being written when the
        // process died: a torn record, skipped.
        if (!AllZero(bytes_.subspan(offset, end - offset))) ++out_.stats.torn_records;
        return;
      }
      if (cut && header.size > end - offset && header.size % 8 == 0) return;
      if (header.size < sizeof(RecordHeader) + 8 || header.size % 8 != 0 ||
          header.size > end - offset) {
        Damage(offset, "invalid record size");
        return;
      }
      const auto type = static_cast<RecordType>(header.type);
      auto body = bytes_.subspan(offset + sizeof(RecordHeader), header.size - sizeof(RecordHeader));
      if (header.type < static_cast<uint16_t>(kFirstRecordType) ||
          header.type > static_cast<uint16_t>(kLastRecordType)) {
        ++out_.stats.unknown_records;
      } else if (auto record = DecodeRecordBody(type, body); record.ok()) {
        record->tid = tid;
        record->snapshot = (header.flags & kRecordFlagSnapshot) != 0;
        out_.records.push_back(std::move(record).value());
        ++out_.stats.records;
      } else {
        Damage(offset, record.status().message().c_str());
      }
      offset += header.size;
    }
  }

  void Damage(uint64_t offset, const char* what) {
    ++out_.stats.damaged_regions;
    if (out_.damage.ok()) {
      out_.damage = base::Status::Error("damaged trace at offset %llu: %s",
                                        static_cast<unsigned long long>(offset), what);
    }
  }

  std::span<const uint8_t> bytes_;
  ParsedTrace& out_;
};

}  // namespace

bool LooksLikeTrace(std::span<const uint8_t> bytes) {
  return bytes.size() >= sizeof(kFileMagic) &&
         std::memcmp(bytes.data(), kFileMagic, sizeof(kFileMagic)) == 0;
}

base::StatusOr<ParsedTrace> ParseTrace(std::span<const uint8_t> bytes) {
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

  ParsedTrace trace;
  trace.header.version = header.version;
  trace.header.pid = header.pid;
  trace.header.pointer_size = header.pointer_size;
  trace.header.start_monotonic_ns = header.start_monotonic_ns;
  trace.header.start_realtime_ns = header.start_realtime_ns;
  trace.header.exe_path = std::string_view(
      reinterpret_cast<const char*>(bytes.data() + sizeof(FileHeader)), header.exe_path_size);
  if (const size_t image = (sizeof(FileHeader) + header.exe_path_size + 7) / 8 * 8;
      image + sizeof(ImageExtension) <= header.header_size) {
    const auto extension = Load<ImageExtension>(bytes.data() + image);
    if (std::memcmp(extension.magic, kImageMagic, sizeof(kImageMagic)) == 0) {
      std::memcpy(trace.header.image.data(), extension.id, sizeof(extension.id));
    }
  }
  // Room for as many records as the file could hold (16 bytes each at the least), capped: a trace
  // of a million methods then fills the vector without copying it, and the room it never uses is
  // never touched.
  constexpr size_t kMaxReserved = size_t{1} << 22;
  trace.records.reserve(std::min<size_t>(bytes.size() / 16, kMaxReserved));
  Parser(bytes, trace).ParseChunks(header.header_size, header.granule);
  // Each thread's chunks are in time order; so is the whole file when one thread reported.
  auto by_time = [](const Record& a, const Record& b) { return a.timestamp < b.timestamp; };
  if (!std::is_sorted(trace.records.begin(), trace.records.end(), by_time)) {
    // Sorted by (time, file position), then moved into place once: records are large, and
    // moving them in every merge pass of a stable sort cost most of the parsing.
    std::vector<std::pair<uint64_t, size_t>> order(trace.records.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = {trace.records[i].timestamp, i};
    std::sort(order.begin(), order.end());
    std::vector<Record> sorted;
    sorted.reserve(order.size());
    for (const auto& [time, index] : order) sorted.push_back(std::move(trace.records[index]));
    trace.records = std::move(sorted);
  }
  return trace;
}

base::StatusOr<base::MappedFile> HoldFile(const std::string& path) {
  ASSIGN_OR_RETURN(base::MappedFile mapped, base::MappedFile::Open(path));
  const std::span<const uint8_t> bytes(mapped.data(), mapped.size());
  // The header is never cut off: the collector trims only what follows its last chunk.
  if (!LooksLikeTrace(bytes) || bytes.size() < sizeof(FileHeader)) return mapped;
  const auto pid = static_cast<pid_t>(Load<FileHeader>(bytes.data()).pid);
  // A pid reused by another process, or one of another pid namespace, costs a needless copy.
  const bool runs = pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
  if (!runs) return mapped;
  return base::MappedFile::Copy(path);
}

base::StatusOr<TraceFile> TraceFile::Open(const std::string& path) {
  ASSIGN_OR_RETURN(base::MappedFile file, HoldFile(path));
  auto parsed = ParseTrace({file.data(), file.size()});
  if (!parsed.ok()) {
    return base::Status::Error("%s: %s", path.c_str(), parsed.status().message().c_str());
  }
  ParsedTrace trace = std::move(parsed).value();
  if (!trace.damage.ok()) {
    trace.damage = base::Status::Error("%s: %s", path.c_str(), trace.damage.message().c_str());
  }
  return TraceFile(std::move(file), std::move(trace));
}

}  // namespace jitscope::trace
