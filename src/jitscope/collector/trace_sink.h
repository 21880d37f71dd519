// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The native-trace sink: creates jit-<pid>.jsc in the output directory and appends every event.
#pragma once

#include <memory>
#include <string>

#include "jitscope/base/status.h"
#include "jitscope/collector/sink.h"
#include "jitscope/trace/writer.h"

namespace jitscope::collector {

class TraceSink : public Sink {
 public:
  // Creates the trace exclusively (never following or clobbering an existing file). If
  // jit-<pid>.jsc exists (a recycled pid), jit-<pid>.1.jsc, .2, ... are tried. With
  // `code_bytes`, each Intel-API region's machine code follows its record (trace/format.h).
  static base::StatusOr<std::unique_ptr<TraceSink>> Create(const std::string& directory,
                                                           const trace::TraceIdentity& identity,
                                                           bool code_bytes);

  // SHUTDOWN, and the process's exit, are clean ends: the trace gives back its unused tail.
  Result Write(const trace::Record& record) override;
  void AtExit(uint64_t timestamp) override;
  const std::string& path() const { return path_; }
  base::Status error() const override { return writer_->error(); }

 private:
  TraceSink(std::unique_ptr<trace::TraceWriter> writer, std::string path, bool code_bytes)
      : writer_(std::move(writer)), path_(std::move(path)), code_bytes_(code_bytes) {}
  std::unique_ptr<trace::TraceWriter> writer_;
  std::string path_;
  bool code_bytes_;
};

}  // namespace jitscope::collector
