// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/dump_jvm_table.h"

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/cli/dump_fields.h"
#include "jitscope/formats/jvm_table.h"

namespace jitscope::cli {
namespace {

using nlohmann::json;

Text Optional(std::string_view text) { return text.empty() ? Text() : Text(text); }

// Every field of every record type, once; the text line and the JSON object are both made from
// it.
RecordFields Describe(const formats::ParsedJvmTable& table, const formats::JvmRecord& record) {
  switch (record.type) {
    case JITSCOPE_JVM_RECORD_METHOD: {
      const formats::JvmMethod& m = table.methods[record.index];
      Table lines{{"bci", "line"}, m.lines.size(), [&m](size_t i, std::vector<Cell>& cells) {
                    cells = {uint64_t{m.lines[i].start_bci}, uint64_t{m.lines[i].line}};
                  }};
      return {"method",
              "METHOD",
              {{"method", "method", Hex{m.method}},
               {"until_ns", "until", m.until_ns, TextIf(m.until_ns != formats::kJvmForever)},
               {"code_base", "code", Hex{m.code_base}},
               {"code_size", "size", uint64_t{m.code_size}},
               {"native", "native", uint64_t{m.native}, TextIf(m.native)},
               {"class", "class", Text(m.class_name)},
               {"name", "name", Text(m.name)},
               {"signature", "signature", Text(m.signature)},
               {"file", "file", Optional(m.file)},
               {"lines", "lines", std::move(lines)}}};
    }
    case JITSCOPE_JVM_RECORD_END: {
      const formats::JvmEnd& end = table.ends[record.index];
      return {"end",
              "END",
              {{"method", "method", Hex{end.method}},
               {"valid_until_ns", "valid_until", end.valid_until_ns},
               {"matched", "matched", uint64_t{end.matched}}}};
    }
    case JITSCOPE_JVM_RECORD_COMPILED: {
      const formats::JvmCompiled& code = table.compiled[record.index];
      // A row's frames are text the row's cell points to, until the next row is made.
      Table pcs{{"pc", "frames"},
                code.pcs.size(),
                [&code, frames = std::string()](size_t row, std::vector<Cell>& cells) mutable {
                  const formats::JvmPc& pc = code.pcs[row];
                  frames.clear();
                  for (uint32_t i = 0; i < pc.frames; ++i) {
                    const formats::JvmFrame& frame = code.frames[pc.first_frame + i];
                    frames += fmt::format("{}{:#x}@{}", i == 0 ? "" : ",", frame.method, frame.bci);
                  }
                  cells = {Hex{pc.pc}, Text(frames)};
                }};
      return {"compiled",
              "COMPILED",
              {{"address", "code", Hex{code.address}},
               {"size", "size", uint64_t{code.size}},
               {"pcs", "pcs", std::move(pcs)}}};
    }
    default:
      return {"unknown", "UNKNOWN", {{"record_type", "type", uint64_t{record.type}}}};
  }
}

}  // namespace

int RunJvmTableDump(const DumpOptions& options, std::span<const uint8_t> bytes, std::FILE* out,
                    std::FILE* err) {
  auto parsed = formats::ParseJvmTable(bytes, options.path);
  if (!parsed.ok()) {
    fmt::print(err, "jitscope dump: error: {}\n", parsed.status().message());
    return 1;
  }
  const formats::ParsedJvmTable& table = *parsed;
  if (options.json) {
    fmt::print(out, "{}\n",
               DumpJson({{"type", "jvm_table_header"},
                         {"version", JITSCOPE_JVM_TABLE_VERSION},
                         {"pid", table.pid},
                         {"start_ns", table.start_ns}}));
    for (const formats::JvmRecord& record : table.records) {
      WriteFieldsJson(Describe(table, record),
                      {{"offset", record.offset}, {"time_ns", record.time_ns}}, out);
    }
    fmt::print(out, "{}\n",
               DumpJson({{"type", "summary"},
                         {"records", table.records.size()},
                         {"unmatched_ends", table.unmatched_ends}}));
  } else {
    fmt::print(out, "# jitscope JVM table v{} pid={} start_ns={}\n", JITSCOPE_JVM_TABLE_VERSION,
               table.pid, table.start_ns);
    for (const formats::JvmRecord& record : table.records) {
      WriteFieldsText(fmt::format("{} ", record.time_ns), Describe(table, record), out);
    }
    fmt::print(out, "# {} records", table.records.size());
    if (table.unmatched_ends != 0) {
      fmt::print(out, ", {} ends of no method", table.unmatched_ends);
    }
    fmt::print(out, "\n");
  }
  std::fflush(out);
  if (!table.error.ok()) {
    fmt::print(err, "jitscope dump: error: {}\n", table.error.message());
    return 1;
  }
  return 0;
}

}  // namespace jitscope::cli
