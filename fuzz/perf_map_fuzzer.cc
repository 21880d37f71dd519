// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the perf map reader (src/jitscope/formats/perf_map_reader.h) and its import.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_index.h"
#include "jitscope/formats/perf_map_reader.h"
#include "jitscope/symbolize/importers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  formats::LooksLikePerfMap({data, size});
  const auto map = formats::ParsePerfMap({reinterpret_cast<const char*>(data), size}, "perf-1.map");
  fuzz::IndexProbe probe;
  symbolize::ImportPerfMap(map, probe.builder());
  probe.Build();
  for (const auto& entry : map.entries) probe.Probe(entry.start, entry.size, 0);
  return 0;
}
