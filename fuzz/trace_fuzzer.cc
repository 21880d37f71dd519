// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the native trace readers (src/jitscope/trace/reader.h, record_stream.h)
// and the import: a trace left by a crashed process, a damaged disk or an attacker must parse or
// fail cleanly, the stream must read what the parse read (the same records in the same order,
// the same counts and damage), and whatever parsed must build an index that resolves without
// crashing, a code history (symbolize/code_history.h) that finds the versions it holds, and a
// timeline (report/timeline_builder.h) whose slices end after they begin, written as a chrome trace
// that is JSON.
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
#include "jitscope/trace/record_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  auto parsed = trace::ParseTrace({data, size});
  auto stream = trace::RecordStream::Open({data, size});
  if (parsed.ok() != stream.ok()) __builtin_trap();
  if (!parsed.ok()) return 0;
  for (const trace::Record& record : parsed->records) {
    const auto streamed = stream->Next();
    if (!streamed || streamed->timestamp != record.timestamp || streamed->tid != record.tid ||
        streamed->snapshot != record.snapshot || streamed->event.index() != record.event.index()) {
      __builtin_trap();
    }
  }
  const trace::TraceStats& a = parsed->stats;
  const trace::TraceStats& b = stream->stats();
  if (stream->Next() || a.chunks != b.chunks || a.records != b.records ||
      a.torn_records != b.torn_records || a.unknown_records != b.unknown_records ||
      a.damaged_regions != b.damaged_regions ||
      parsed->damage.message() != stream->damage().message()) {
    __builtin_trap();
  }
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
