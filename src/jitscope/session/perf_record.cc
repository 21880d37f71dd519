// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/session/perf_record.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>

namespace jitscope::session {

bool IsAnonymousMemory(std::string_view name) {
  if (name.empty() || name == "//anon" || name == "[heap]" || name == "[stack]") return true;
  for (std::string_view prefix : {"[anon:", "[anon_shmem:", "[stack:", "memfd:", "/memfd:",
                                  "/dev/zero", "/SYSV", "/anon_hugepage", "anon_inode:"}) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

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

// The fields of the sample_id_all trailer every non-sample record ends with, in this order, each
// present when sample_type has its bit (perf_event_open(2), "sample_id"); each is 8 bytes.
constexpr uint64_t kTrailerFields = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                                    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
                                    PERF_SAMPLE_IDENTIFIER;

size_t TrailerSize(const SampleLayout& layout) {
  if (!layout.sample_id_all) return 0;
  return 8 * static_cast<size_t>(std::popcount(layout.sample_type & kTrailerFields));
}

struct SampleId {
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t time = 0;
};

bool ReadTrailer(std::string_view bytes, const SampleLayout& layout, SampleId& id) {
  const size_t size = TrailerSize(layout);
  if (bytes.size() < sizeof(perf_event_header) + size) return false;
  Cursor cursor(bytes.substr(bytes.size() - size));
  if ((layout.sample_type & PERF_SAMPLE_TID) != 0 && !(cursor.Read(id.pid) && cursor.Read(id.tid)))
    return false;
  if ((layout.sample_type & PERF_SAMPLE_TIME) != 0 && !cursor.Read(id.time)) return false;
  return true;
}

// A NUL-terminated name padded to 8 bytes, followed by the trailer.
std::string ReadName(std::string_view rest, const SampleLayout& layout) {
  const size_t trailer = TrailerSize(layout);
  if (rest.size() < trailer) return {};
  rest.remove_suffix(trailer);
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
  regs.mask = mask & ((uint64_t{1} << kPerfRegisterCount) - 1);
  for (int reg = 0; reg < kPerfRegisterCount; ++reg) {
    if (((mask >> reg) & 1) != 0 && !cursor.Read(regs.values[static_cast<size_t>(reg)])) {
      return false;
    }
  }
  // Registers past the general-purpose ones (perf's XMM slots) are kept by nobody here.
  return cursor.Skip(8 * static_cast<size_t>(std::popcount(mask & ~regs.mask)));
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

// PERF_SAMPLE_READ: one value, or a group's values, each with the extras read_format asks for.
bool SkipRead(Cursor& cursor, uint64_t read_format) {
  const size_t extras = ((read_format & PERF_FORMAT_ID) != 0 ? 1 : 0) +
                        ((read_format & PERF_FORMAT_LOST) != 0 ? 1 : 0);
  const size_t times = ((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0 ? 1 : 0) +
                       ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0 ? 1 : 0);
  if ((read_format & PERF_FORMAT_GROUP) == 0) return cursor.Skip(8 * (1 + times + extras));
  uint64_t nr = 0;
  if (!cursor.Read(nr) || !cursor.Skip(8 * times)) return false;
  if (nr > cursor.remaining() / (8 * (1 + extras))) return false;
  return cursor.Skip(static_cast<size_t>(nr) * 8 * (1 + extras));
}

// PERF_SAMPLE_RAW: {u32 size; char data[size]}, padded by the kernel to 8 bytes in all.
bool SkipRaw(Cursor& cursor) {
  uint32_t size = 0;
  return cursor.Read(size) && cursor.Skip(size);
}

// PERF_SAMPLE_BRANCH_STACK: {u64 nr; u64 hw_idx if asked for; {from, to, flags} × nr}.
bool SkipBranchStack(Cursor& cursor, uint64_t branch_sample_type) {
  uint64_t nr = 0;
  if (!cursor.Read(nr)) return false;
  if ((branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) != 0 && !cursor.Skip(8)) return false;
  if (nr > cursor.remaining() / 24) return false;
  return cursor.Skip(static_cast<size_t>(nr) * 24);
}

// Fills `sample` (all of it: a reused one keeps only its call chain's capacity).
base::Status ParseSampleInto(Cursor cursor, size_t size, const SampleLayout& layout, uint16_t misc,
                             Sample& sample) {
  std::vector<CallchainEntry> callchain = std::move(sample.callchain);
  callchain.clear();
  sample = Sample{};
  sample.callchain = std::move(callchain);
  sample.off_cpu = (misc & kMiscOffCpu) != 0;
  const int reason = (misc & kMiscOffCpuReasonMask) >> kMiscOffCpuReasonShift;
  if (sample.off_cpu && reason <= static_cast<int>(OffCpuReason::kPoll)) {
    sample.off_cpu_reason = static_cast<OffCpuReason>(reason);
  }
  const uint64_t type = layout.sample_type;
  auto has = [type](uint64_t bit) { return (type & bit) != 0; };
  // The fields before the call chain, each 8 bytes, in perf_event_open(2)'s order.
  if ((has(PERF_SAMPLE_IDENTIFIER) && !cursor.Skip(8)) ||
      (has(PERF_SAMPLE_IP) && !cursor.Read(sample.ip)) ||
      (has(PERF_SAMPLE_TID) && !(cursor.Read(sample.pid) && cursor.Read(sample.tid))) ||
      (has(PERF_SAMPLE_TIME) && !cursor.Read(sample.time_ns)) ||
      (has(PERF_SAMPLE_ADDR) && !cursor.Skip(8)) || (has(PERF_SAMPLE_ID) && !cursor.Skip(8)) ||
      (has(PERF_SAMPLE_STREAM_ID) && !cursor.Skip(8)) ||
      (has(PERF_SAMPLE_CPU) && !cursor.Skip(8)) || (has(PERF_SAMPLE_PERIOD) && !cursor.Skip(8)) ||
      (has(PERF_SAMPLE_READ) && !SkipRead(cursor, layout.read_format))) {
    return Truncated("sample", size);
  }
  if (has(PERF_SAMPLE_CALLCHAIN)) {
    uint64_t nr = 0;
    if (!cursor.Read(nr)) return Truncated("sample", size);
    if (nr > cursor.remaining() / sizeof(uint64_t)) {
      return base::Status::Error("perf record: sample claims %llu call-chain entries in %zu bytes",
                                 static_cast<unsigned long long>(nr), size);
    }
    sample.callchain.reserve(nr);
    bool kernel = false;
    bool exact = false;
    bool guessed = false;
    bool interpreter = false;
    uint64_t method = 0, bcp = 0;
    for (uint64_t i = 0; i < nr; ++i) {
      uint64_t ip = 0;
      cursor.Read(ip);
      // Context markers (PERF_CONTEXT_KERNEL, _USER, ...) occupy the top 4095 values.
      if (ip >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) {
        if (layout.unwound && ip == kContextNotAfterCall) {
          exact = true;
        } else if (layout.unwound && ip == kContextGuessed) {
          guessed = true;
        } else if (layout.unwound && ip == kContextInterpreter) {
          // Its two words are entries of the chain too: nr counted them.
          if (nr - i - 1 < 2) return Truncated("sample's interpreter frame", size);
          cursor.Read(method);
          cursor.Read(bcp);
          i += 2;
          interpreter = true;
        } else if (layout.unwound && ip == kContextCapturedCode) {
          sample.on_captured_code = true;
        } else if (layout.unwound && ip >= kContextWalkEnd && ip - kContextWalkEnd <= kMaxWalkEnd) {
          sample.walk_end = static_cast<uint8_t>(ip - kContextWalkEnd);
        } else {
          kernel = ip == static_cast<uint64_t>(PERF_CONTEXT_KERNEL);
        }
        continue;
      }
      sample.callchain.push_back({ip, kernel, exact, guessed, interpreter, method, bcp});
      exact = false;
      interpreter = false;
      method = bcp = 0;
    }
  }
  if ((has(PERF_SAMPLE_RAW) && !SkipRaw(cursor)) ||
      (has(PERF_SAMPLE_BRANCH_STACK) && !SkipBranchStack(cursor, layout.branch_sample_type))) {
    return Truncated("sample", size);
  }
  if (has(PERF_SAMPLE_REGS_USER) && !ReadRegs(cursor, layout.regs_mask, sample.regs)) {
    return Truncated("sample's registers", size);
  }
  if (has(PERF_SAMPLE_STACK_USER) && !ReadStack(cursor, sample.stack)) {
    return Truncated("sample's stack", size);
  }
  // What follows (WEIGHT, DATA_SRC, ...) no report needs; the record's size bounds it.
  return base::Status::Ok();
}

// The record's header, checked against the bytes it came in.
base::StatusOr<perf_event_header> ReadHeader(Cursor& cursor, size_t size) {
  perf_event_header header{};
  if (!cursor.Read(header)) return Truncated("header", size);
  if (header.size != size) {
    return base::Status::Error("perf record: header size %u does not match %zu bytes", header.size,
                               size);
  }
  return header;
}

}  // namespace

bool IsSupportedLayout(const SampleLayout& layout) {
  if (layout.read_format != 0 || layout.branch_sample_type != 0 || !layout.sample_id_all) {
    return false;
  }
  if (layout.unwound) return layout.sample_type == kSampleType && layout.regs_mask == 0;
  if (layout.sample_type == kSampleType) return layout.regs_mask == 0;
  return layout.sample_type == kDwarfSampleType && layout.regs_mask != 0 &&
         (layout.regs_mask & ~kX86_64RegsMask) == 0;
}

base::Status ParseSampleRecord(std::string_view bytes, const SampleLayout& layout, Sample& out) {
  Cursor cursor(bytes);
  ASSIGN_OR_RETURN(const perf_event_header header, ReadHeader(cursor, bytes.size()));
  if (header.type == kRecordUnwoundSample) {
    return ParseSampleInto(cursor, bytes.size(), UnwoundSampleLayout(), header.misc, out);
  }
  if (header.type != PERF_RECORD_SAMPLE) {
    return base::Status::Error("perf record: record of type %u is not a sample", header.type);
  }
  return ParseSampleInto(cursor, bytes.size(), layout, header.misc, out);
}

bool EncodeUnwoundSample(const Sample& sample, std::span<const CallchainEntry> frames,
                         uint8_t walk_end, uint16_t misc, std::string& out, uint32_t type,
                         bool on_captured_code) {
  // The chain's entries: a context marker where kernel and user frames meet, the markers of
  // unwound samples, the frames and the walk's end.
  auto for_each_entry = [&](const auto& visit) {
    for (size_t i = 0; i < frames.size(); ++i) {
      const CallchainEntry& frame = frames[i];
      if (i == 0 || frame.kernel != frames[i - 1].kernel) {
        visit(static_cast<uint64_t>(frame.kernel ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER));
      }
      if (frame.guessed && (i == 0 || !frames[i - 1].guessed)) visit(kContextGuessed);
      if (i > 0 && frame.exact) visit(kContextNotAfterCall);
      if (frame.interpreter) {
        visit(kContextInterpreter);
        visit(frame.method);
        visit(frame.bcp);
      }
      visit(frame.ip);
    }
    if (on_captured_code) visit(kContextCapturedCode);
    visit(kContextWalkEnd + walk_end);
  };
  uint64_t nr = 0;
  for_each_entry([&nr](uint64_t) { ++nr; });
  // IP, TID (pid, tid), TIME, CALLCHAIN (nr, entries): kSampleType's fields.
  const size_t size = sizeof(perf_event_header) + 4 * sizeof(uint64_t) + nr * sizeof(uint64_t);
  if (size > UINT16_MAX) return false;
  out.clear();
  auto put = [&out](const auto& value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  put(perf_event_header{type, misc, static_cast<uint16_t>(size)});
  put(sample.ip);
  put(sample.pid);
  put(sample.tid);
  put(sample.time_ns);
  put(nr);
  for_each_entry(put);
  return true;
}

std::string_view CutStackCopy(std::string_view bytes, const SampleLayout& layout, Sample& scratch,
                              std::string& out) {
  perf_event_header header{};
  if ((layout.sample_type & PERF_SAMPLE_STACK_USER) == 0 || bytes.size() < sizeof(header)) {
    return bytes;
  }
  std::memcpy(&header, bytes.data(), sizeof(header));
  if (header.type != PERF_RECORD_SAMPLE || !ParseSampleRecord(bytes, layout, scratch).ok() ||
      scratch.stack.data() == nullptr) {
    return bytes;
  }
  // {u64 size; char data[size]; u64 dyn_size}, where `stack` is data's first dyn_size bytes.
  const size_t data_at = static_cast<size_t>(scratch.stack.data() - bytes.data());
  uint64_t size = 0;
  std::memcpy(&size, bytes.data() + data_at - sizeof(size), sizeof(size));
  const uint64_t kept = (scratch.stack.size() + 7) & ~uint64_t{7};
  if (kept >= size) return bytes;
  out.assign(bytes.substr(0, data_at - sizeof(size)));
  out.append(reinterpret_cast<const char*>(&kept), sizeof(kept));
  out.append(bytes.substr(data_at, static_cast<size_t>(kept)));
  // dyn_size follows data only when size is not 0, and what follows it (no field jitscope asks
  // for) is kept as it is.
  const size_t after = data_at + static_cast<size_t>(size);
  out.append(bytes.substr(kept == 0 ? after + sizeof(uint64_t) : after));
  const auto new_size = static_cast<uint16_t>(out.size());
  std::memcpy(out.data() + offsetof(perf_event_header, size), &new_size, sizeof(new_size));
  return out;
}

base::StatusOr<PerfRecord> ParsePerfRecord(std::string_view bytes, const SampleLayout& layout) {
  Cursor cursor(bytes);
  ASSIGN_OR_RETURN(const perf_event_header header, ReadHeader(cursor, bytes.size()));
  SampleId id;
  switch (header.type) {
    case PERF_RECORD_SAMPLE: {
      Sample sample;
      RETURN_IF_ERROR(ParseSampleInto(cursor, bytes.size(), layout, header.misc, sample));
      return PerfRecord(std::move(sample));
    }
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2: {
      Mapping mapping;
      if (!cursor.Read(mapping.pid) || !cursor.Read(mapping.tid) || !cursor.Read(mapping.start) ||
          !cursor.Read(mapping.length) || !cursor.Read(mapping.file_offset)) {
        return Truncated("mmap", bytes.size());
      }
      // MMAP2 adds {maj, min, ino, ino_generation} or, with PERF_RECORD_MISC_MMAP_BUILD_ID,
      // {build_id_size (1 byte), 3 reserved, build_id[20]} (24 bytes either way), then
      // {prot, flags}.
      if (header.type == PERF_RECORD_MMAP2) {
        const std::string_view identity = cursor.rest().substr(0, 24);
        if (!cursor.Skip(24 + 8)) return Truncated("mmap2", bytes.size());
        // A size above 20 or reserved bytes that are not 0 are a device and inode under a flag
        // the kernel left set (Linux 6.1 leaks it from an event that asked for build ids into
        // the records of events that did not): no build id, rather than a wrong one.
        const auto size = static_cast<uint8_t>(identity[0]);
        const bool reserved_clear = identity[1] == 0 && identity[2] == 0 && identity[3] == 0;
        if ((header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) != 0 && size <= 20 && reserved_clear) {
          mapping.build_id =
              BuildIdHex({reinterpret_cast<const uint8_t*>(identity.data()) + 4, size});
        }
      }
      if (!ReadTrailer(bytes, layout, id)) return Truncated("mmap", bytes.size());
      mapping.time_ns = id.time;
      mapping.filename = ReadName(cursor.rest(), layout);
      return PerfRecord(std::move(mapping));
    }
    case PERF_RECORD_COMM: {
      Comm comm;
      if (!cursor.Read(comm.pid) || !cursor.Read(comm.tid) || !ReadTrailer(bytes, layout, id)) {
        return Truncated("comm", bytes.size());
      }
      comm.time_ns = id.time;
      comm.exec = (header.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
      comm.name = ReadName(cursor.rest(), layout);
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
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE: {
      // A CPU's record adds {next_prev_pid, next_prev_tid}, the other task of the switch; the
      // trailer names the task switched out or in, and when.
      const size_t body = header.type == PERF_RECORD_SWITCH_CPU_WIDE ? 8 : 0;
      if (bytes.size() < sizeof(perf_event_header) + body + TrailerSize(layout) ||
          !ReadTrailer(bytes, layout, id)) {
        return Truncated("switch", bytes.size());
      }
      return PerfRecord(
          Switch{.pid = id.pid,
                 .tid = id.tid,
                 .time_ns = id.time,
                 .out = (header.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0,
                 .preempted = (header.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0});
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

std::optional<uint64_t> PerfRecordId(std::string_view bytes, uint64_t sample_type,
                                     bool sample_id_all) {
  perf_event_header header{};
  if (bytes.size() < sizeof(header)) return std::nullopt;
  std::memcpy(&header, bytes.data(), sizeof(header));
  auto at = [bytes](size_t offset) -> std::optional<uint64_t> {
    uint64_t value = 0;
    if (offset < sizeof(perf_event_header) || offset > bytes.size() - sizeof(value)) {
      return std::nullopt;
    }
    std::memcpy(&value, bytes.data() + offset, sizeof(value));
    return value;
  };
  if (header.type == PERF_RECORD_SAMPLE) {
    if ((sample_type & PERF_SAMPLE_IDENTIFIER) != 0) return at(sizeof(header));
    if ((sample_type & PERF_SAMPLE_ID) == 0) return std::nullopt;
    const uint64_t before =
        sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR);
    return at(sizeof(header) + 8 * static_cast<size_t>(std::popcount(before)));
  }
  // Records perf itself adds (types from PERF_RECORD_USER_TYPE_START, 64) carry no trailer.
  if (!sample_id_all || header.type >= 64 || bytes.size() < 8) return std::nullopt;
  if ((sample_type & PERF_SAMPLE_IDENTIFIER) != 0) return at(bytes.size() - 8);
  if ((sample_type & PERF_SAMPLE_ID) == 0) return std::nullopt;
  const size_t after = 8 * (1 + static_cast<size_t>(std::popcount(
                                    sample_type & (PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU))));
  if (bytes.size() < after) return std::nullopt;
  return at(bytes.size() - after);
}

std::string BuildIdHex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes.size());
  for (const uint8_t byte : bytes) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xf];
  }
  return hex;
}

}  // namespace jitscope::session
