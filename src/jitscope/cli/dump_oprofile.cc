// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/dump_oprofile.h"

#include <string>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/cli/dump_fields.h"
#include "jitscope/formats/oprofile_dump_reader.h"

namespace jitscope::cli {
namespace {

using nlohmann::json;

// Every field of every OProfile dump record type, once; the text line and the JSON object are
// both made from it. The names are OProfile's own (opjitconv's record names, the struct fields).
RecordFields Describe(const formats::OprofileDumpRecord& record) {
  struct Visitor {
    RecordFields operator()(const formats::OprofileDumpCodeLoad& r) const {
      return {"CODE_LOAD",
              "CODE_LOAD",
              {{"vma", "vma", Hex{r.vma}},
               {"code_addr", "code_addr", Hex{r.code_addr}},
               {"code_size", "size", uint64_t{r.code_size}},
               {"", "code_bytes", uint64_t{r.code.size()}, Shown::kTextOnly},
               {"name", "name", Text(r.name)},
               {"code", "", Word{HexBytes(r.code)}, Shown::kJsonOnly}}};
    }
    RecordFields operator()(const formats::OprofileDumpUnload& r) const {
      return {"UNLOAD", "UNLOAD", {{"vma", "vma", Hex{r.vma}}}};
    }
    RecordFields operator()(const formats::OprofileDumpClose&) const {
      return {"CLOSE", "CLOSE", {}};
    }
    RecordFields operator()(const formats::OprofileDumpDebugInfo& r) const {
      Table lines{
          {"vma", "line", "file"}, r.lines.size(), [&r](size_t i, std::vector<Cell>& cells) {
            cells = {Hex{r.lines[i].vma}, uint64_t{r.lines[i].line}, Text(r.lines[i].file)};
          }};
      return {"DEBUG_INFO",
              "DEBUG_INFO",
              {{"code_addr", "code_addr", Hex{r.code_addr}}, {"lines", "lines", std::move(lines)}}};
    }
  };
  return std::visit(Visitor{}, record.body);
}

void WriteText(const formats::OprofileDumpRecord& record, std::FILE* out) {
  WriteFieldsText(fmt::format("{} ", record.timestamp), Describe(record), out);
}

void WriteJson(const formats::OprofileDumpRecord& record, std::FILE* out) {
  WriteFieldsJson(Describe(record), {{"offset", record.offset}, {"timestamp", record.timestamp}},
                  out);
}

}  // namespace

int RunOprofileDump(const DumpOptions& options, std::span<const uint8_t> bytes, std::FILE* out,
                    std::FILE* err) {
  auto parsed = formats::ParseOprofileDump(bytes, options.path);
  if (!parsed.ok()) {
    fmt::print(err, "jitscope dump: error: {}\n", parsed.status().message());
    return 1;
  }
  const formats::ParsedOprofileDump& dump = *parsed;
  const formats::OprofileDumpStats& stats = dump.stats;
  if (options.json) {
    fmt::print(out, "{}\n",
               DumpJson({{"type", "oprofile_header"},
                         {"version", dump.header.version},
                         {"bfd_target", std::string(dump.header.bfd_target)},
                         {"bfd_arch", dump.header.bfd_arch},
                         {"bfd_mach", dump.header.bfd_mach},
                         {"timestamp", dump.header.timestamp}}));
    for (const auto& record : dump.records) WriteJson(record, out);
    json summary = {{"type", "summary"},
                    {"records", dump.records.size()},
                    {"torn_records", stats.torn_records}};
    // Only when there were some, so the summary of a dump of known records stays as it was.
    if (stats.unknown_records != 0) summary["unknown_records"] = stats.unknown_records;
    fmt::print(out, "{}\n", DumpJson(summary));
  } else {
    fmt::print(out, "# oprofile jit dump v{} target={} bfd_arch={} bfd_mach={} timestamp={}\n",
               dump.header.version, Quote(dump.header.bfd_target), dump.header.bfd_arch,
               dump.header.bfd_mach, dump.header.timestamp);
    for (const auto& record : dump.records) WriteText(record, out);
    fmt::print(out, "# {} records", dump.records.size());
    if (stats.torn_records != 0) {
      fmt::print(out, ", {} torn (the writer died mid-record)", stats.torn_records);
    }
    if (stats.unknown_records != 0) {
      fmt::print(out, ", {} of unknown type skipped", stats.unknown_records);
    }
    fmt::print(out, "\n");
  }
  std::fflush(out);
  if (!dump.error.ok()) {
    fmt::print(err, "jitscope dump: error: {}\n", dump.error.message());
    return 1;
  }
  return 0;
}

}  // namespace jitscope::cli
