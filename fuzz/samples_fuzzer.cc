// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the samples file reader: any bytes must decode or fail cleanly, never
// crash or read out of bounds (docs/reliability.md). Every byte of every decoded
// stack copy and every register is read, so a view that reaches past the input is caught. The
// same bytes read as a file (ReadSamplesFile, through base::FileWindow) must decode the same.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_file.h"
#include "jitscope/session/samples_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed =
      jitscope::session::ParseSamples(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!parsed.ok()) return 0;
  volatile uint64_t sink = 0;
  for (const jitscope::session::Sample& sample : parsed->samples) {
    for (char byte : sample.stack) sink = sink + static_cast<uint8_t>(byte);
    for (uint64_t value : sample.regs.values) sink = sink ^ value;
    for (const jitscope::session::CallchainEntry& frame : sample.callchain)
      sink = sink ^ (frame.ip + frame.exact);
    sink = sink + sample.walk_end.value_or(0);
  }
  const jitscope::fuzz::InputFile file(data, size);
  if (!file.ok()) return 0;
  auto read = jitscope::session::ReadSamplesFile(file.path());
  if (!read.ok() || read->counters != parsed->counters ||
      jitscope::fuzz::VisitAll(*read) != jitscope::fuzz::VisitAll(*parsed)) {
    __builtin_trap();
  }
  return 0;
}
