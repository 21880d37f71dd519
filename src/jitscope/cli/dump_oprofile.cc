// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/dump_oprofile.h"

#include <string>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/formats/oprofile_dump_reader.h"

namespace jitscope::cli {
namespace {

using nlohmann::json;

std::string FormatText(const formats::OprofileDumpRecord& record) {
  struct Visitor {
    std::string operator()(const formats::OprofileDumpCodeLoad& r) const {
      return fmt::format("CODE_LOAD vma={:#x} code_addr={:#x} size={} code_bytes={} name={}", r.vma,
                         r.code_addr, r.code_size, r.code.size(), Quote(r.name));
    }
    std::string operator()(const formats::OprofileDumpUnload& r) const {
      return fmt::format("UNLOAD vma={:#x}", r.vma);
    }
    std::string operator()(const formats::OprofileDumpClose&) const { return "CLOSE"; }
    std::string operator()(const formats::OprofileDumpDebugInfo& r) const {
      std::string line = fmt::format("DEBUG_INFO code_addr={:#x} lines=[", r.code_addr);
      for (size_t i = 0; i < r.lines.size(); ++i) {
        line += fmt::format("{}{:#x}:{}:{}", i ? " " : "", r.lines[i].vma, r.lines[i].line,
                            Quote(r.lines[i].file));
      }
      return line + "]";
    }
  };
  return fmt::format("{} {}", record.timestamp, std::visit(Visitor{}, record.body));
}

json ToJson(const formats::OprofileDumpRecord& record) {
  json out = {{"offset", record.offset}, {"timestamp", record.timestamp}};
  struct Visitor {
    json& out;
    void operator()(const formats::OprofileDumpCodeLoad& r) const {
      out["type"] = "CODE_LOAD";
      out["vma"] = r.vma;
      out["code_addr"] = r.code_addr;
      out["code_size"] = r.code_size;
      out["name"] = std::string(r.name);
      out["code"] = HexBytes(r.code);
    }
    void operator()(const formats::OprofileDumpUnload& r) const {
      out["type"] = "UNLOAD";
      out["vma"] = r.vma;
    }
    void operator()(const formats::OprofileDumpClose&) const { out["type"] = "CLOSE"; }
    void operator()(const formats::OprofileDumpDebugInfo& r) const {
      out["type"] = "DEBUG_INFO";
      out["code_addr"] = r.code_addr;
      json lines = json::array();
      for (const auto& line : r.lines) {
        lines.push_back({{"vma", line.vma}, {"line", line.line}, {"file", std::string(line.file)}});
      }
      out["lines"] = std::move(lines);
    }
  };
  std::visit(Visitor{out}, record.body);
  return out;
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
  if (options.json) {
    fmt::print(out, "{}\n",
               DumpJson({{"type", "oprofile_header"},
                         {"version", dump.header.version},
                         {"bfd_target", std::string(dump.header.bfd_target)},
                         {"bfd_arch", dump.header.bfd_arch},
                         {"bfd_mach", dump.header.bfd_mach},
                         {"timestamp", dump.header.timestamp}}));
    for (const auto& record : dump.records) fmt::print(out, "{}\n", DumpJson(ToJson(record)));
    json summary = {{"type", "summary"},
                    {"records", dump.records.size()},
                    {"torn_records", dump.stats.torn_records}};
    // Only when there were some, so the summary of a dump of known records stays as it was.
    if (dump.stats.unknown_records != 0) summary["unknown_records"] = dump.stats.unknown_records;
    fmt::print(out, "{}\n", DumpJson(summary));
  } else {
    fmt::print(out, "# oprofile jit dump v{} target={} bfd_arch={} bfd_mach={} timestamp={}\n",
               dump.header.version, Quote(dump.header.bfd_target), dump.header.bfd_arch,
               dump.header.bfd_mach, dump.header.timestamp);
    for (const auto& record : dump.records) fmt::print(out, "{}\n", FormatText(record));
    fmt::print(out, "# {} records", dump.records.size());
    if (dump.stats.torn_records != 0) {
      fmt::print(out, ", {} torn (the writer died mid-record)", dump.stats.torn_records);
    }
    if (dump.stats.unknown_records != 0) {
      fmt::print(out, ", {} of unknown type skipped", dump.stats.unknown_records);
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
