// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the perf jitdump reader (src/jitscope/formats/jitdump_reader.h) and its
// import.
#include <cstddef>
#include <cstdint>

#include "fuzz_index.h"
#include "jitscope/formats/jitdump_reader.h"
#include "jitscope/symbolize/importers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  auto parsed = formats::ParseJitdump({data, size}, "fuzz.dump");
  if (!parsed.ok()) return 0;
  fuzz::IndexProbe probe;
  symbolize::ImportJitdump(*parsed, probe.builder());
  symbolize::ImportCode(*parsed, probe.code());
  probe.Build();
  for (const auto& record : parsed->records) {
    probe.Probe(record.code_addr, record.code_size, record.timestamp);
  }
  return 0;
}
