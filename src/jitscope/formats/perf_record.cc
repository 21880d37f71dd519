// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/perf_record.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>

namespace jitscope::formats {
namespace {

// A bounds-checked cursor over one record's bytes.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}

  template <typename T>
  bool Read(T& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (bytes_.size() - position_ < sizeof(T)) return false;
    std::memcpy(&out, bytes_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return true;
  }
  bool Skip(size_t n) {
    if (bytes_.size() - position_ < n) return false;
    position_ += n;
    return true;
  }
  size_t remaining() const { return bytes_.size() - position_; }
  std::string_view rest() const { return bytes_.substr(position_); }

 private:
  std::string_view bytes_;
  size_t position_ = 0;
};

// sample_id_all with sample_type TID|TIME appends {u32 pid, u32 tid; u64 time} to every
// non-sample record (perf_event_open(2), "sample_id").
constexpr size_t kSampleIdSize = 16;

struct SampleId {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time = 0;
};

bool ReadTrailer(std::string_view bytes, SampleId& id) {
  if (bytes.size() < sizeof(perf_event_header) + kSampleIdSize) return false;
  Cursor cursor(bytes.substr(bytes.size() - kSampleIdSize));
  return cursor.Read(id.pid) && cursor.Read(id.tid) && cursor.Read(id.time);
}

// A NUL-terminated name padded to 8 bytes, followed by the trailer.
std::string ReadName(std::string_view rest) {
  if (rest.size() < kSampleIdSize) return {};
  rest.remove_suffix(kSampleIdSize);
  const size_t end = rest.find('\0');
  return std::string(rest.substr(0, end));
}

base::Status Truncated(const char* what, size_t size) {
  return base::Status::Error("perf record: %s record of %zu bytes is truncated", what, size);
}

// PERF_SAMPLE_REGS_USER: {u64 abi; u64 regs[popcount(mask)] if abi != NONE}.
bool ReadRegs(Cursor& cursor, uint64_t mask, UserRegs& regs) {
  if (!cursor.Read(regs.abi)) return false;
  if (regs.abi == PERF_SAMPLE_REGS_ABI_NONE) return true;
  regs.mask = mask;
  for (int reg = 0; reg < kPerfRegisterCount; ++reg) {
    if (((mask >> reg) & 1) != 0 && !cursor.Read(regs.values[static_cast<size_t>(reg)])) {
      return false;
    }
  }
  return true;
}

// PERF_SAMPLE_STACK_USER: {u64 size; char data[size]; u64 dyn_size if size != 0}. Only the first
// dyn_size bytes were copied from the stack; the kernel may shrink `size` to fit the record.
bool ReadStack(Cursor& cursor, std::string_view& stack) {
  uint64_t size = 0;
  if (!cursor.Read(size)) return false;
  if (size == 0) return true;
  const std::string_view data = cursor.rest();
  uint64_t dyn_size = 0;
  if (size > data.size() || !cursor.Skip(static_cast<size_t>(size)) || !cursor.Read(dyn_size)) {
    return false;
  }
  stack = data.substr(0, static_cast<size_t>(std::min(size, dyn_size)));
  return true;
}

base::StatusOr<PerfRecord> ParseSample(Cursor cursor, size_t size, const SampleLayout& layout) {
  Sample sample;
  uint64_t nr = 0;
  if (!cursor.Read(sample.ip) || !cursor.Read(sample.pid) || !cursor.Read(sample.tid) ||
      !cursor.Read(sample.time_ns) || !cursor.Read(nr)) {
    return Truncated("sample", size);
  }
  if (nr > cursor.remaining() / sizeof(uint64_t)) {
    return base::Status::Error("perf record: sample claims %llu call-chain entries in %zu bytes",
                               static_cast<unsigned long long>(nr), size);
  }
  sample.callchain.reserve(nr);
  bool kernel = false;
  for (uint64_t i = 0; i < nr; ++i) {
    uint64_t ip = 0;
    cursor.Read(ip);
    // Context markers (PERF_CONTEXT_KERNEL, _USER, ...) occupy the top 4095 values.
    if (ip >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) {
      kernel = ip == static_cast<uint64_t>(PERF_CONTEXT_KERNEL);
      continue;
    }
    sample.callchain.push_back({ip, kernel});
  }
  if ((layout.sample_type & PERF_SAMPLE_REGS_USER) != 0 &&
      !ReadRegs(cursor, layout.regs_mask, sample.regs)) {
    return Truncated("sample's registers", size);
  }
  if ((layout.sample_type & PERF_SAMPLE_STACK_USER) != 0 && !ReadStack(cursor, sample.stack)) {
    return Truncated("sample's stack", size);
  }
  return PerfRecord(std::move(sample));
}

}  // namespace

bool IsSupportedLayout(const SampleLayout& layout) {
  if (layout.sample_type == kSampleType) return layout.regs_mask == 0;
  return layout.sample_type == kDwarfSampleType && layout.regs_mask != 0 &&
         (layout.regs_mask & ~kX86_64RegsMask) == 0;
}

base::StatusOr<PerfRecord> ParsePerfRecord(std::string_view bytes, const SampleLayout& layout) {
  Cursor cursor(bytes);
  perf_event_header header{};
  if (!cursor.Read(header)) return Truncated("header", bytes.size());
  if (header.size != bytes.size()) {
    return base::Status::Error("perf record: header size %u does not match %zu bytes", header.size,
                               bytes.size());
  }
  SampleId id;
  switch (header.type) {
    case PERF_RECORD_SAMPLE:
      return ParseSample(cursor, bytes.size(), layout);
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2: {
      Mapping mapping;
      if (!cursor.Read(mapping.pid) || !cursor.Read(mapping.tid) || !cursor.Read(mapping.start) ||
          !cursor.Read(mapping.length) || !cursor.Read(mapping.file_offset)) {
        return Truncated("mmap", bytes.size());
      }
      // MMAP2 adds {maj, min, ino, ino_generation} or {build_id...} (24 bytes either way), then
      // {prot, flags}.
      if (header.type == PERF_RECORD_MMAP2 && !cursor.Skip(24 + 8)) {
        return Truncated("mmap2", bytes.size());
      }
      if (!ReadTrailer(bytes, id)) return Truncated("mmap", bytes.size());
      mapping.time_ns = id.time;
      mapping.filename = ReadName(cursor.rest());
      return PerfRecord(std::move(mapping));
    }
    case PERF_RECORD_COMM: {
      Comm comm;
      if (!cursor.Read(comm.pid) || !cursor.Read(comm.tid) || !ReadTrailer(bytes, id)) {
        return Truncated("comm", bytes.size());
      }
      comm.time_ns = id.time;
      comm.exec = (header.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
      comm.name = ReadName(cursor.rest());
      return PerfRecord(std::move(comm));
    }
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: {
      Task task;
      task.exit = header.type == PERF_RECORD_EXIT;
      if (!cursor.Read(task.pid) || !cursor.Read(task.ppid) || !cursor.Read(task.tid) ||
          !cursor.Read(task.ptid) || !cursor.Read(task.time_ns)) {
        return Truncated("fork/exit", bytes.size());
      }
      return PerfRecord(task);
    }
    case PERF_RECORD_LOST: {
      uint64_t event_id = 0;
      Lost lost;
      if (!cursor.Read(event_id) || !cursor.Read(lost.count))
        return Truncated("lost", bytes.size());
      return PerfRecord(lost);
    }
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE:
      return PerfRecord(Throttle{header.type == PERF_RECORD_UNTHROTTLE});
    default:
      return PerfRecord(Other{header.type});
  }
}

}  // namespace jitscope::formats
