// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/trace_sink.h"

#include <cerrno>
#include <cstdio>
#include <string>
#include <variant>

#include "jitscope/base/files.h"

namespace jitscope::collector {

base::StatusOr<std::unique_ptr<TraceSink>> TraceSink::Create(const std::string& directory,
                                                             const trace::TraceIdentity& identity) {
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
    return std::unique_ptr<TraceSink>(new TraceSink(std::move(writer), path));
  }
  return last;
}

Sink::Result TraceSink::Write(const trace::Record& record) {
  switch (writer_->Append(record.event, record.timestamp, record.tid)) {
    case trace::TraceWriter::AppendResult::kOk:
      if (std::holds_alternative<trace::ShutdownEvent>(record.event)) writer_->Trim();
      return Result::kOk;
    case trace::TraceWriter::AppendResult::kTooLarge:
      return Result::kTooLarge;
    case trace::TraceWriter::AppendResult::kWriteFailed:
      return Result::kWriteFailed;
  }
  return Result::kWriteFailed;
}

void TraceSink::AtExit(uint64_t timestamp) {
  (void)timestamp;
  // Never waits: another thread may be extending the file as the process exits.
  writer_->TryTrim();
}

}  // namespace jitscope::collector
