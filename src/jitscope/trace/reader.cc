// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/reader.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "jitscope/trace/format.h"
#include "jitscope/trace/record_scanner.h"

namespace jitscope::trace {
bool LooksLikeTrace(std::span<const uint8_t> bytes) {
  return bytes.size() >= sizeof(kFileMagic) &&
         std::memcmp(bytes.data(), kFileMagic, sizeof(kFileMagic)) == 0;
}

base::StatusOr<ParsedTrace> ParseTrace(std::span<const uint8_t> bytes) {
  ASSIGN_OR_RETURN(const TraceLayout layout, ReadTraceLayout(bytes));
  ParsedTrace trace;
  trace.header = layout.header;
  // Room for as many records as the file could hold (16 bytes each at the least), capped: a trace
  // of a million methods then fills the vector without copying it, and the room it never uses is
  // never touched.
  constexpr size_t kMaxReserved = size_t{1} << 22;
  trace.records.reserve(std::min<size_t>(bytes.size() / 16, kMaxReserved));
  RecordScanner scanner(bytes, layout);
  while (auto record = scanner.Next()) trace.records.push_back(std::move(record).value());
  trace.stats = scanner.stats();
  trace.damage = scanner.damage();
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
  FileHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  const auto pid = static_cast<pid_t>(header.pid);
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
