// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/trace_sink.h"

#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>

#include "jitscope/base/files.h"
#include "jitscope/collector/readable_code.h"

namespace jitscope::collector {

base::StatusOr<std::unique_ptr<TraceSink>> TraceSink::Create(const std::string& directory,
                                                             const trace::TraceIdentity& identity,
                                                             bool code_bytes) {
  constexpr int kAttempts = 100;
  base::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    char name[64];
    if (attempt == 0) {
      std::snprintf(name, sizeof(name), "jit-%u.jsc", identity.pid);
    } else {
      std::snprintf(name, sizeof(name), "jit-%u.%d.jsc", identity.pid, attempt);
    }
    auto fd = base::CreateExclusive(directory, name, 0600);
    if (!fd.ok()) {
      last = fd.status();
      if (last.errno_value() == EEXIST)
        continue;  // a file (or a planted link) is there: try the next name
      return last;
    }
    ASSIGN_OR_RETURN(auto writer, trace::TraceWriter::Create(std::move(fd).value(), identity));
    std::string path = directory + "/";
    path += name;
    return std::unique_ptr<TraceSink>(new TraceSink(std::move(writer), path, code_bytes));
  }
  return last;
}

namespace {

// iJIT_CT_DATA (jitprofiling.h, iJIT_SegmentType): an UPDATE_V2 of data changes no code.
constexpr uint32_t kSegmentData = 2;

// The region whose code an event places in memory, if any: top-level loads and METHOD_UPDATE
// (an inline instance's bytes are its parent's), and UPDATE_V2 of anything but data.
std::optional<trace::CodeBytesEvent> CodeRegionOf(const trace::Event& event) {
  if (const auto* code = std::get_if<trace::CodeEvent>(&event)) {
    if (code->api_event == trace::kEventMethodInlineLoadFinished) return std::nullopt;
    return trace::CodeBytesEvent{code->address, code->size, {}};
  }
  if (const auto* update = std::get_if<trace::RangeUpdateEvent>(&event)) {
    if (update->segment_type == kSegmentData) return std::nullopt;
    return trace::CodeBytesEvent{update->address, update->size, {}};
  }
  return std::nullopt;
}

Sink::Result ResultOf(trace::TraceWriter::AppendResult result) {
  switch (result) {
    case trace::TraceWriter::AppendResult::kOk:
      return Sink::Result::kOk;
    case trace::TraceWriter::AppendResult::kTooLarge:
      return Sink::Result::kTooLarge;
    case trace::TraceWriter::AppendResult::kWriteFailed:
      return Sink::Result::kWriteFailed;
  }
  return Sink::Result::kWriteFailed;
}

}  // namespace

Sink::Result TraceSink::Write(const trace::Record& record) {
  const Result result = ResultOf(writer_->Append(record.event, record.timestamp, record.tid));
  if (result != Result::kOk) return result;
  if (std::holds_alternative<trace::ShutdownEvent>(record.event)) writer_->Trim();
  if (!code_bytes_) return result;
  std::optional<trace::CodeBytesEvent> region = CodeRegionOf(record.event);
  if (!region) return result;
  // Copied while iJIT_NotifyEvent runs, when the engine vouches for the code; unreadable memory
  // (a buggy engine) is recorded as a region without bytes rather than faulting (readable_code.h).
  if (IsReadableCode(region->address, region->size)) {
    region->bytes = {reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(region->address)),
                     region->size};
  }
  return ResultOf(writer_->Append(*region, record.timestamp, record.tid));
}

void TraceSink::AtExit(uint64_t timestamp) {
  (void)timestamp;
  // Never waits: another thread may be extending the file as the process exits.
  writer_->TryTrim();
}

}  // namespace jitscope::collector
