// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/importers.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

namespace jitscope::symbolize {
namespace {

// OProfile's agent API reports a line table in a call of its own after the code's load
// (op_write_debug_line_info, OProfile's guide), and the trace records the calls as they came. The
// index takes a load with its lines, as from an OProfile dump (oprofile_dump_reader.h): each
// debug-lines record goes to the load it names (the agent checked that load was live at its
// address), a later one replacing an earlier one. Returns, per record index of a load (in the
// walk's order), its lines record: views into the trace, as the record's own.
std::unordered_map<size_t, trace::OprofileDebugLinesEvent> OprofileLinesOfLoads(
    const RecordWalk& records) {
  std::unordered_map<size_t, trace::OprofileDebugLinesEvent> lines_of_load;
  std::unordered_map<uint64_t, size_t> live_load;  // address → record index of its load
  size_t i = 0;
  records([&](const trace::Record& record) {
    const trace::Event& event = record.event;
    if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&event)) {
      live_load[load->address] = i;
    } else if (const auto* lines = std::get_if<trace::OprofileDebugLinesEvent>(&event)) {
      if (auto it = live_load.find(lines->address); it != live_load.end()) {
        lines_of_load[it->second] = *lines;
      }
    } else if (const auto* unload = std::get_if<trace::OprofileUnloadEvent>(&event)) {
      live_load.erase(unload->address);
    }
    ++i;
  });
  return lines_of_load;
}

}  // namespace

CodeArch NativeArch(uint32_t pointer_size) {
  return pointer_size == 4 ? CodeArch::k32 : CodeArch::k64;
}

RecordWalk WalkOf(const trace::ParsedTrace& trace) {
  return [&trace](const RecordVisitor& visit) {
    for (const trace::Record& record : trace.records) visit(record);
  };
}

void ImportTrace(const RecordWalk& records, uint64_t count, IndexBuilder& builder,
                 uint32_t id_space) {
  builder.Reserve(count);
  const std::unordered_map<size_t, trace::OprofileDebugLinesEvent> oprofile_lines =
      OprofileLinesOfLoads(records);
  std::vector<AddressLine> lines;
  size_t i = 0;
  records([&](const trace::Record& record) {
    const size_t index = i++;
    if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&record.event)) {
      // OProfile's code has no method id: it is known by its address, as in an OProfile dump.
      CodeReport report;
      report.time = record.timestamp;
      report.address = load->address;
      report.size = load->size;
      report.name = load->name;
      lines.clear();
      if (auto it = oprofile_lines.find(index); it != oprofile_lines.end()) {
        const trace::OprofileDebugLinesEvent& debug = it->second;
        for (const trace::OprofileLineEntry& entry : debug.lines) {
          lines.push_back({entry.address, entry.line, debug.files[entry.file]});
        }
      }
      report.address_lines = lines;
      builder.AddLoad(report);
    } else if (const auto* unload = std::get_if<trace::OprofileUnloadEvent>(&record.event)) {
      builder.AddUnloadAddress(record.timestamp, unload->address);
    } else if (const auto* code = std::get_if<trace::CodeEvent>(&record.event)) {
      CodeReport report;
      report.time = record.timestamp;
      report.id_space = id_space;
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
      builder.AddUnloadMethod(record.timestamp, id_space, unload->method_id);
    }
    // SHUTDOWN and op_close_agent change no code (OProfile's code lives until unloaded or the
    // profile ends); REJECTED events were refused by the collector.
  });
}

namespace {

// A record's line entries, as the builder takes them.
template <typename Entries>
std::span<const AddressLine> Lines(const Entries& entries, uint32_t first, uint32_t count,
                                   std::vector<AddressLine>& out) {
  out.clear();
  for (uint32_t i = 0; i < count; ++i) {
    const auto& e = entries[first + i];
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

void ImportOprofileDump(const formats::ParsedOprofileDump& dump, IndexBuilder& builder) {
  builder.Reserve(dump.records.size());
  std::vector<AddressLine> lines;
  for (const formats::OprofileDumpRecord& record : dump.records) {
    const uint64_t time = record.timestamp_ns();
    if (const auto* unload = std::get_if<formats::OprofileDumpUnload>(&record.body)) {
      builder.AddUnloadAddress(time, unload->vma);
      continue;
    }
    const auto* load = std::get_if<formats::OprofileDumpCodeLoad>(&record.body);
    if (load == nullptr) continue;  // DEBUG_INFO is read with its load; CLOSE changes no code
    lines.clear();
    if (load->debug_info) {
      const auto& info =
          std::get<formats::OprofileDumpDebugInfo>(dump.records[*load->debug_info].body);
      for (const formats::OprofileDumpLine& line : info.lines) {
        lines.push_back({line.vma, line.line, line.file});
      }
    }
    CodeReport report;
    report.time = time;
    report.address = load->vma;
    report.size = load->code_size;
    report.name = load->name;
    report.address_lines = lines;
    builder.AddLoad(report);
  }
}

namespace {

// One inlined scope of a compiled method: a method called at a bytecode index of its parent
// scope, with the code ranges it covers and the line it is at in each.
struct InlineScope {
  uint64_t parent_id = 0;  // 0: the compiled method itself
  const formats::JvmMethod* method = nullptr;
  std::string_view name;
  std::vector<AddressLine> ranges;  // start and line of each range, in address order
  std::vector<uint64_t> ends;       // the end of each range
};

// Adds `scope`'s ranges as inline regions, one per run of adjacent ranges.
void AddScope(const InlineScope& scope, const CodeReport& base, uint64_t id,
              IndexBuilder& builder) {
  std::vector<AddressLine> lines;
  for (size_t i = 0; i < scope.ranges.size();) {
    size_t j = i;
    lines.clear();
    while (j < scope.ranges.size() && (j == i || scope.ranges[j].address == scope.ends[j - 1])) {
      lines.push_back(scope.ranges[j++]);
    }
    CodeReport report = base;
    report.method_id = id;
    report.address = scope.ranges[i].address;
    report.size = scope.ends[j - 1] - scope.ranges[i].address;
    report.name = scope.name;
    if (!scope.method->file.empty()) report.source_file = scope.method->file;
    report.address_lines = lines;
    builder.AddInlineLoad(report, scope.parent_id);
    i = j;
  }
}

}  // namespace

void ImportJvmTable(const formats::ParsedJvmTable& table, const JavaMethods& methods,
                    IndexBuilder& builder) {
  std::vector<formats::JvmPc> pcs;
  std::vector<AddressLine> root_lines;
  for (const formats::JvmCompiled& code : table.compiled) {
    const uint64_t end = code.address + code.size;
    if (code.size == 0 || end < code.address) continue;
    pcs.clear();
    for (const formats::JvmPc& pc : code.pcs) {
      if (pc.frames > 0 && pc.pc >= code.address && pc.pc < end) pcs.push_back(pc);
    }
    if (pcs.empty()) continue;
    std::stable_sort(pcs.begin(), pcs.end(),
                     [](const auto& a, const auto& b) { return a.pc < b.pc; });
    const auto outermost = [&](const formats::JvmPc& pc) {
      return code.frames[pc.first_frame + pc.frames - 1];
    };
    const std::optional<JavaMethod> root = methods.Find(outermost(pcs[0]).method, code.time_ns);
    if (!root) continue;
    const uint32_t space = builder.NewIdSpace();
    // Scopes by (parent scope, call site's bytecode index, Method*); ids from 1 (0 is the root).
    std::map<std::tuple<uint64_t, int32_t, uint64_t>, uint64_t> scope_ids;
    std::vector<InlineScope> scopes;
    root_lines.clear();
    uint64_t start = code.address;
    for (size_t i = 0; i < pcs.size(); ++i) {
      const formats::JvmPc& pc = pcs[i];
      const uint64_t range_end = pc.pc + 1;
      if (range_end <= start) continue;  // a pc reported twice
      const formats::JvmFrame outer = outermost(pc);
      if (outer.method == root->method->method) {
        root_lines.push_back(
            {start,
             JavaMethods::LineOf(*root->method, static_cast<uint64_t>(std::max(outer.bci, 0))),
             root->method->file.empty() ? std::nullopt
                                        : std::optional<std::string_view>(root->method->file)});
        // From the outermost inlined scope in.
        uint64_t parent = 0;
        for (uint32_t d = pc.frames - 1; d-- > 0;) {
          const formats::JvmFrame& frame = code.frames[pc.first_frame + d];
          const int32_t call_bci = code.frames[pc.first_frame + d + 1].bci;
          const std::optional<JavaMethod> method = methods.Find(frame.method, code.time_ns);
          if (!method) break;
          auto [it, inserted] =
              scope_ids.try_emplace({parent, call_bci, frame.method}, scopes.size() + 1);
          if (inserted) scopes.push_back({parent, method->method, method->name, {}, {}});
          InlineScope& scope = scopes[it->second - 1];
          const uint32_t line =
              JavaMethods::LineOf(*method->method, static_cast<uint64_t>(std::max(frame.bci, 0)));
          scope.ranges.push_back({start, line,
                                  method->method->file.empty()
                                      ? std::nullopt
                                      : std::optional<std::string_view>(method->method->file)});
          scope.ends.push_back(range_end);
          parent = it->second;
        }
      }
      start = range_end;
    }
    CodeReport report;
    report.time = code.time_ns;
    report.id_space = space;
    report.method_id = 0;
    report.address = code.address;
    report.size = code.size;
    report.name = root->name;
    if (!root->method->file.empty()) report.source_file = root->method->file;
    report.address_lines = root_lines;
    builder.AddLoad(report);
    for (size_t i = 0; i < scopes.size(); ++i) AddScope(scopes[i], report, i + 1, builder);
  }
}

void ImportCode(const RecordWalk& records, CodeStore& store) {
  records([&store](const trace::Record& record) {
    if (const auto* bytes = std::get_if<trace::CodeBytesEvent>(&record.event)) {
      store.Add(record.timestamp, bytes->address, bytes->bytes);
    } else if (const auto* load = std::get_if<trace::OprofileCodeLoadEvent>(&record.event)) {
      store.Add(record.timestamp, load->address, load->code);
    }
  });
}

void ImportCode(const formats::ParsedJitdump& dump, CodeStore& store) {
  for (const formats::JitdumpRecord& record : dump.records) {
    if (record.kind == formats::JitdumpRecordKind::kCodeLoad) {
      store.Add(record.timestamp, record.code_addr, record.code);
    }
  }
}

void ImportCode(const formats::ParsedOprofileDump& dump, CodeStore& store) {
  for (const formats::OprofileDumpRecord& record : dump.records) {
    if (const auto* load = std::get_if<formats::OprofileDumpCodeLoad>(&record.body)) {
      store.Add(record.timestamp_ns(), load->vma, load->code);
    }
  }
}

}  // namespace jitscope::symbolize
