// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the file of code record read from running processes
// (src/jitscope/formats/captured_code.h), the versions made of its reads for the functions a perf
// map names (symbolize::CodeHistory::AddCaptured), their bytes (symbolize::CodeStore) and the
// rules derived from them (unwind::DerivedRules), as the walk uses them.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "jitscope/formats/captured_code.h"
#include "jitscope/symbolize/code_history.h"
#include "jitscope/symbolize/code_store.h"
#include "jitscope/symbolize/symbol_index.h"
#include "jitscope/unwind/derived_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  auto parsed = formats::ParseCapturedCode({data, size}, "captured-1.jsr");
  if (!parsed.ok()) return 0;
  // A perf map's functions, as the reads suggest them: each read whole, and its two halves.
  std::vector<formats::CodeRange> functions;
  symbolize::CodeStore store;
  for (const formats::CodeRead& read : parsed->reads) {
    const uint64_t end = read.address + read.bytes.size();
    functions.push_back({read.address, end});
    functions.push_back({read.address, read.address + read.bytes.size() / 2});
    functions.push_back({read.address + read.bytes.size() / 2, end});
    store.Add(read.time_ns, read.address, read.bytes);
  }
  symbolize::CodeHistory history;
  history.AddCaptured(functions, parsed->reads);
  static const auto rules = unwind::DerivedRulesCache::Create();
  if (!rules) return 0;
  for (const formats::CodeRead& read : parsed->reads) {
    for (const uint64_t time : {read.time_ns, read.time_ns + 1, symbolize::kLatest}) {
      const symbolize::CodeVersion* version = history.Find(read.address, time);
      if (version == nullptr || version->regions.empty()) continue;
      const auto& region = version->regions.front();
      if (region.size > (1u << 16)) continue;  // the analysis of large code is the other fuzzers'
      const symbolize::CodeBytes bytes = store.Read(region.address, region.size, region.loaded_ns);
      const unwind::CodeRegion code{region.address, bytes.bytes};
      const unwind::DerivedRules derived =
          unwind::DerivedRules::Analyze(rules->decoder(), {&code, 1});
      (void)derived.FindRow(region.address);
      (void)derived.IsReturnAddress(region.address + region.size / 2);
    }
  }
  return 0;
}
