// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/dump_command.h"

#include <array>
#include <optional>
#include <string_view>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/base/files.h"
#include "jitscope/cli/dump_oprofile.h"
#include "jitscope/formats/oprofile_dump_reader.h"
#include "jitscope/trace/reader.h"

namespace jitscope::cli {
namespace {

using nlohmann::json;

json Text(const std::optional<std::string_view>& s) {
  return s ? json(std::string(*s)) : json(nullptr);
}

}  // namespace

std::string Quote(std::optional<std::string_view> s) {
  if (!s) return "-";
  // JSON string escaping gives an unambiguous one-line form for any bytes.
  return json(std::string(*s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string HexBytes(std::span<const uint8_t> bytes) {
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const uint8_t byte : bytes) hex += fmt::format("{:02x}", byte);
  return hex;
}

std::string DumpJson(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

std::string EventName(uint32_t api_event) {
  const char* name = trace::ApiEventName(api_event);
  return name ? name : fmt::format("EVENT_{}", api_event);
}

std::string FormatText(const trace::Record& record) {
  std::string prefix = fmt::format("{} tid={} ", record.timestamp, record.tid);
  struct Visitor {
    std::string operator()(const trace::CodeEvent& e) const {
      std::string line = fmt::format("{} id={}", EventName(e.api_event), e.method_id);
      if (e.api_event == trace::kEventMethodInlineLoadFinished) {
        line += fmt::format(" parent={}", e.parent_method_id);
      }
      line += fmt::format(" addr={:#x} size={} name={} class={} source={}", e.address, e.size,
                          Quote(e.name), Quote(e.class_file), Quote(e.source_file));
      if (e.api_event == trace::kEventMethodLoadFinished)
        line += fmt::format(" class_id={}", e.class_id);
      if (e.api_event == trace::kEventMethodLoadFinishedV2 ||
          e.api_event == trace::kEventMethodLoadFinishedV3) {
        line += fmt::format(" module={}", Quote(e.module));
      }
      if (e.api_event == trace::kEventMethodLoadFinishedV3) line += fmt::format(" arch={}", e.arch);
      line += " lines=[";
      for (size_t i = 0; i < e.lines.size(); ++i) {
        line += fmt::format("{}{}:{}", i ? " " : "", e.lines[i].offset, e.lines[i].line);
      }
      return line + "]";
    }
    std::string operator()(const trace::RangeUpdateEvent& e) const {
      return fmt::format("METHOD_UPDATE_V2 addr={:#x} size={} type={} format={}", e.address, e.size,
                         e.segment_type, Quote(e.data_format));
    }
    std::string operator()(const trace::UnloadEvent& e) const {
      return fmt::format("METHOD_UNLOAD_START id={}", e.method_id);
    }
    std::string operator()(const trace::ShutdownEvent&) const { return "SHUTDOWN"; }
    std::string operator()(const trace::RejectedEvent& e) const {
      return fmt::format("REJECTED event={} reason={}", EventName(e.api_event),
                         trace::RejectReasonName(e.reason));
    }
    std::string operator()(const trace::OprofileOpenEvent& e) const {
      return fmt::format("op_open_agent agent={}", e.agent);
    }
    std::string operator()(const trace::OprofileCloseEvent& e) const {
      return fmt::format("op_close_agent agent={}", e.agent);
    }
    std::string operator()(const trace::OprofileCodeLoadEvent& e) const {
      return fmt::format(
          "op_write_native_code agent={} addr={:#x} size={} code_addr={:#x} "
          "code_bytes={} name={}",
          e.agent, e.address, e.size, e.code_address, e.code.size(), Quote(e.name));
    }
    std::string operator()(const trace::OprofileDebugLinesEvent& e) const {
      std::string line = fmt::format(
          "op_write_debug_line_info agent={} addr={:#x} size={} "
          "code_addr={:#x} lines=[",
          e.agent, e.address, e.size, e.code_address);
      for (size_t i = 0; i < e.lines.size(); ++i) {
        line += fmt::format("{}{:#x}:{}:{}", i ? " " : "", e.lines[i].address, e.lines[i].line,
                            Quote(e.files[e.lines[i].file]));
      }
      return line + "]";
    }
    std::string operator()(const trace::OprofileUnloadEvent& e) const {
      return fmt::format("op_unload_native_code agent={} addr={:#x} size={}", e.agent, e.address,
                         e.size);
    }
  };
  return prefix + std::visit(Visitor{}, record.event);
}

json ToJson(const trace::Record& record) {
  json out = {{"timestamp", record.timestamp}, {"tid", record.tid}};
  struct Visitor {
    json& out;
    void operator()(const trace::CodeEvent& e) const {
      out["type"] = "code";
      out["event"] = EventName(e.api_event);
      out["method_id"] = e.method_id;
      out["parent_method_id"] = e.parent_method_id;
      out["address"] = e.address;
      out["size"] = e.size;
      out["class_id"] = e.class_id;
      out["arch"] = e.arch;
      out["name"] = Text(e.name);
      out["class_file"] = Text(e.class_file);
      out["source_file"] = Text(e.source_file);
      out["module"] = Text(e.module);
      json lines = json::array();
      for (const auto& entry : e.lines)
        lines.push_back({{"offset", entry.offset}, {"line", entry.line}});
      out["lines"] = std::move(lines);
    }
    void operator()(const trace::RangeUpdateEvent& e) const {
      out["type"] = "range_update";
      out["event"] = "METHOD_UPDATE_V2";
      out["address"] = e.address;
      out["size"] = e.size;
      out["segment_type"] = e.segment_type;
      out["data_format"] = Text(e.data_format);
    }
    void operator()(const trace::UnloadEvent& e) const {
      out["type"] = "unload";
      out["event"] = "METHOD_UNLOAD_START";
      out["method_id"] = e.method_id;
    }
    void operator()(const trace::ShutdownEvent&) const {
      out["type"] = "shutdown";
      out["event"] = "SHUTDOWN";
    }
    void operator()(const trace::RejectedEvent& e) const {
      out["type"] = "rejected";
      out["event"] = EventName(e.api_event);
      out["reason"] = trace::RejectReasonName(e.reason);
    }
    void operator()(const trace::OprofileOpenEvent& e) const {
      out["type"] = "oprofile_open";
      out["event"] = "op_open_agent";
      out["agent"] = e.agent;
    }
    void operator()(const trace::OprofileCloseEvent& e) const {
      out["type"] = "oprofile_close";
      out["event"] = "op_close_agent";
      out["agent"] = e.agent;
    }
    void operator()(const trace::OprofileCodeLoadEvent& e) const {
      out["type"] = "oprofile_code_load";
      out["event"] = "op_write_native_code";
      out["agent"] = e.agent;
      out["address"] = e.address;
      out["size"] = e.size;
      out["code_address"] = e.code_address;
      out["name"] = std::string(e.name);
      out["code"] = HexBytes(e.code);
    }
    void operator()(const trace::OprofileDebugLinesEvent& e) const {
      out["type"] = "oprofile_debug_lines";
      out["event"] = "op_write_debug_line_info";
      out["agent"] = e.agent;
      out["address"] = e.address;
      out["size"] = e.size;
      out["code_address"] = e.code_address;
      json lines = json::array();
      for (const auto& entry : e.lines) {
        lines.push_back({{"address", entry.address},
                         {"line", entry.line},
                         {"file", std::string(e.files[entry.file])}});
      }
      out["lines"] = std::move(lines);
    }
    void operator()(const trace::OprofileUnloadEvent& e) const {
      out["type"] = "oprofile_unload";
      out["event"] = "op_unload_native_code";
      out["agent"] = e.agent;
      out["address"] = e.address;
      out["size"] = e.size;
    }
  };
  std::visit(Visitor{out}, record.event);
  return out;
}

// Rejected events counted per reason, in reason order.
std::array<uint64_t, trace::kMaxRejectReason + 1> CountRejections(const trace::ParsedTrace& t) {
  std::array<uint64_t, trace::kMaxRejectReason + 1> counts{};
  for (const auto& record : t.records) {
    if (const auto* r = std::get_if<trace::RejectedEvent>(&record.event)) {
      const auto reason = static_cast<uint32_t>(r->reason);
      if (reason <= trace::kMaxRejectReason) ++counts[reason];
    }
  }
  return counts;
}

}  // namespace

void AddDumpCommand(CLI::App& app, DumpOptions& options) {
  CLI::App* dump = app.add_subcommand(
      "dump", "Print every record of a jitscope trace (jit-<pid>.jsc) or an OProfile JIT dump");
  dump->add_option("FILE", options.path,
                   "Trace file written by the collector, or <pid>.dump written by libopagent")
      ->required();
  dump->add_flag("--json", options.json,
                 "One JSON object per line: a header, every record with all its fields, a summary");
}

int RunDump(const DumpOptions& options, std::FILE* out, std::FILE* err) {
  // OProfile's dump (what libopagent writes) is told apart by its magic.
  if (auto mapped = base::MappedFile::Open(options.path);
      mapped.ok() && formats::LooksLikeOprofileDump({mapped->data(), mapped->size()})) {
    return RunOprofileDump(options, {mapped->data(), mapped->size()}, out, err);
  }
  auto file = trace::TraceFile::Open(options.path);
  if (!file.ok()) {
    fmt::print(err, "jitscope dump: error: {}\n", file.status().message());
    return 1;
  }
  const trace::ParsedTrace& t = file->trace();
  const auto rejections = CountRejections(t);
  if (options.json) {
    fmt::print(out, "{}\n",
               DumpJson({{"type", "header"},
                         {"version", t.header.version},
                         {"pid", t.header.pid},
                         {"exe", std::string(t.header.exe_path)},
                         {"pointer_size", t.header.pointer_size},
                         {"start_monotonic_ns", t.header.start_monotonic_ns},
                         {"start_realtime_ns", t.header.start_realtime_ns}}));
    for (const auto& record : t.records) fmt::print(out, "{}\n", DumpJson(ToJson(record)));
    json rejected = json::object();
    for (uint32_t i = 1; i <= trace::kMaxRejectReason; ++i) {
      if (rejections[i] != 0) {
        rejected[trace::RejectReasonName(static_cast<trace::RejectReason>(i))] = rejections[i];
      }
    }
    fmt::print(out, "{}\n",
               DumpJson({{"type", "summary"},
                         {"records", t.stats.records},
                         {"rejected", std::move(rejected)},
                         {"torn_records", t.stats.torn_records},
                         {"unknown_records", t.stats.unknown_records},
                         {"damaged_regions", t.stats.damaged_regions}}));
  } else {
    fmt::print(out, "# jitscope trace v{} pid={} exe={} start_monotonic_ns={}\n", t.header.version,
               t.header.pid, Quote(t.header.exe_path), t.header.start_monotonic_ns);
    for (const auto& record : t.records) fmt::print(out, "{}\n", FormatText(record));
    fmt::print(out, "# {} records", t.stats.records);
    for (uint32_t i = 1; i <= trace::kMaxRejectReason; ++i) {
      if (rejections[i] != 0) {
        fmt::print(out, ", rejected {}={}",
                   trace::RejectReasonName(static_cast<trace::RejectReason>(i)), rejections[i]);
      }
    }
    if (t.stats.torn_records != 0)
      fmt::print(out, ", {} torn (process died mid-write)", t.stats.torn_records);
    if (t.stats.unknown_records != 0)
      fmt::print(out, ", {} of unknown type skipped", t.stats.unknown_records);
    fmt::print(out, "\n");
  }
  std::fflush(out);
  if (!t.damage.ok()) {
    fmt::print(err, "jitscope dump: error: {}\n", t.damage.message());
    return 1;
  }
  return 0;
}

}  // namespace jitscope::cli
