// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/code_capture.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <variant>

#include "jitscope/base/clock.h"
#include "jitscope/base/files.h"
#include "jitscope/formats/captured_code.h"
#include "jitscope/formats/jitdump_writer.h"
#include "jitscope/record/container_files.h"

namespace jitscope::record {
namespace {

constexpr uint64_t kPage = 4096;
// How often a process's perf map is looked at for new lines.
constexpr uint64_t kPollInterval = 50'000'000;
constexpr int kRegisterIp = 8;  // perf_event_x86_regs: PERF_REG_X86_IP

std::string BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Writes all of `bytes` (base::WriteAll), errno saying why not.
bool WriteAll(int fd, std::string_view bytes) {
  return base::WriteAll(fd, bytes.data(), bytes.size()).ok();
}

}  // namespace

base::StatusOr<std::unique_ptr<CodeCapture>> CodeCapture::Create(
    std::string directory, const session::SamplesFormat& format, uint64_t max_bytes,
    std::unique_ptr<session::RecordSink> next, std::shared_ptr<CodeCaptureCounts> done) {
  if (next == nullptr) return base::Status::Error("code capture: no sink to pass records to");
  return std::unique_ptr<CodeCapture>(
      new CodeCapture(std::move(directory), format, max_bytes, std::move(next), std::move(done)));
}

CodeCapture::CodeCapture(std::string directory, const session::SamplesFormat& format,
                         uint64_t max_bytes, std::unique_ptr<session::RecordSink> next,
                         std::shared_ptr<CodeCaptureCounts> done)
    : directory_(std::move(directory)),
      layout_(format.layout),
      max_bytes_(max_bytes),
      next_(std::move(next)),
      done_(std::move(done)) {}

CodeCapture::~CodeCapture() = default;

base::Status CodeCapture::Append(std::string_view record) {
  // Before the record goes on: a sample's code is read before anything unwinds the sample.
  Observe(record);
  return next_->Append(record);
}

base::Status CodeCapture::Flush() {
  if (done_) *done_ = counts_;
  base::Status flushed = next_->Flush();
  if (!status_.ok()) return status_;
  return flushed;
}

base::Status CodeCapture::Checkpoint() {
  base::Status checkpointed = next_->Checkpoint();
  if (!status_.ok()) return status_;
  return checkpointed;
}

void CodeCapture::Observe(std::string_view record) {
  if (record.size() < sizeof(perf_event_header)) return;
  const perf_event_header header = session::RecordHeader(record);
  switch (header.type) {
    case PERF_RECORD_SAMPLE:
      if (session::ParseSampleRecord(record, layout_, sample_).ok()) OnSample(sample_);
      return;
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
    case PERF_RECORD_COMM:
      break;
    default:
      return;
  }
  base::StatusOr<session::PerfRecord> parsed = session::ParsePerfRecord(record, layout_);
  if (!parsed.ok()) return;
  if (const auto* mapping = std::get_if<session::Mapping>(&*parsed)) {
    OnMapping(*mapping);
  } else if (const auto* task = std::get_if<session::Task>(&*parsed)) {
    if (task->pid != task->tid) return;  // a thread's: its process's memory is the same
    if (task->exit) {
      if (auto it = processes_.find(task->pid); it != processes_.end()) it->second.exited = true;
    } else if (task->pid != task->ppid) {
      // A forked process starts with its parent's mappings; what it maps later is its own.
      auto parent = processes_.find(task->ppid);
      if (parent != processes_.end()) {
        Process& child = processes_[task->pid];
        child.executable = parent->second.executable;
        child.described = parent->second.described;
      }
    }
  } else if (const auto* comm = std::get_if<session::Comm>(&*parsed)) {
    if (comm->exec && comm->pid == comm->tid) {
      // A new program: its mappings follow (MMAP records after the exec's COMM).
      if (auto it = processes_.find(comm->pid); it != processes_.end()) {
        it->second.executable.clear();
        it->second.functions.clear();
        it->second.described = false;
        it->second.traced_checked = false;
      }
    }
  }
}

void CodeCapture::OnMapping(const session::Mapping& mapping) {
  Process& process = processes_[mapping.pid];
  // An engine that writes a jitdump maps it (so that perf finds it): its code's bytes are there.
  if (formats::ParseJitdumpFileName(BaseName(mapping.filename))) process.described = true;
  if (!session::IsAnonymousMemory(mapping.filename) || mapping.length == 0 ||
      mapping.start + mapping.length < mapping.start) {
    return;
  }
  const uint64_t start = mapping.start, end = mapping.start + mapping.length;
  // A new mapping replaces what it overlaps (MAP_FIXED, an mprotect of part of a mapping).
  auto it = process.executable.lower_bound(start);
  if (it != process.executable.begin() && std::prev(it)->second > start) --it;
  while (it != process.executable.end() && it->first < end) {
    const uint64_t old_start = it->first, old_end = it->second;
    it = process.executable.erase(it);
    if (old_start < start) process.executable.emplace(old_start, start);
    if (old_end > end) process.executable.emplace(end, old_end);
  }
  process.executable.emplace(start, end);
}

void CodeCapture::OnSample(const session::Sample& sample) {
  if (sample.pid == 0) return;
  auto found = processes_.find(sample.pid);
  if (found == processes_.end() || found->second.executable.empty()) return;
  Process& process = found->second;
  if (process.exited || process.described) return;
  if (!process.traced_checked) {
    // The collector writes its trace, with every region's bytes, into the session directory.
    process.traced_checked = true;
    struct stat st {};
    const std::string trace = directory_ + "/jit-" + std::to_string(sample.pid) + ".jsc";
    if (::stat(trace.c_str(), &st) == 0) {
      process.described = true;
      return;
    }
  }
  // x86-64 only: the analysis of code decodes x86-64.
  if (sample.regs.abi == PERF_SAMPLE_REGS_ABI_32) process.is_64bit = false;
  if (!process.is_64bit) return;
  const uint64_t low = process.executable.begin()->first;
  const uint64_t high = process.executable.rbegin()->second;
  pages_.clear();
  auto consider = [&](uint64_t address) {
    if (address >= low && address < high) pages_.push_back(address);
  };
  if (sample.regs.abi != PERF_SAMPLE_REGS_ABI_NONE && (sample.regs.mask >> kRegisterIp & 1) != 0) {
    consider(sample.regs.values[kRegisterIp]);
  } else {
    consider(sample.ip);
  }
  for (const session::CallchainEntry& frame : sample.callchain) {
    if (!frame.kernel) consider(frame.ip);
  }
  // Every return address of the copied frames is a word of the copy.
  for (size_t at = 0; at + 8 <= sample.stack.size(); at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, sample.stack.data() + at, sizeof(word));
    consider(word);
  }
  if (pages_.empty()) return;
  const uint64_t now = base::MonotonicNowNs();
  if (now >= process.next_poll_ns) PollPerfMap(sample.pid, process, now);
  std::sort(pages_.begin(), pages_.end());
  // Each range once per page: functions a perf map names share pages (V8 puts a function's
  // optimised code beside its baseline code), and each is code of its own to read.
  std::pair<uint64_t, uint64_t> last = {UINT64_MAX, UINT64_MAX};  // (range start, page)
  for (const uint64_t address : pages_) {
    const std::optional<std::pair<uint64_t, uint64_t>> range = RangeOf(process, address);
    if (!range || std::pair{range->first, address / kPage} == last) continue;
    last = {range->first, address / kPage};
    Check(sample.pid, process, address, *range, sample.time_ns);
  }
}

std::optional<std::pair<uint64_t, uint64_t>> CodeCapture::RangeOf(const Process& process,
                                                                  uint64_t address) const {
  auto mapping = process.executable.upper_bound(address);
  if (mapping == process.executable.begin()) return std::nullopt;
  --mapping;
  if (address >= mapping->second) return std::nullopt;
  auto function = process.functions.upper_bound(address);
  if (function != process.functions.begin()) {
    --function;
    if (address < function->second && function->second - function->first <= kMaxFunction &&
        function->first >= mapping->first && function->second <= mapping->second) {
      return std::make_pair(function->first, function->second);
    }
  }
  const uint64_t block = address / kWindowBlock * kWindowBlock;
  const uint64_t start =
      std::max(mapping->first, block >= kWindowBefore ? block - kWindowBefore : 0);
  const uint64_t end = std::min(mapping->second, block + kWindowAfter);
  return std::make_pair(start, end);
}

void CodeCapture::Check(uint32_t pid, Process& process, uint64_t address,
                        std::pair<uint64_t, uint64_t> range, uint64_t time_ns) {
  const uint64_t page = address / kPage;
  auto [checked, first] = process.checked.try_emplace({range.first, page}, time_ns);
  if (!first) {
    if (time_ns < checked->second + kCheckInterval) return;
    checked->second = time_ns;
  }
  const auto [start, end] = range;
  const bool function = process.functions.contains(start) && process.functions.at(start) == end;
  // The kept read that holds the address: of the function exactly, for a perf map's function
  // (its version is that function's code); else any that holds the whole range.
  const Read* kept = nullptr;
  uint64_t kept_start = 0;
  for (auto it = process.reads.upper_bound(start); it != process.reads.begin();) {
    --it;
    if (start - it->first > kMaxFunction + kWindowBefore + kWindowAfter) break;  // none longer
    if (it->second.end < end || (function && (it->first != start || it->second.end != end))) {
      continue;
    }
    kept = &it->second;
    kept_start = it->first;
    break;
  }
  if (kept != nullptr) {
    // The page of the address, within the range, as it is now against as it was read.
    const uint64_t from = std::max(start, page * kPage);
    const uint64_t to = std::min(end, (page + 1) * kPage);
    scratch_.resize(to - from);
    if (!process.memory) process.memory.emplace(static_cast<pid_t>(pid));
    int error = 0;
    const size_t read = process.memory->Read(from, scratch_, error);
    if (read == scratch_.size() &&
        std::memcmp(scratch_.data(), kept->bytes.data() + (from - kept_start), read) == 0) {
      ++counts_.unchanged;
      return;
    }
  }
  Capture(pid, process, start, end);
}

void CodeCapture::Capture(uint32_t pid, Process& process, uint64_t start, uint64_t end) {
  if (counts_.bytes + (end - start) > max_bytes_) {
    ++counts_.over_bound;
    return;
  }
  if (!process.memory) process.memory.emplace(static_cast<pid_t>(pid));
  std::vector<uint8_t> bytes(end - start);
  int error = 0;
  const size_t read = process.memory->Read(start, bytes, error);
  if (read == 0) {
    ++counts_.failed;
    if (counts_.first_failure.empty()) {
      char where[64];
      std::snprintf(where, sizeof(where), "process %u at 0x%llx: ", pid,
                    static_cast<unsigned long long>(start));
      counts_.first_failure = where + std::string(std::strerror(error));
    }
    return;
  }
  bytes.resize(read);
  const uint64_t time_ns = base::MonotonicNowNs();
  if (!Write(pid, process, time_ns, start, bytes).ok()) return;
  if (process.reads.empty()) ++counts_.processes;
  ++counts_.reads;
  counts_.bytes += read;
  // The reads inside this one are superseded (the latest is what a later check compares with).
  const uint64_t read_end = start + read;
  for (auto it = process.reads.lower_bound(start);
       it != process.reads.end() && it->first < read_end;) {
    it = it->second.end <= read_end ? process.reads.erase(it) : std::next(it);
  }
  process.reads[start] = Read{read_end, std::move(bytes)};
}

void CodeCapture::PollPerfMap(uint32_t pid, Process& process, uint64_t now_ns) {
  process.next_poll_ns = now_ns + kPollInterval;
  if (!process.perf_map) {
    base::StatusOr<ProcessNamespaces> namespaces = ReadNamespaces(static_cast<pid_t>(pid));
    if (!namespaces.ok()) return;
    process.perf_map.emplace(static_cast<pid_t>(pid), namespaces->ns_pid);
  }
  for (const formats::CodeRange& range : process.perf_map->Poll()) {
    if (range.end <= range.begin) continue;
    ++counts_.perf_map_functions;
    process.functions[range.begin] = range.end;
    // New code where code was read before: read it now, while it is what runs there.
    auto read = process.reads.upper_bound(range.begin);
    const bool overlaps =
        (read != process.reads.end() && read->first < range.end) ||
        (read != process.reads.begin() && std::prev(read)->second.end > range.begin);
    if (overlaps && range.end - range.begin <= kMaxFunction) {
      Capture(pid, process, range.begin, range.end);
    }
  }
}

base::Status CodeCapture::Write(uint32_t pid, Process& process, uint64_t time_ns, uint64_t address,
                                std::span<const uint8_t> bytes) {
  if (!status_.ok()) return status_;
  if (!process.file) {
    const std::string path = directory_ + "/" + formats::CapturedCodeFileName(pid);
    process.file =
        base::ScopedFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (!process.file || !WriteAll(process.file.get(), formats::EncodeCapturedCodeHeader(pid))) {
      status_ = base::Status::Errno(errno, "%s", path.c_str());
      return status_;
    }
  }
  // One write per read: a recording killed meanwhile leaves at most its last record torn.
  if (!WriteAll(process.file.get(), formats::EncodeCodeRead(time_ns, address, bytes))) {
    status_ = base::Status::Errno(errno, "%s/%s", directory_.c_str(),
                                  formats::CapturedCodeFileName(pid).c_str());
  }
  return status_;
}

}  // namespace jitscope::record
