// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Code bytes from the live process. Engines that publish only a perf map (OpenJDK's, Mono's
// --jitmap, Node's --perf-basic-prof, .NET, CPython's -X perf) name their code but keep its bytes
// to themselves, and much of that code keeps no frame pointer: without the bytes no rule can be
// derived for it, and a walk stops at its first frame. So while it records, `record` reads that
// code from the running process (process_memory.h), and keeps each read as a code version in the
// session (formats/captured_code.h: captured-<pid>.jsr), from which rules are derived as from a
// jitdump's bytes (symbolize/code_history.h).
//
// A session::RecordSink in front of the one that writes (or unwinds) the records: it looks at
// each record on its way, on the recorder's thread.
//  - MMAP records say where each process has anonymous executable memory (FORK copies the
//    parent's, an exec forgets it); a process that maps a jitdump (jit-<pid>.dump), or whose
//    collector writes a trace into the session, has its code's bytes in that file and is left
//    alone.
//  - Each sample names the addresses its stack may run through: its pc, the kernel's call chain,
//    and each word of its stack copy that points into such memory (every return address of the
//    copied frames is one; a word that only looks like one costs a read, never a frame).
//  - For each, the range to read is the function the process's perf map names there (followed
//    as it grows: perf_map_tail.h), else a window of the mapping around the address
//    (kWindowBefore before its block, kWindowAfter from it: a perf map written only at exit,
//    HotSpot's, names the functions in it afterwards). Each range is checked at most once per
//    page of it and kCheckInterval of the samples' time (functions share pages: each is checked
//    on its own). If a read of that range was kept and the page still holds the same bytes,
//    nothing is read again; otherwise the range is read and kept. A function a perf map names
//    later where code was read before is read at once.
//
// A read is of the code at its time, after the sample: code replaced in between is not what the
// sample ran. Reads are versioned by time (a sample takes the first read after it), and every
// step a walk takes by rules derived from them is checked (a return address must follow a call
// the analysis of the caller's code found), so stale bytes stop a walk, never mislead it. The
// reads are bounded in bytes (`max_bytes`); past the bound nothing more is read, and the counts
// say so.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/record/perf_map_tail.h"
#include "jitscope/record/process_memory.h"
#include "jitscope/session/perf_record.h"
#include "jitscope/session/samples_file.h"

namespace jitscope::record {

// What the reading of code did, for record's summary.
struct CodeCaptureCounts {
  uint64_t processes = 0;           // processes whose code was read
  uint64_t reads = 0;               // reads kept: code versions in the session
  uint64_t bytes = 0;               // their bytes
  uint64_t unchanged = 0;           // checks that found the code as a kept read has it
  uint64_t failed = 0;              // reads the process refused, or of memory no longer there
  uint64_t over_bound = 0;          // reads left out once max_bytes were kept
  uint64_t perf_map_functions = 0;  // functions the perf maps named while recording
  std::string first_failure;        // why the first read failed, for the user
};

class CodeCapture : public session::RecordSink {
 public:
  static constexpr uint64_t kDefaultMaxBytes = 256ull << 20;
  // How often a page is checked again for code that changed, in the samples' time.
  static constexpr uint64_t kCheckInterval = 100'000'000;
  // The window read around an address no perf-map function holds: from kWindowBefore before the
  // start of its kWindowBlock-aligned block to kWindowAfter after it, within its mapping.
  static constexpr uint64_t kWindowBlock = 32 * 1024;
  static constexpr uint64_t kWindowBefore = 32 * 1024;
  static constexpr uint64_t kWindowAfter = 64 * 1024;
  // A perf-map function larger than this is read as a window.
  static constexpr uint64_t kMaxFunction = 1024 * 1024;

  // Reads into `directory` (the session's) the code the samples of `format` run through, at
  // most `max_bytes`, and passes every record on to `next`. `done`, if given, is filled in at
  // Flush().
  static base::StatusOr<std::unique_ptr<CodeCapture>> Create(
      std::string directory, const session::SamplesFormat& format, uint64_t max_bytes,
      std::unique_ptr<session::RecordSink> next, std::shared_ptr<CodeCaptureCounts> done = nullptr);
  ~CodeCapture() override;

  base::Status Append(std::string_view record) override;
  base::Status Flush() override;
  // The next sink's checkpoint, not its Flush(): a flush ends a recording unwinder's thread. The
  // reads are in their files already (each written as it is made).
  base::Status Checkpoint() override;
  uint64_t records_bytes() const override { return next_->records_bytes(); }

  const CodeCaptureCounts& counts() const { return counts_; }

 private:
  struct Read {
    uint64_t end = 0;
    std::vector<uint8_t> bytes;
  };
  struct Process {
    std::map<uint64_t, uint64_t> executable;  // anonymous executable mappings: start → end
    bool described = false;                   // a JIT file holds its code's bytes: nothing to read
    bool traced_checked = false;
    bool exited = false;
    bool is_64bit = true;
    std::optional<PerfMapTail> perf_map;
    uint64_t next_poll_ns = 0;
    std::map<uint64_t, uint64_t> functions;  // the perf map's: start → end
    std::map<uint64_t, Read> reads;          // the latest kept read of each range, by start
    // (range start, page) → the sample time it was checked at
    std::map<std::pair<uint64_t, uint64_t>, uint64_t> checked;
    std::optional<ProcessMemory> memory;
    base::ScopedFd file;  // captured-<pid>.jsr, created at the first read kept
  };

  CodeCapture(std::string directory, const session::SamplesFormat& format, uint64_t max_bytes,
              std::unique_ptr<session::RecordSink> next, std::shared_ptr<CodeCaptureCounts> done);
  void Observe(std::string_view record);
  void OnMapping(const session::Mapping& mapping);
  void OnSample(const session::Sample& sample);
  // Checks the code at `address` of process `pid`, in `range` (RangeOf's), reading the range if
  // no kept read holds it as it is.
  void Check(uint32_t pid, Process& process, uint64_t address, std::pair<uint64_t, uint64_t> range,
             uint64_t time_ns);
  // The range to read for `address`: its perf-map function, else a window of its mapping.
  std::optional<std::pair<uint64_t, uint64_t>> RangeOf(const Process& process,
                                                       uint64_t address) const;
  // Reads [start, end) and keeps it, if the bound allows.
  void Capture(uint32_t pid, Process& process, uint64_t start, uint64_t end);
  // Follows the process's perf map; reads at once the new functions where code was read before.
  void PollPerfMap(uint32_t pid, Process& process, uint64_t now_ns);
  base::Status Write(uint32_t pid, Process& process, uint64_t time_ns, uint64_t address,
                     std::span<const uint8_t> bytes);

  const std::string directory_;
  const session::SampleLayout layout_;
  const uint64_t max_bytes_;
  std::unique_ptr<session::RecordSink> next_;
  std::shared_ptr<CodeCaptureCounts> done_;
  std::map<uint32_t, Process> processes_;
  CodeCaptureCounts counts_;
  base::Status status_;     // the first failure to write a file of reads
  session::Sample sample_;  // reused
  std::vector<uint64_t> pages_;
  std::vector<uint8_t> scratch_;
};

}  // namespace jitscope::record
