// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/jitdump_sink.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "jitscope/base/files.h"
#include "jitscope/formats/jitdump_writer.h"

namespace jitscope::collector {
namespace {

using formats::LineRange;

// iJIT_CT_DATA (jitprofiling.h, iJIT_SegmentType): an UPDATE_V2 of data patches no code.
constexpr uint32_t kSegmentData = 2;

// A load, or an update that gives a method new code: both write the region's code anew.
bool WritesCodeLoad(uint32_t api_event) {
  return api_event == trace::kEventMethodLoadFinished ||
         api_event == trace::kEventMethodLoadFinishedV2 ||
         api_event == trace::kEventMethodLoadFinishedV3 || api_event == trace::kEventMethodUpdate;
}

// Whether [address, address + size) of our own memory can be read, without risking a fault:
// process_vm_readv on ourselves fails cleanly (EFAULT) where a buggy engine reported an address
// that is not mapped. Only asked after a write failed. Where a sandbox filters the call
// (Docker's default seccomp profile answers EPERM), the answer is "readable", so the failure
// counts as a write failure.
bool CodeIsReadable(pid_t self, uint64_t address, uint64_t size) {
  uint8_t page[4096];
  for (uint64_t done = 0; done < size; done += sizeof(page)) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(sizeof(page), size - done));
    iovec local{page, chunk};
    iovec remote{reinterpret_cast<void*>(static_cast<uintptr_t>(address + done)), chunk};
    const ssize_t copied = ::process_vm_readv(self, &local, 1, &remote, 1, 0);
    if (copied < 0 && (errno == ENOSYS || errno == EPERM)) return true;
    if (copied != static_cast<ssize_t>(chunk)) return false;
  }
  return true;
}

// Creates `directory`/`name`, or, when that name is taken, the same name inside a fresh
// directory made next to it. perf needs the exact basename jit-<pid>.dump (§1.4), so the
// trace sink's numbered-suffix fallback is not an option here.
base::StatusOr<std::pair<base::ScopedFd, std::string>> CreateDumpFile(const std::string& directory,
                                                                      const std::string& name,
                                                                      uint32_t pid) {
  auto fd = base::CreateExclusive(directory, name, 0600);
  if (fd.ok()) return std::make_pair(std::move(fd).value(), directory + "/" + name);
  if (fd.status().errno_value() != EEXIST) return fd.status();
  std::string fresh = directory + "/jitscope-" + std::to_string(pid) + "-XXXXXX";
  if (::mkdtemp(fresh.data()) == nullptr) {
    return base::Status::Errno(errno, "%s/%s exists and cannot create a directory %s",
                               directory.c_str(), name.c_str(), fresh.c_str());
  }
  ASSIGN_OR_RETURN(auto fallback, base::CreateExclusive(fresh, name, 0600));
  return std::make_pair(std::move(fallback), fresh + "/" + name);
}

}  // namespace

base::StatusOr<std::unique_ptr<JitdumpSink>> JitdumpSink::Create(const std::string& directory,
                                                                 uint32_t pid, uint64_t now_ns,
                                                                 Log log) {
  ASSIGN_OR_RETURN(auto created, CreateDumpFile(directory, formats::JitdumpFileName(pid), pid));
  auto& [fd, path] = created;
  base::TagCreatedByJitscope(fd.get(), "jitdump");
  // Appending keeps every record whole even if a second descriptor of the file ever wrote to it.
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags | O_APPEND) != 0) {
    return base::Status::Errno(errno, "cannot set %s to append", path.c_str());
  }
  std::vector<uint8_t> header;
  formats::AppendJitdumpHeader(header, pid, now_ns);
  if (base::Status written = base::WriteAll(fd.get(), header.data(), header.size());
      !written.ok()) {
    // A full disk: no empty file (nor the directory made for it) is left behind.
    ::unlink(path.c_str());
    if (path != directory + "/" + formats::JitdumpFileName(pid)) {
      ::rmdir(path.substr(0, path.rfind('/')).c_str());
    }
    return base::Status::Error("cannot write %s: %s", path.c_str(), written.message().c_str());
  }
  // The marker (§1.4): perf record logs only executable mappings, so this one page, mapped
  // PROT_EXEC, is how perf.data learns where the dump is. The descriptor is open for reading
  // too (CreateExclusive opens O_RDWR): a write-only file cannot be mapped.
  const long page = ::sysconf(_SC_PAGESIZE);
  const size_t page_size = page > 0 ? static_cast<size_t>(page) : 4096;
  void* marker = ::mmap(nullptr, page_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd.get(), 0);
  if (marker == MAP_FAILED) {
    return base::Status::Errno(errno,
                               "cannot map %s executable, which perf needs to find the dump "
                               "(is its directory on a noexec filesystem?)",
                               path.c_str());
  }
  return std::unique_ptr<JitdumpSink>(
      new JitdumpSink(std::move(fd), base::ScopedMmap(marker, page_size), std::move(path), pid,
                      now_ns, header.size(), std::move(log)));
}

base::Status JitdumpSink::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

JitdumpSink::Counters JitdumpSink::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

EventSink::Result JitdumpSink::Write(const trace::Record& record) {
  if (failed_.load(std::memory_order_relaxed)) return Result::kWriteFailed;
  std::lock_guard lock(mutex_);
  if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) {
    if (code->api_event == trace::kEventMethodInlineLoadFinished) {
      return AddInline(*code, record.timestamp, record.tid);
    }
    if (WritesCodeLoad(code->api_event)) return LoadRegion(*code, record.timestamp, record.tid);
    return Result::kOk;
  }
  if (const auto* update = std::get_if<trace::RangeUpdateEvent>(&record.event)) {
    return UpdateRange(*update, record.timestamp, record.tid);
  }
  if (const auto* unload = std::get_if<trace::UnloadEvent>(&record.event)) {
    Unload(unload->method_id);
    return Result::kOk;
  }
  if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&record.event)) {
    return LoadOprofile(*load, record.timestamp, record.tid);
  }
  if (const auto* lines = std::get_if<trace::OprofileDebugLinesEvent>(&record.event)) {
    return AddOprofileLines(*lines, record.timestamp, record.tid);
  }
  if (const auto* unload = std::get_if<trace::OprofileUnloadEvent>(&record.event)) {
    if (const Region* region = regions_.FindEnclosing(unload->address);
        region != nullptr && region->address == unload->address) {
      regions_.Remove(region->method_id);
    }
    return Result::kOk;
  }
  if (std::holds_alternative<trace::ShutdownEvent>(record.event)) {
    buffer_.clear();
    formats::AppendJitdumpClose(buffer_, NextTimestamp(record.timestamp));
    const Result result = WriteBuffer(0, 0);
    closed_ = result == Result::kOk;
    return result;
  }
  return Result::kOk;  // a rejected event: nothing perf could show
}

void JitdumpSink::AtExit(uint64_t timestamp) {
  // A thread may be inside Write() while the process exits; JIT_CODE_CLOSE is optional for perf
  // (§1.3), so rather skip it than wait.
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock() || closed_ || failed_.load(std::memory_order_relaxed)) return;
  buffer_.clear();
  formats::AppendJitdumpClose(buffer_, NextTimestamp(timestamp));
  closed_ = WriteBuffer(0, 0) == Result::kOk;
}

uint64_t JitdumpSink::NextTimestamp(uint64_t timestamp) {
  // Strictly increasing in file order: a re-load of an address must sort after the load it
  // replaces even if both arrived within one clock tick, or perf could keep the old name.
  last_timestamp_ = std::max(timestamp, last_timestamp_ + 1);
  return last_timestamp_;
}

void JitdumpSink::CountAndLogOnce(uint64_t& counter, const char* message) {
  if (counter++ == 0) log_.Printf("jitdump %s: %s", path_.c_str(), message);
}

std::vector<LineRange> JitdumpSink::LinesFor(const trace::CodeEvent& code,
                                             const std::optional<std::string>& source_file) {
  if (code.lines.empty()) return {};
  if (!source_file) {
    CountAndLogOnce(counters_.lines_without_file,
                    "a line table came without any source file name for its method; perf "
                    "cannot show lines without a file, so such tables are left out");
    return {};
  }
  return formats::RangesFromLineTable(code.lines, code.size, 0);
}

void JitdumpSink::Unload(uint32_t method_id) {
  for (const Region& region : regions_.Remove(method_id)) ForgetInlines(region);
  names_.Forget(method_id);
}

void JitdumpSink::ForgetInlines(const Region& region) {
  for (const Inline& inline_region : region.payload.inlines) names_.Forget(inline_region.method_id);
}

EventSink::Result JitdumpSink::LoadRegion(const trace::CodeEvent& code, uint64_t timestamp,
                                          uint32_t tid) {
  Region region;
  region.address = code.address;
  region.size = code.size;
  region.method_id = code.method_id;
  // The new code replaces whatever it overlaps, inline trees included, and a method left without
  // code is gone (000_*.txt, Usage Tips). Placed before its name is resolved, so a method that
  // re-JITs itself over its only region starts afresh too.
  for (const Region& dropped : regions_.Place(region)) {
    ForgetInlines(dropped);
    if (!regions_.Contains(dropped.method_id)) names_.Forget(dropped.method_id);
  }
  Region& placed = *regions_.FindEnclosing(code.address);
  MethodSymbol symbol = names_.Resolve(code);
  placed.payload.ranges = LinesFor(code, symbol.source_file);
  placed.payload.name = std::move(symbol.name);
  placed.payload.source_file = std::move(symbol.source_file);
  // Inline regions reported before their enclosing region now find it.
  auto adopted = std::stable_partition(
      pending_inlines_.begin(), pending_inlines_.end(), [&](const Inline& pending) {
        return pending.address < placed.address || pending.address >= placed.address + placed.size;
      });
  placed.payload.inlines.assign(std::make_move_iterator(adopted),
                                std::make_move_iterator(pending_inlines_.end()));
  pending_inlines_.erase(adopted, pending_inlines_.end());
  return EmitLoad(placed, placed.address, static_cast<uint32_t>(placed.size), timestamp, tid);
}

EventSink::Result JitdumpSink::LoadOprofile(const trace::OprofileCodeLoadEvent& load,
                                            uint64_t timestamp, uint32_t tid) {
  if (load.size == 0) return Result::kOk;  // nothing perf could map
  Region region;
  region.address = load.address;
  region.size = load.size;
  region.method_id = next_oprofile_region_id_++;
  regions_.Place(region);
  Region& placed = *regions_.FindEnclosing(load.address);
  placed.payload.name = std::string(load.name);
  return EmitLoad(placed, placed.address, static_cast<uint32_t>(placed.size), timestamp, tid);
}

EventSink::Result JitdumpSink::AddOprofileLines(const trace::OprofileDebugLinesEvent& lines,
                                                uint64_t timestamp, uint32_t tid) {
  Region* region = regions_.FindEnclosing(lines.address);
  if (region == nullptr || region->address != lines.address) return Result::kOk;
  // Each entry starts its line's range, which runs to the next entry (or the end of the code).
  std::vector<trace::OprofileLineEntry> entries;
  for (const auto& entry : lines.lines) {
    if (entry.address >= region->address && entry.address < region->address + region->size) {
      entries.push_back(entry);
    }
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.address < b.address; });
  std::vector<LineRange> ranges;
  for (size_t i = 0; i < entries.size(); ++i) {
    const uint64_t end =
        i + 1 < entries.size() ? entries[i + 1].address : region->address + region->size;
    if (end == entries[i].address) continue;
    ranges.push_back({static_cast<uint32_t>(entries[i].address - region->address),
                      static_cast<uint32_t>(end - region->address), entries[i].line,
                      entries[i].file});
  }
  region->payload.files.clear();
  for (size_t i = 0; i < lines.files.size(); ++i) {
    region->payload.files.emplace_back(lines.files[i]);
  }
  region->payload.source_file.reset();
  region->payload.ranges = std::move(ranges);
  // perf attaches DEBUG_INFO to the next CODE_LOAD: load the code again, with its lines.
  return EmitLoad(*region, region->address, static_cast<uint32_t>(region->size), timestamp, tid);
}

EventSink::Result JitdumpSink::AddInline(const trace::CodeEvent& code, uint64_t timestamp,
                                         uint32_t tid) {
  MethodSymbol symbol = names_.Resolve(code);
  Inline inline_region;
  inline_region.method_id = code.method_id;
  inline_region.address = code.address;
  inline_region.size = code.size;
  inline_region.ranges = LinesFor(code, symbol.source_file);
  inline_region.source_file = std::move(symbol.source_file);
  Region* enclosing = regions_.FindEnclosing(code.address);
  if (enclosing == nullptr) {
    // Bounded: an engine that never loads the parents must not grow this without end.
    constexpr size_t kMaxPending = 4096;
    if (pending_inlines_.size() >= kMaxPending) {
      names_.Forget(pending_inlines_.front().method_id);
      pending_inlines_.erase(pending_inlines_.begin());
      CountAndLogOnce(counters_.detached_inlines,
                      "inline regions arrived that no loaded region encloses; their lines are "
                      "not in the dump");
    }
    pending_inlines_.push_back(std::move(inline_region));
    return Result::kOk;
  }
  enclosing->payload.inlines.push_back(std::move(inline_region));
  return EmitLoad(*enclosing, enclosing->address, static_cast<uint32_t>(enclosing->size), timestamp,
                  tid);
}

EventSink::Result JitdumpSink::UpdateRange(const trace::RangeUpdateEvent& update,
                                           uint64_t timestamp, uint32_t tid) {
  if (update.segment_type == kSegmentData) return Result::kOk;
  const Region* enclosing = regions_.FindEnclosing(update.address);
  if (enclosing == nullptr) {
    CountAndLogOnce(counters_.detached_updates,
                    "METHOD_UPDATE_V2 patched code that no loaded region encloses; perf cannot "
                    "name it, so it is not in the dump");
    return Result::kOk;
  }
  const Region& region = *enclosing;
  const uint64_t end =
      std::min<uint64_t>(update.address + update.size, region.address + region.size);
  return EmitLoad(region, update.address, static_cast<uint32_t>(end - update.address), timestamp,
                  tid);
}

EventSink::Result JitdumpSink::EmitLoad(const Region& region, uint64_t address, uint32_t size,
                                        uint64_t timestamp, uint32_t tid) {
  // The region's lines with its inlines' laid over them, largest first: a nested inline lies
  // inside its parent inline, so it ends up on top whatever order the events came in.
  // Scratch vectors are members (mutex_ is held), so a warm sink allocates nothing here.
  std::vector<std::string_view>& files = scratch_files_;
  files.clear();
  auto file_index = [&files](std::string_view name) {
    const auto found = std::find(files.begin(), files.end(), name);
    if (found != files.end()) return static_cast<uint32_t>(found - files.begin());
    files.push_back(name);
    return static_cast<uint32_t>(files.size() - 1);
  };
  std::vector<LineRange>& ranges = scratch_ranges_;
  ranges.assign(region.payload.ranges.begin(), region.payload.ranges.end());
  if (region.payload.source_file) {
    const uint32_t own = file_index(*region.payload.source_file);
    for (LineRange& range : ranges) range.file = own;
  } else {
    for (LineRange& range : ranges) range.file = file_index(region.payload.files[range.file]);
  }
  if (!region.payload.inlines.empty()) {
    std::vector<const Inline*> inlines;
    for (const Inline& inline_region : region.payload.inlines) inlines.push_back(&inline_region);
    std::stable_sort(inlines.begin(), inlines.end(),
                     [](const Inline* a, const Inline* b) { return a->size > b->size; });
    for (const Inline* inline_region : inlines) {
      if (inline_region->ranges.empty()) continue;
      const uint32_t file = file_index(*inline_region->source_file);
      std::vector<LineRange> overlay = formats::ShiftRanges(
          inline_region->ranges, static_cast<uint32_t>(inline_region->address - region.address),
          static_cast<uint32_t>(region.size));
      for (LineRange& range : overlay) range.file = file;
      formats::OverlayRanges(ranges, overlay);
    }
  }
  const auto offset = static_cast<uint32_t>(address - region.address);
  if (offset != 0 || size != region.size) {
    ranges = formats::SliceRanges(ranges, offset, offset + size);
  }

  const uint64_t stamp = NextTimestamp(timestamp);
  buffer_.clear();
  if (!ranges.empty()) {
    const auto lines = formats::JitdumpLinesFromRanges(address, ranges);
    if (!formats::AppendJitdumpDebugInfo(buffer_, stamp, address, lines, files)) {
      CountAndLogOnce(counters_.oversized_debug_info,
                      "a line table is too large for a DEBUG_INFO record; its code is loaded "
                      "without lines");
    }
  }
  formats::JitdumpCodeLoadFields fields;
  fields.timestamp = stamp;
  fields.pid = pid_;
  fields.tid = tid;
  fields.code_address = address;
  fields.code_size = size;
  fields.code_index = next_code_index_;
  fields.name = region.payload.name;
  if (!formats::AppendJitdumpCodeLoadPrefix(buffer_, fields)) return Result::kTooLarge;
  const Result result = WriteBuffer(address, size);
  if (result == Result::kOk && written_code_) {
    ++next_code_index_;
    ++counters_.loads;
  }
  return result;
}

EventSink::Result JitdumpSink::WriteBuffer(uint64_t code_address, uint64_t code_size) {
  // One writev() per event (see the header): the records in buffer_, then the code straight from
  // the engine's memory, so the kernel makes the only copy.
  iovec parts[2] = {{buffer_.data(), buffer_.size()},
                    {reinterpret_cast<void*>(static_cast<uintptr_t>(code_address)),
                     static_cast<size_t>(code_size)}};
  const uint64_t total = buffer_.size() + code_size;
  written_code_ = false;
  ssize_t written;
  do {
    written = ::writev(fd_.get(), parts, code_size != 0 ? 2 : 1);
  } while (written < 0 && errno == EINTR);
  if (written >= 0 && static_cast<uint64_t>(written) == total) {
    file_size_ += total;
    closed_ = false;
    written_code_ = code_size != 0;
    return Result::kOk;
  }
  int error = written < 0 ? errno : ENOSPC;
  // A short write (a full disk, or code that stops being readable part way) must not leave a
  // torn record that later records would follow: cut the file back to the last whole record.
  if (written > 0 && ::ftruncate(fd_.get(), static_cast<off_t>(file_size_)) != 0) {
    error = errno;
  } else if (code_size != 0 && !CodeIsReadable(self_, code_address, code_size)) {
    CountAndLogOnce(counters_.unreadable_code,
                    "the code of a reported region could not be read (its address is not "
                    "mapped readable); such regions are left out");
    return Result::kOk;
  }
  // Named first, as the trace names itself: the message says which file the disk refused.
  error_ = base::Status::Errno(error, "%s: cannot write the jitdump", path_.c_str());
  failed_.store(true, std::memory_order_relaxed);
  return Result::kWriteFailed;
}

}  // namespace jitscope::collector
