// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/trace_sink.h"

#include <cerrno>
#include <string>

#include "jitscope/base/files.h"

namespace jitscope::collector {

base::StatusOr<std::unique_ptr<TraceSink>> TraceSink::Create(const std::string& directory,
                                                             const trace::TraceIdentity& identity) {
  constexpr int kAttempts = 100;
  base::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    std::string name = "jit-" + std::to_string(identity.pid);
    if (attempt > 0) name += "." + std::to_string(attempt);
    name += ".jsc";
    auto fd = base::CreateExclusive(directory, name, 0600);
    if (!fd.ok()) {
      last = fd.status();
      if (last.errno_value() == EEXIST)
        continue;  // a file (or a planted link) is there: try the next name
      return last;
    }
    ASSIGN_OR_RETURN(auto writer, trace::TraceWriter::Create(std::move(fd).value(), identity));
    const std::string path = directory + "/" + name;
    return std::unique_ptr<TraceSink>(new TraceSink(std::move(writer), path));
  }
  return last;
}

Sink::Result TraceSink::Write(const trace::Record& record) {
  switch (writer_->Append(record.event, record.timestamp, record.tid)) {
    case trace::TraceWriter::AppendResult::kOk:
      return Result::kOk;
    case trace::TraceWriter::AppendResult::kTooLarge:
      return Result::kTooLarge;
    case trace::TraceWriter::AppendResult::kWriteFailed:
      return Result::kWriteFailed;
  }
  return Result::kWriteFailed;
}

}  // namespace jitscope::collector
