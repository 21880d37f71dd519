// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the perf jitdump reader (src/jitscope/formats/jitdump_reader.h), its
// import, and the engine's unwind tables a load carries, read by libdw (CfiModule::FromEhFrame).
#include <cstddef>
#include <cstdint>

#include "fuzz_index.h"
#include "jitscope/formats/jitdump_reader.h"
#include "jitscope/symbolize/importers.h"
#include "jitscope/unwind/cfi_module.h"

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
    if (record.eh_frame.empty()) continue;
    auto tables = unwind::CfiModule::FromEhFrame(record.eh_frame, record.EhFrameAddress());
    if (!tables.ok()) continue;
    for (uint64_t at : {record.code_addr, record.code_addr + record.code_size / 2,
                        record.code_addr + record.code_size - 1}) {
      (void)(*tables)->Find(at);
    }
  }
  return 0;
}
