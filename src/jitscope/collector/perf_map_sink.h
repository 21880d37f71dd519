// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The perf map sink (JITSCOPE_FORMATS=perfmap): one "START SIZE name" line per code region in
// perf-<pid>.map, the file `perf report` reads to name samples in anonymous executable memory
// (perf's jit-interface.txt; line format in
// formats/perf_map_writer.h).
//
// What a perf map can say: a name per address range, for the whole life of the process. So
// top-level loads and METHOD_UPDATE get a line each, named by MethodNames ("first symbolic
// information wins", "module!name"); inline regions and UPDATE_V2 patches get none (perf has no
// inline frames, and the enclosing region's line already names the code); a re-JIT at a reused
// address adds a second line for the same range, and perf cannot tell which one was live when
// (use the jitdump sink for that).
//
// Safety: the file is created exclusively (O_EXCL|O_NOFOLLOW), so a link planted at the path is
// never followed and a file someone else made — another user, a leftover of an earlier process
// with this pid, or another writer in this very process such as oneDNN with DNNL_JIT_PROFILE=2 —
// is never appended to or truncated: Create() fails with the reason and the collector warns and
// goes on without the map. Each line is one write() on an O_APPEND descriptor, so concurrent lines
// never interleave and a reader never sees half a line, and no lock is held across it.
//
// Memory: method names are kept while the method has code (region_map.h), so the tables follow
// the live code; a short lock guards that bookkeeping.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/base/status.h"
#include "jitscope/collector/event_sink.h"
#include "jitscope/collector/method_names.h"
#include "jitscope/collector/region_map.h"

namespace jitscope::collector {

class PerfMapSink : public EventSink {
 public:
  static base::StatusOr<std::unique_ptr<PerfMapSink>> Create(const std::string& directory,
                                                             uint32_t pid);

  Result Write(const trace::Record& record) override;
  base::Status error() const override;

  const std::string& path() const { return path_; }

 private:
  Result WriteLine(const std::string& line);
  PerfMapSink(base::ScopedFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}

  base::ScopedFd fd_;
  const std::string path_;
  MethodNames names_;
  struct NoPayload {};
  std::mutex regions_mutex_;  // guards regions_
  RegionMap<NoPayload> regions_;
  std::atomic<bool> failed_{false};
  mutable std::mutex error_mutex_;  // taken only when a write fails
  base::Status error_;
};

}  // namespace jitscope::collector
