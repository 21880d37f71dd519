// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the OProfile dump reader (src/jitscope/formats/oprofile_dump_reader.h) and its
// import.
#include <cstddef>
#include <cstdint>

#include "fuzz_index.h"
#include "jitscope/formats/oprofile_dump_scan.h"
#include "jitscope/symbolize/importers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  auto parsed = formats::scan::ParseOprofileDump({data, size}, "1.dump");
  if (!parsed.ok()) return 0;
  fuzz::IndexProbe probe;
  symbolize::ImportOprofileDump(*parsed, probe.builder());
  probe.Build();
  for (const auto& record : parsed->records) {
    probe.Probe(record.vma, record.code_size, record.timestamp_seconds * 1000000000ull);
  }
  return 0;
}
