// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The perf jitdump sink (JITSCOPE_FORMATS=jitdump): writes jit-<pid>.dump so that the real
// `perf inject --jit` turns the JIT code into ELF files `perf report` names and annotates. The
// bytes are formats/jitdump_writer.h, as perf's jitdump specification has them.
//
// Each event becomes the loads perf understands (inline instances merged into their parent's
// lines, updates loaded again, unloads forgotten); every event reaches the kernel in one writev()
// on an O_APPEND descriptor, so a record is whole in the page cache when Write() returns and an
// unreadable address fails with EFAULT instead of crashing the host. One mutex keeps records in
// timestamp order. The mapping of every event, the crash-safety argument and the threading:
// docs/internals.md, "The jitdump sink".
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/collector/event_sink.h"
#include "jitscope/collector/log.h"
#include "jitscope/collector/method_names.h"
#include "jitscope/collector/region_map.h"
#include "jitscope/formats/line_ranges.h"

namespace jitscope::collector {

class JitdumpSink : public EventSink {
 public:
  // Creates `directory`/jit-<pid>.dump exclusively (never following or clobbering what is there:
  // if the name is taken, the dump goes into a new directory `directory`/jitscope-<pid>-XXXXXX),
  // writes the header and maps the marker page perf record looks for.
  static base::StatusOr<std::unique_ptr<JitdumpSink>> Create(const std::string& directory,
                                                             uint32_t pid, uint64_t now_ns,
                                                             Log log);

  Result Write(const trace::Record& record) override;
  void AtExit(uint64_t timestamp) override;
  base::Status error() const override;

  const std::string& path() const { return path_; }

  // What could not be shown in the dump (each logged the first time it happens).
  struct Counters {
    uint64_t loads = 0;                 // CODE_LOAD records written
    uint64_t unreadable_code = 0;       // regions whose code could not be read: not loaded
    uint64_t lines_without_file = 0;    // line tables dropped: no source file known
    uint64_t detached_inlines = 0;      // inline regions no region ever enclosed
    uint64_t detached_updates = 0;      // UPDATE_V2 of code no region encloses
    uint64_t oversized_debug_info = 0;  // line tables too large for a record: load without lines
  };
  Counters counters() const;

 private:
  // An inline region and its own lines.
  struct Inline {
    uint32_t method_id = 0;
    uint64_t address = 0;
    uint32_t size = 0;
    std::optional<std::string> source_file;
    std::vector<formats::LineRange> ranges;  // offsets from `address`; file 0 = source_file
  };
  // What a region loaded at top level and still valid needs for loading it again.
  struct RegionData {
    std::string name;
    std::optional<std::string> source_file;
    std::vector<formats::LineRange> ranges;  // the region's own lines; file 0 = source_file
    std::vector<Inline> inlines;
    // OProfile's line tables name a file per entry: without a source_file, range.file indexes
    // this list.
    std::vector<std::string> files;
  };
  using Region = RegionMap<RegionData>::Region;

  JitdumpSink(base::ScopedFd fd, base::ScopedMmap marker, std::string path, uint32_t pid,
              uint64_t header_timestamp, uint64_t file_size, Log log)
      : fd_(std::move(fd)),
        marker_(std::move(marker)),
        path_(std::move(path)),
        pid_(pid),
        last_timestamp_(header_timestamp),
        file_size_(file_size),
        log_(std::move(log)) {}

  // All of these run with mutex_ held.
  Result LoadRegion(const trace::CodeEvent& code, uint64_t timestamp, uint32_t tid);
  Result AddInline(const trace::CodeEvent& code, uint64_t timestamp, uint32_t tid);
  Result UpdateRange(const trace::RangeUpdateEvent& update, uint64_t timestamp, uint32_t tid);
  void Unload(uint32_t method_id);
  // OProfile's agent API (trace/event.h): code named by address, lines arriving after the code.
  Result LoadOprofile(const trace::OprofileCodeLoadEvent& load, uint64_t timestamp, uint32_t tid);
  Result AddOprofileLines(const trace::OprofileDebugLinesEvent& lines, uint64_t timestamp,
                          uint32_t tid);
  // Forgets the names of the inline methods in a region that is gone.
  void ForgetInlines(const Region& region);
  // Encodes [address, address + size) of `region` (DEBUG_INFO + CODE_LOAD) and writes it.
  Result EmitLoad(const Region& region, uint64_t address, uint32_t size, uint64_t timestamp,
                  uint32_t tid);
  // Writes buffer_ and then `code_size` bytes of code from `code_address` as one record group.
  Result WriteBuffer(uint64_t code_address, uint64_t code_size);
  uint64_t NextTimestamp(uint64_t timestamp);
  std::vector<formats::LineRange> LinesFor(const trace::CodeEvent& code,
                                           const std::optional<std::string>& source_file);
  // Logs `message` the first time `counter` goes from 0 to 1.
  void CountAndLogOnce(uint64_t& counter, const char* message);

  base::ScopedFd fd_;
  base::ScopedMmap marker_;  // kept for the sink's whole life: perf record logs it (§1.4)
  const std::string path_;
  const uint32_t pid_;             // written into the records
  const pid_t self_ = ::getpid();  // whose memory the code is copied from
  MethodNames names_;

  mutable std::mutex mutex_;  // guards everything below
  uint64_t last_timestamp_;
  uint64_t file_size_;         // bytes of whole records: where a failed write is cut back to
  bool written_code_ = false;  // the last WriteBuffer() wrote a load's code
  uint64_t next_code_index_ = 1;
  // OProfile code has no method ids; its regions get these (a sink is fed by one API only).
  uint32_t next_oprofile_region_id_ = 0x80000000u;
  bool closed_ = false;  // the last record written is JIT_CODE_CLOSE
  std::atomic<bool> failed_{false};
  base::Status error_;
  RegionMap<RegionData> regions_;
  std::vector<Inline> pending_inlines_;
  std::vector<uint8_t> buffer_;                  // reused: no allocation per event once warm
  std::vector<std::string_view> scratch_files_;  // EmitLoad's, reused likewise
  std::vector<formats::LineRange> scratch_ranges_;
  Counters counters_;
  Log log_;
};

}  // namespace jitscope::collector
