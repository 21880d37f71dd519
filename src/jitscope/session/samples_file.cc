// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/session/samples_file.h"

#include <fcntl.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <optional>

#include "jitscope/base/file_window.h"
#include "jitscope/base/files.h"
#include "jitscope/session/perf_record.h"

namespace jitscope::session {
namespace {

constexpr size_t kBufferSize = 256 * 1024;

template <typename T>
void Put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

template <typename T>
T Get(std::string_view bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(value));
  return value;
}

}  // namespace

base::StatusOr<SamplesWriter> SamplesWriter::Create(const std::string& directory, uint64_t flags,
                                                    const SamplesFormat& format, const char* name) {
  if (!IsSupportedLayout(format.layout)) {
    return base::Status::Error("samples of sample_type 0x%llx are not supported",
                               static_cast<unsigned long long>(format.layout.sample_type));
  }
  ASSIGN_OR_RETURN(base::ScopedFd fd, base::CreateExclusive(directory, name, 0600));
  SamplesWriter writer(std::move(fd), format.layout);
  writer.buffer_ = EncodeSamplesHeader(flags, format);
  writer.buffer_.reserve(kBufferSize);
  RETURN_IF_ERROR(writer.Flush());
  return writer;
}

std::string EncodeSamplesHeader(uint64_t flags, const SamplesFormat& format) {
  if (format.layout.unwound) flags |= kFlagUnwound;
  std::string header(kSamplesMagic, sizeof(kSamplesMagic));
  Put(header, kSamplesVersion);
  Put(header, kSamplesHeaderSize);
  Put(header, format.layout.sample_type);
  Put(header, flags);
  Put(header, format.layout.regs_mask);
  Put(header, format.stack_size);
  return header;
}

SamplesWriter::~SamplesWriter() {
  if (fd_) (void)Flush();  // best effort; the session calls Flush() and reports its error
}

base::Status SamplesWriter::Append(std::string_view record) {
  record = CutStackCopy(record, layout_, scratch_, cut_);
  records_bytes_ += record.size();
  if (buffer_.size() + record.size() > kBufferSize) RETURN_IF_ERROR(Flush());
  buffer_.append(record);
  return base::Status::Ok();
}

base::Status SamplesWriter::Flush() {
  if (buffer_.empty()) return base::Status::Ok();
  base::Status status = base::WriteAll(fd_.get(), buffer_.data(), buffer_.size());
  buffer_.clear();
  return status;
}

base::Status SampleList::Add(std::string_view record, const char* kept_at) {
  RETURN_IF_ERROR(ParseSampleRecord(record, layout_, scratch_));
  Append(kept_at != nullptr ? std::string_view(kept_at, record.size()) : record, scratch_.time_ns,
         scratch_.pid);
  return base::Status::Ok();
}

void SampleList::Append(std::string_view record, uint64_t time_ns, uint32_t pid) {
  // Most samples are of the process the one before was of.
  if (records_.empty() || pid != last_pid_) {
    const auto at = std::lower_bound(pids_.begin(), pids_.end(), pid);
    if (at == pids_.end() || *at != pid) pids_.insert(at, pid);
    last_pid_ = pid;
  }
  if (!records_.empty()) {
    if (record.data() <= records_.back()) ascending_ = false;
    if (time_ns < last_time_ns_) in_time_order_ = false;
  }
  last_time_ns_ = time_ns;
  records_.push_back(record.data());
}

void SampleList::ReserveFor(size_t bytes) {
  // Every field before the call chain, and the call chain's length, is 8 bytes.
  constexpr uint64_t kFixed = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                              PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                              PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                              PERF_SAMPLE_CALLCHAIN;
  const size_t smallest = sizeof(perf_event_header) +
                          8 * static_cast<size_t>(std::popcount(layout_.sample_type & kFixed));
  records_.reserve(records_.size() + bytes / smallest);
}

std::string_view SampleList::record(size_t i) const {
  const char* start = records_[i];
  return {start, Get<perf_event_header>({start, sizeof(perf_event_header)}, 0).size};
}

void SampleList::Decode(size_t i, Sample& out) const {
  // Cannot fail: the record decoded when it was added (Add, or AddRecord's decoded sample).
  (void)ParseSampleRecord(record(i), layout_, out);
}

Sample SampleList::operator[](size_t i) const {
  Sample sample;
  Decode(i, sample);
  return sample;
}

size_t SampleList::TimeOffset() const {
  // Every field before PERF_SAMPLE_TIME is 8 bytes (perf_event_open(2)'s order), and a record
  // decoded when it was added holds them all.
  const uint64_t before =
      layout_.sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID);
  return sizeof(perf_event_header) + 8 * static_cast<size_t>(std::popcount(before));
}

uint64_t SampleList::time_ns(size_t i) const {
  if ((layout_.sample_type & PERF_SAMPLE_TIME) == 0) return 0;
  const size_t offset = TimeOffset();
  return Get<uint64_t>({records_[i], offset + sizeof(uint64_t)}, offset);
}

void SampleList::SortByTime(const base::MappedFile* file, base::FileWindow* window) {
  if (in_time_order_) return;
  // The times are read again from the records, as they are only needed here: for a moment the
  // list takes 24 bytes a sample, never more.
  struct Timed {
    uint64_t time_ns;
    const char* record;
  };
  std::vector<Timed> timed;
  timed.reserve(records_.size());
  const auto* base = file != nullptr ? reinterpret_cast<const char*>(file->data()) : nullptr;
  const bool timed_samples = (layout_.sample_type & PERF_SAMPLE_TIME) != 0;
  const size_t time_offset = TimeOffset();
  size_t evicted = 0;
  for (size_t i = 0; i < records_.size(); ++i) {
    const bool in_file = file != nullptr && file->Holds(records_[i]);
    const auto offset = in_file ? static_cast<size_t>(records_[i] - base) : 0;
    std::optional<std::string_view> head;
    // In file order the window releases behind it; out of it, it would hold all it read.
    if (in_file && window != nullptr && ascending_ && timed_samples) {
      head = window->Read(offset + time_offset, sizeof(uint64_t));
      window->Release(offset);
    }
    timed.push_back({head ? Get<uint64_t>(*head, 0) : time_ns(i), records_[i]});
    if (in_file && window == nullptr && ascending_ &&
        offset - evicted >= base::MappedFile::kEvictEvery) {
      file->Evict(evicted, offset);
      evicted = offset;
    }
  }
  std::vector<const char*>().swap(records_);
  if (ascending_) {
    // The addresses say the order the records were added in, so sorting by time and then
    // address is the stable sort, done in place: stable_sort's buffer would be half the list
    // again.
    std::sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) {
      return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.record < b.record;
    });
  } else {
    std::stable_sort(timed.begin(), timed.end(),
                     [](const Timed& a, const Timed& b) { return a.time_ns < b.time_ns; });
  }
  records_.reserve(timed.size());
  for (const Timed& t : timed) records_.push_back(t.record);
  in_time_order_ = true;
}

namespace {

// RecordAt of a samples file of `size` bytes, read through `window`.
std::optional<std::string_view> RecordThrough(base::FileWindow& window, size_t size,
                                              size_t offset) {
  if (offset > size || size - offset < sizeof(perf_event_header)) return std::nullopt;
  const std::optional<std::string_view> head = window.Read(offset, sizeof(perf_event_header));
  if (!head) return std::nullopt;
  const auto header = Get<perf_event_header>(*head, 0);
  if (header.size < sizeof(perf_event_header) || header.size > size - offset) return std::nullopt;
  return window.Read(offset, header.size);
}

// Gives back the pages of a mapped file that only samples already visited are in. The samples go
// in blocks; before each block, the file's pages before the first record of it or of any later
// block are evicted (or, when the samples are read through a base::FileWindow, released from
// it). Time order is not quite file order (a recorder drains one ring per CPU in turn, so the file
// interleaves CPUs a drain round at a time), so what stays is about a block and the records of a
// round.
class BehindVisits {
 public:
  static constexpr size_t kBlock = 256;

  BehindVisits(const base::MappedFile* file, const SampleList& samples,
               base::FileWindow* window = nullptr)
      : file_(file), window_(window) {
    if (file_ == nullptr) return;
    const size_t count = samples.size();
    const auto* base = reinterpret_cast<const char*>(file_->data());
    const size_t blocks = (count + kBlock - 1) / kBlock;
    lowest_.assign(blocks + 1, file_->size());
    for (size_t block = blocks; block-- > 0;) {
      size_t low = lowest_[block + 1];
      for (size_t i = block * kBlock; i < std::min(count, (block + 1) * kBlock); ++i) {
        const char* start = samples.record_start(i);
        // Samples whose records are elsewhere (the other file of a perf.data) are not in it.
        if (file_->Holds(start)) low = std::min(low, static_cast<size_t>(start - base));
      }
      lowest_[block] = low;
    }
  }

  // Before the i-th sample is visited.
  void Before(size_t i) {
    if (file_ == nullptr || i % kBlock != 0 || lowest_[i / kBlock] <= evicted_) return;
    if (window_ != nullptr) {
      window_->Release(lowest_[i / kBlock]);
    } else {
      file_->Evict(evicted_, lowest_[i / kBlock]);
    }
    evicted_ = lowest_[i / kBlock];
  }

 private:
  const base::MappedFile* file_;
  base::FileWindow* window_;
  std::vector<size_t> lowest_;  // per block and one past the last: that file offset
  size_t evicted_ = 0;
};

}  // namespace

void SampleData::ForEachSample(const std::function<void(const Sample&)>& visit) const {
  std::optional<base::FileWindow> window;
  if (file != nullptr && file_fd) window.emplace(file_fd.get(), file->size());
  BehindVisits in_file(file.get(), samples, window ? &*window : nullptr);
  BehindVisits in_decompressed(decompressed.get(), samples);
  Sample sample;
  for (size_t i = 0; i < samples.size(); ++i) {
    in_file.Before(i);
    in_decompressed.Before(i);
    const char* start = samples.record_start(i);
    std::optional<std::string_view> read;
    if (window && file->Holds(start)) {
      const auto* base = reinterpret_cast<const char*>(file->data());
      read = RecordThrough(*window, file->size(), static_cast<size_t>(start - base));
    }
    if (read) {
      // Cannot fail: the same bytes decoded when the sample was added.
      (void)ParseSampleRecord(*read, samples.layout(), sample);
    } else {
      samples.Decode(i, sample);
    }
    visit(sample);
  }
}

void AddRecord(std::string_view bytes, PerfRecord&& record, SampleData& data) {
  std::visit(
      [&data, bytes](auto&& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, Sample>) {
          data.samples.Append(bytes, value.time_ns, value.pid);
        } else if constexpr (std::is_same_v<T, Mapping>) {
          data.mappings.push_back(std::move(value));
        } else if constexpr (std::is_same_v<T, Comm>) {
          data.comms.push_back(std::move(value));
        } else if constexpr (std::is_same_v<T, Task>) {
          data.tasks.push_back(value);
        } else if constexpr (std::is_same_v<T, Switch>) {
          data.switches.push_back(value);
        } else if constexpr (std::is_same_v<T, Lost>) {
          data.counters.lost_samples += value.count;
        } else if constexpr (std::is_same_v<T, Throttle>) {
          if (!value.unthrottle) ++data.counters.throttled;
        } else {
          ++data.counters.unknown_records;
        }
      },
      record);
}

void SortByTime(SampleData& data) {
  // Each CPU has its own ring and a recorder drains them in turn, so a file interleaves CPUs by
  // drain round; consumers expect each list in time order. Stable, so records with one timestamp
  // (a FORK and the child's first COMM) keep the kernel's order.
  auto by_time = [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; };
  // A perf record -z file's samples are in the records decompressed from it.
  if (data.decompressed) {
    data.samples.SortByTime(data.decompressed.get());
  } else if (data.file != nullptr && data.file_fd) {
    base::FileWindow window(data.file_fd.get(), data.file->size());
    data.samples.SortByTime(data.file.get(), &window);
  } else {
    data.samples.SortByTime(data.file.get());
  }
  std::stable_sort(data.mappings.begin(), data.mappings.end(), by_time);
  std::stable_sort(data.comms.begin(), data.comms.end(), by_time);
  std::stable_sort(data.tasks.begin(), data.tasks.end(), by_time);
  std::stable_sort(data.switches.begin(), data.switches.end(), by_time);
}

base::StatusOr<SamplesHeader> ReadSamplesHeader(std::string_view bytes) {
  if (bytes.size() < kSamplesHeaderSizeWithoutRegisters ||
      std::memcmp(bytes.data(), kSamplesMagic, sizeof(kSamplesMagic)) != 0) {
    return base::Status::Error("not a jitscope samples file (no JSSAMPLE header)");
  }
  const auto version = Get<uint32_t>(bytes, 8);
  SamplesHeader header;
  header.size = Get<uint32_t>(bytes, 12);
  const auto sample_type = Get<uint64_t>(bytes, 16);
  if (version != kSamplesVersion) {
    return base::Status::Error("samples file version %u; this jitscope reads version %u", version,
                               kSamplesVersion);
  }
  if (header.size < kSamplesHeaderSizeWithoutRegisters || header.size > bytes.size()) {
    return base::Status::Error("samples file header size %u is invalid", header.size);
  }
  header.flags = Get<uint64_t>(bytes, 24);
  SampleLayout& layout = header.format.layout;
  layout.sample_type = sample_type;
  layout.unwound = (header.flags & kFlagUnwound) != 0;
  if (header.size >= kSamplesHeaderSize) {
    layout.regs_mask = Get<uint64_t>(bytes, 32);
    header.format.stack_size = Get<uint64_t>(bytes, 40);
  }
  if (!IsSupportedLayout(layout)) {
    return base::Status::Error(
        "samples file sample_type 0x%llx with registers 0x%llx%s is not a layout this jitscope "
        "reads (0x%llx, unwound or not, or 0x%llx with registers within 0x%llx)",
        static_cast<unsigned long long>(sample_type),
        static_cast<unsigned long long>(layout.regs_mask), layout.unwound ? ", unwound," : "",
        static_cast<unsigned long long>(kSampleType),
        static_cast<unsigned long long>(kDwarfSampleType),
        static_cast<unsigned long long>(kX86_64RegsMask));
  }
  return header;
}

std::optional<std::string_view> RecordAt(std::string_view bytes, size_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(perf_event_header)) {
    return std::nullopt;
  }
  const auto header = Get<perf_event_header>(bytes, offset);
  if (header.size < sizeof(perf_event_header) || header.size > bytes.size() - offset) {
    return std::nullopt;
  }
  return bytes.substr(offset, header.size);
}

namespace {

// ParseSamples of `bytes`, which `file_holding` (may be null) maps: the file open as `fd`, whose
// records are read through a base::FileWindow rather than touch the mapping.
base::StatusOr<SampleData> ParseSamplesIn(
    std::string_view bytes, const std::shared_ptr<const base::MappedFile>& file_holding,
    base::ScopedFd fd = {}) {
  ASSIGN_OR_RETURN(const SamplesHeader header, ReadSamplesHeader(bytes));
  SampleData data;
  data.file = file_holding;
  data.flags = header.flags;
  data.format = header.format;
  data.samples.set_layout(data.format.layout);
  data.samples.ReserveFor(bytes.size() - header.size);
  std::optional<base::FileWindow> window;
  if (file_holding != nullptr) window.emplace(fd.get(), bytes.size());
  size_t offset = header.size;
  while (offset < bytes.size()) {
    const std::optional<std::string_view> bytes_of_record =
        window ? RecordThrough(*window, bytes.size(), offset) : RecordAt(bytes, offset);
    if (!bytes_of_record) {
      // A size we cannot trust leaves no way to find the next record: the rest is lost.
      data.counters.torn_tail_bytes = bytes.size() - offset;
      break;
    }
    // Where the record stays: the list keeps that, not the window's passing copy.
    const std::string_view kept = bytes.substr(offset, bytes_of_record->size());
    offset += bytes_of_record->size();
    if (window) window->Release(offset);
    const uint32_t type = Get<perf_event_header>(*bytes_of_record, 0).type;
    if (type == PERF_RECORD_SAMPLE || type == kRecordUnwoundSample) {
      if (!data.samples.Add(*bytes_of_record, kept.data()).ok()) ++data.counters.malformed_records;
      continue;
    }
    base::StatusOr<PerfRecord> record = ParsePerfRecord(*bytes_of_record, data.format.layout);
    if (!record.ok()) {
      ++data.counters.malformed_records;
      continue;
    }
    AddRecord(kept, std::move(*record), data);
  }
  data.file_fd = std::move(fd);
  SortByTime(data);
  return data;
}

}  // namespace

base::StatusOr<SampleData> ParseSamples(std::string_view bytes) {
  return ParseOwnedSamples(std::string(bytes));
}

base::StatusOr<SampleData> ParseOwnedSamples(std::string bytes) {
  auto copy = std::make_unique<const std::string>(std::move(bytes));
  ASSIGN_OR_RETURN(SampleData data, ParseSamplesIn(*copy, {}));
  data.copy = std::move(copy);
  return data;
}

base::StatusOr<SampleData> ReadSamplesFile(const std::string& path) {
  base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return base::Status::Errno(errno, "cannot open %s", path.c_str());
  ASSIGN_OR_RETURN(base::MappedFile mapped, base::MappedFile::FromFd(fd.get(), path));
  auto file = std::make_shared<const base::MappedFile>(std::move(mapped));
  base::StatusOr<SampleData> data = ParseSamplesIn(file->bytes(), file, std::move(fd));
  if (!data.ok())
    return base::Status::Error("%s: %s", path.c_str(), data.status().message().c_str());
  return data;
}

}  // namespace jitscope::session
