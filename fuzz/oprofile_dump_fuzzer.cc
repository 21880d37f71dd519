// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the OProfile dump reader (src/jitscope/formats/oprofile_dump_reader.h),
// what `jitscope dump` prints and the symbolizer imports, and its import.
#include <cstddef>
#include <cstdint>
#include <variant>

#include "fuzz_index.h"
#include "jitscope/formats/oprofile_dump_reader.h"
#include "jitscope/symbolize/importers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  auto parsed = formats::ParseOprofileDump({data, size}, "1.dump");
  if (!parsed.ok()) return 0;
  fuzz::IndexProbe probe;
  symbolize::ImportOprofileDump(*parsed, probe.builder());
  probe.Build();
  for (const auto& record : parsed->records) {
    const uint64_t time = record.timestamp * 1000000000ull;
    if (const auto* load = std::get_if<formats::OprofileDumpCodeLoad>(&record.body)) {
      probe.Probe(load->vma, load->code_size, time);
    } else if (const auto* unload = std::get_if<formats::OprofileDumpUnload>(&record.body)) {
      probe.Probe(unload->vma, 0, time);
    }
  }
  return 0;
}
