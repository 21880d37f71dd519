// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the perf.data reader: any bytes must decode or fail cleanly, never crash
// or read out of bounds (docs/reliability.md). Every byte of every decoded stack
// copy is read, so a view that reaches past the input (or a decompressed buffer) is caught. The
// same bytes read as a file (ReadPerfDataFile, through base::FileWindow) must decode the same.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_file.h"
#include "jitscope/session/perf_data_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = jitscope::session::ParsePerfData(std::span<const uint8_t>(data, size), "fuzz");
  if (!parsed.ok()) return 0;
  volatile uint64_t sink = 0;
  for (const jitscope::session::Sample& sample : parsed->data.samples) {
    for (char byte : sample.stack) sink = sink + static_cast<uint8_t>(byte);
    for (const jitscope::session::CallchainEntry& frame : sample.callchain) sink = sink ^ frame.ip;
  }
  for (const jitscope::session::Mapping& mapping : parsed->data.mappings) {
    sink = sink + mapping.filename.size();
  }
  const jitscope::fuzz::InputFile file(data, size);
  if (!file.ok()) return 0;
  auto read = jitscope::session::ReadPerfDataFile(file.path());
  if (!read.ok() || read->data.counters != parsed->data.counters ||
      read->data.mappings.size() != parsed->data.mappings.size() ||
      jitscope::fuzz::VisitAll(read->data) != jitscope::fuzz::VisitAll(parsed->data)) {
    __builtin_trap();
  }
  return 0;
}
