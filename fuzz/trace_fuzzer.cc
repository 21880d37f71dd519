// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the native trace reader (src/jitscope/trace/reader.h) and its import: a
// trace left by a crashed process, a damaged disk or an attacker must parse or fail cleanly, and
// whatever parsed must build an index that resolves without crashing, a code history
// (symbolize/code_history.h) that finds the versions it holds, and a timeline
// (report/timeline_builder.h) whose slices end after they begin, written as a chrome trace that is
// JSON.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "fuzz_index.h"
#include "jitscope/report/chrome_trace_writer.h"
#include "jitscope/report/timeline_builder.h"
#include "jitscope/symbolize/code_history.h"
#include "jitscope/symbolize/importers.h"
#include "jitscope/trace/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  auto parsed = trace::ParseTrace({data, size});
  if (!parsed.ok()) return 0;
  fuzz::IndexProbe probe;
  symbolize::ImportTrace(*parsed, probe.builder());
  symbolize::ImportCode(*parsed, probe.code());
  probe.Build();
  symbolize::CodeHistory history;
  history.Add(parsed->records);
  for (const auto& record : parsed->records) {
    if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) {
      probe.Probe(code->address, code->size, record.timestamp);
      for (uint64_t at : {code->address, code->address + code->size / 2}) {
        for (uint64_t time : {record.timestamp, symbolize::kLatest}) {
          const symbolize::CodeVersion* version = history.Find(at, time);
          if (version != nullptr && version->regions.empty()) __builtin_trap();
        }
      }
    } else if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&record.event)) {
      probe.Probe(load->address, load->size, record.timestamp);
    }
  }
  report::TimelineBuilder timeline(0);
  timeline.AddProcess(1, parsed->records, {});
  report::Profile profile;
  profile.timeline = std::move(timeline).Finish({}, {}, {});
  for (const report::TimelineThread& thread : profile.timeline.threads) {
    for (const report::TimelineSlice& slice : thread.slices) {
      if (slice.end_ns < slice.begin_ns) __builtin_trap();
    }
  }
  auto json = report::RenderChromeTrace(profile);
  if (!json.ok() || !nlohmann::json::accept(*json)) __builtin_trap();
  return 0;
}
