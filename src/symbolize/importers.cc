// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/importers.h"

#include <variant>

namespace jitscope::symbolize {

CodeArch NativeArch(uint32_t pointer_size) {
  return pointer_size == 4 ? CodeArch::k32 : CodeArch::k64;
}

void ImportTrace(const trace::ParsedTrace& trace, IndexBuilder& builder) {
  builder.Reserve(trace.records.size());
  for (const trace::Record& record : trace.records) {
    if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) {
      CodeReport report;
      report.time = record.timestamp;
      report.id_space = 0;
      report.method_id = code->method_id;
      report.address = code->address;
      report.size = code->size;
      report.name = code->name;
      report.source_file = code->source_file;
      report.module = code->module;
      report.arch = code->api_event == trace::kEventMethodLoadFinishedV3
                        ? static_cast<CodeArch>(code->arch <= 2 ? code->arch : 0)
                        : CodeArch::kNative;
      report.end_offset_lines = code->lines;
      switch (code->api_event) {
        case trace::kEventMethodInlineLoadFinished:
          builder.AddInlineLoad(report, code->parent_method_id);
          break;
        case trace::kEventMethodUpdate:
          builder.AddUpdate(report);
          break;
        default:
          builder.AddLoad(report);
          break;
      }
    } else if (const auto* update = std::get_if<trace::RangeUpdateEvent>(&record.event)) {
      builder.AddRangeUpdate(record.timestamp, update->address, update->size);
    } else if (const auto* unload = std::get_if<trace::UnloadEvent>(&record.event)) {
      builder.AddUnloadMethod(record.timestamp, 0, unload->method_id);
    }
    // SHUTDOWN changes no code; REJECTED events were refused by the collector.
  }
}

namespace {

// A record's line entries, as the builder takes them.
template <typename Entry>
std::span<const AddressLine> Lines(const std::vector<Entry>& entries, uint32_t first,
                                   uint32_t count, std::vector<AddressLine>& out) {
  out.clear();
  for (uint32_t i = 0; i < count; ++i) {
    const Entry& e = entries[first + i];
    out.push_back({e.address, e.line, e.file});
  }
  return out;
}

}  // namespace

void ImportJitdump(const formats::ParsedJitdump& dump, IndexBuilder& builder) {
  const uint32_t space = builder.NewIdSpace();
  builder.Reserve(dump.records.size());
  std::vector<AddressLine> lines;
  for (const formats::JitdumpRecord& record : dump.records) {
    if (record.kind == formats::JitdumpRecordKind::kCodeMove) {
      builder.AddMove(record.timestamp, space, record.code_index, record.old_code_addr,
                      record.code_addr);
      continue;
    }
    CodeReport report;
    report.time = record.timestamp;
    report.id_space = space;
    report.method_id = record.code_index;
    report.address = record.code_addr;
    report.size = record.code_size;
    report.name = record.name;
    report.address_lines = Lines(dump.lines, record.first_line, record.line_count, lines);
    builder.AddLoad(report);
  }
}

void ImportPerfMap(const formats::ParsedPerfMap& map, IndexBuilder& builder) {
  builder.Reserve(map.entries.size());
  for (const formats::PerfMapEntry& entry : map.entries) {
    CodeReport report;
    report.time = 0;
    report.address = entry.start;
    report.size = entry.size;
    report.name = entry.name;
    builder.AddLoad(report);
  }
}

void ImportOprofileDump(const formats::scan::ParsedOprofileDump& dump, IndexBuilder& builder) {
  constexpr uint64_t kNsPerSecond = 1000000000;
  builder.Reserve(dump.records.size());
  std::vector<AddressLine> lines;
  for (const formats::scan::OprofileRecord& record : dump.records) {
    const uint64_t time = record.timestamp_seconds * kNsPerSecond;
    if (record.kind == formats::scan::OprofileRecordKind::kCodeUnload) {
      builder.AddUnloadAddress(time, record.vma);
      continue;
    }
    CodeReport report;
    report.time = time;
    report.address = record.vma;
    report.size = record.code_size;
    report.name = record.name;
    report.address_lines = Lines(dump.lines, record.first_line, record.line_count, lines);
    builder.AddLoad(report);
  }
}

}  // namespace jitscope::symbolize
