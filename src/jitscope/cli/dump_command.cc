// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/dump_command.h"

#include <array>
#include <optional>
#include <string_view>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/base/files.h"
#include "jitscope/cli/dump_fields.h"
#include "jitscope/cli/dump_jvm_table.h"
#include "jitscope/cli/dump_oprofile.h"
#include "jitscope/formats/jvm_table.h"
#include "jitscope/formats/oprofile_dump_header.h"
#include "jitscope/trace/reader.h"
#include "jitscope/trace/record_stream.h"

namespace jitscope::cli {
namespace {

using nlohmann::json;

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

// The call's name: the text line's first word, the JSON's "event".
Field Call(std::string name) { return Field{"event", "", Word{std::move(name)}}; }

// A field the text line shows only for some calls; JSON always has it.

// An ITT id as "d1:d2" in hex ("0x0:0x0" for __itt_null).
Word IttIdWord(const trace::IttId& id) { return Word{fmt::format("{:#x}:{:#x}", id.d1, id.d2)}; }

// Every field of every record type, once; the text line and the JSON object are both made from it.
RecordFields Describe(const trace::Event& event) {
  struct Visitor {
    RecordFields operator()(const trace::CodeEvent& e) const {
      Table lines{{"offset", "line"}, e.lines.size(), [&e](size_t i, std::vector<Cell>& cells) {
                    cells = {uint64_t{e.lines[i].offset}, e.lines[i].line};
                  }};
      const bool v2_or_v3 = e.api_event == trace::kEventMethodLoadFinishedV2 ||
                            e.api_event == trace::kEventMethodLoadFinishedV3;
      return {"code",
              EventName(e.api_event),
              {Call(EventName(e.api_event)),
               {"method_id", "id", uint64_t{e.method_id}},
               {"parent_method_id", "parent", uint64_t{e.parent_method_id},
                TextIf(e.api_event == trace::kEventMethodInlineLoadFinished)},
               {"address", "addr", Hex{e.address}},
               {"size", "size", uint64_t{e.size}},
               {"name", "name", e.name},
               {"class_file", "class", e.class_file},
               {"source_file", "source", e.source_file},
               {"class_id", "class_id", uint64_t{e.class_id},
                TextIf(e.api_event == trace::kEventMethodLoadFinished)},
               {"module", "module", e.module, TextIf(v2_or_v3)},
               {"arch", "arch", uint64_t{e.arch},
                TextIf(e.api_event == trace::kEventMethodLoadFinishedV3)},
               {"lines", "lines", std::move(lines)}}};
    }
    RecordFields operator()(const trace::RangeUpdateEvent& e) const {
      return {"range_update",
              "METHOD_UPDATE_V2",
              {Call("METHOD_UPDATE_V2"),
               {"address", "addr", Hex{e.address}},
               {"size", "size", uint64_t{e.size}},
               {"segment_type", "type", uint64_t{e.segment_type}},
               {"data_format", "format", e.data_format}}};
    }
    RecordFields operator()(const trace::UnloadEvent& e) const {
      return {"unload",
              "METHOD_UNLOAD_START",
              {Call("METHOD_UNLOAD_START"), {"method_id", "id", uint64_t{e.method_id}}}};
    }
    RecordFields operator()(const trace::ShutdownEvent&) const {
      return {"shutdown", "SHUTDOWN", {Call("SHUTDOWN")}};
    }
    RecordFields operator()(const trace::RejectedEvent& e) const {
      return {"rejected",
              "REJECTED",
              {{"event", "event", Word{EventName(e.api_event)}},
               {"reason", "reason", Word{trace::RejectReasonName(e.reason)}}}};
    }
    RecordFields operator()(const trace::OprofileOpenEvent& e) const {
      return {"oprofile_open",
              "op_open_agent",
              {Call("op_open_agent"), {"agent", "agent", uint64_t{e.agent}}}};
    }
    RecordFields operator()(const trace::OprofileCloseEvent& e) const {
      return {"oprofile_close",
              "op_close_agent",
              {Call("op_close_agent"), {"agent", "agent", uint64_t{e.agent}}}};
    }
    RecordFields operator()(const trace::OprofileCodeLoadEvent& e) const {
      return {"oprofile_code_load",
              "op_write_native_code",
              {Call("op_write_native_code"),
               {"agent", "agent", uint64_t{e.agent}},
               {"address", "addr", Hex{e.address}},
               {"size", "size", uint64_t{e.size}},
               {"code_address", "code_addr", Hex{e.code_address}},
               {"", "code_bytes", uint64_t{e.code.size()}, Shown::kTextOnly},
               {"name", "name", Text(e.name)},
               {"code", "", Word{HexBytes(e.code)}, Shown::kJsonOnly}}};
    }
    RecordFields operator()(const trace::OprofileDebugLinesEvent& e) const {
      Table lines{
          {"address", "line", "file"}, e.lines.size(), [&e](size_t i, std::vector<Cell>& cells) {
            const auto& entry = e.lines[i];
            cells = {Hex{entry.address}, uint64_t{entry.line}, Text(e.files[entry.file])};
          }};
      return {"oprofile_debug_lines",
              "op_write_debug_line_info",
              {Call("op_write_debug_line_info"),
               {"agent", "agent", uint64_t{e.agent}},
               {"address", "addr", Hex{e.address}},
               {"size", "size", uint64_t{e.size}},
               {"code_address", "code_addr", Hex{e.code_address}},
               {"lines", "lines", std::move(lines)}}};
    }
    RecordFields operator()(const trace::OprofileUnloadEvent& e) const {
      return {"oprofile_unload",
              "op_unload_native_code",
              {Call("op_unload_native_code"),
               {"agent", "agent", uint64_t{e.agent}},
               {"address", "addr", Hex{e.address}},
               {"size", "size", uint64_t{e.size}}}};
    }
    RecordFields operator()(const trace::CodeBytesEvent& e) const {
      return {"code_bytes",
              "CODE_BYTES",
              {Call("CODE_BYTES"),
               {"address", "addr", Hex{e.address}},
               {"size", "size", uint64_t{e.size}},
               {"", "code_bytes", uint64_t{e.bytes.size()}, Shown::kTextOnly},
               {"code", "", Word{HexBytes(e.bytes)}, Shown::kJsonOnly}}};
    }
    RecordFields operator()(const trace::ChainLinkEvent& e) const {
      return {"chain_link",
              "CHAIN_LINK",
              {Call("CHAIN_LINK"),
               {"sequence", "sequence", uint64_t{e.sequence}},
               {"previous", "previous", Text{e.previous_name}},
               {"previous_size", "previous_size", e.previous_size}}};
    }
    RecordFields operator()(const trace::SnapshotEndEvent& e) const {
      return {"snapshot_end",
              "SNAPSHOT_END",
              {Call("SNAPSHOT_END"), {"records", "records", e.records}}};
    }
    // The ITT API's records carry the numbers of their names; the ITT_STRING records give them.
    RecordFields operator()(const trace::IttStringEvent& e) const {
      return {"itt_string",
              "ITT_STRING",
              {Call("ITT_STRING"),
               {"string", "string", uint64_t{e.string}},
               {"text", "text", Text(e.text)}}};
    }
    RecordFields operator()(const trace::IttThreadNameEvent& e) const {
      return {"itt_thread_name",
              EventName(trace::kCallIttThreadSetName),
              {Call(EventName(trace::kCallIttThreadSetName)),
               {"thread", "thread", uint64_t{e.tid}},
               {"name", "name", Text(e.name)}}};
    }
    RecordFields operator()(const trace::IttBeginEvent& e) const {
      const std::string call = EventName(trace::CallOf(e));
      return {"itt_begin",
              call,
              {Call(call),
               {"kind", "", Word{trace::IttKindName(e.kind)}, Shown::kJsonOnly},
               {"domain", "domain", uint64_t{e.domain}},
               {"name", "name", uint64_t{e.name}, TextIf(e.kind != trace::IttKind::kFrame)},
               {"id", "id", IttIdWord(e.id)},
               {"parent", "parent", IttIdWord(e.parent), TextIf(e.kind != trace::IttKind::kFrame)},
               {"function", "fn", Hex{e.function}, TextIf(e.function != 0)}}};
    }
    RecordFields operator()(const trace::IttEndEvent& e) const {
      const std::string call = EventName(trace::CallOf(e));
      return {"itt_end",
              call,
              {Call(call),
               {"kind", "", Word{trace::IttKindName(e.kind)}, Shown::kJsonOnly},
               {"domain", "domain", uint64_t{e.domain}},
               {"id", "id", IttIdWord(e.id), TextIf(e.kind != trace::IttKind::kTask)}}};
    }
    RecordFields operator()(const trace::IttMarkerEvent& e) const {
      return {"itt_marker",
              EventName(trace::kCallIttMarker),
              {Call(EventName(trace::kCallIttMarker)),
               {"domain", "domain", uint64_t{e.domain}},
               {"name", "name", uint64_t{e.name}},
               {"id", "id", IttIdWord(e.id)},
               {"scope", "scope", uint64_t{e.scope}}}};
    }
    RecordFields operator()(const trace::IttCounterEvent& e) const {
      return {"itt_counter",
              EventName(trace::kCallIttCounterCreate),
              {Call(EventName(trace::kCallIttCounterCreate)),
               {"counter", "counter", uint64_t{e.counter}},
               {"domain", "domain", uint64_t{e.domain}},
               {"name", "name", uint64_t{e.name}},
               {"value_type", "type", uint64_t{e.type}}}};
    }
    RecordFields operator()(const trace::IttCounterValueEvent& e) const {
      return {"itt_counter_value",
              "ITT_COUNTER_VALUE",
              {Call("ITT_COUNTER_VALUE"),
               {"counter", "counter", uint64_t{e.counter}},
               {"value", "value", e.value}}};
    }
  };
  return std::visit(Visitor{}, event);
}

void WriteText(const trace::Record& record, std::FILE* out) {
  // A chain's repeats say so first: the text line of a repeat is otherwise the same as of the
  // record it repeats.
  WriteFieldsText(
      fmt::format("{}{} tid={} ", record.snapshot ? "snapshot " : "", record.timestamp, record.tid),
      Describe(record.event), out);
}

void WriteJson(const trace::Record& record, std::FILE* out) {
  json members = {{"timestamp", record.timestamp}, {"tid", record.tid}};
  if (record.snapshot) members["snapshot"] = true;
  WriteFieldsJson(Describe(record.event), std::move(members), out);
}

// Rejected events counted per reason, in reason order.
using Rejections = std::array<uint64_t, trace::kMaxRejectReason + 1>;
void CountRejection(const trace::Record& record, Rejections& counts) {
  if (const auto* r = std::get_if<trace::RejectedEvent>(&record.event)) {
    const auto reason = static_cast<uint32_t>(r->reason);
    if (reason <= trace::kMaxRejectReason) ++counts[reason];
  }
}

}  // namespace

int RunDump(const DumpOptions& options, std::FILE* out, std::FILE* err) {
  // OProfile's dump (what libopagent writes) and the JVM table (what the JVMTI agent writes
  // beside the trace) are told apart by their magic.
  if (auto mapped = base::MappedFile::Open(options.path); mapped.ok()) {
    const std::span<const uint8_t> bytes(mapped->data(), mapped->size());
    if (formats::LooksLikeOprofileDump(bytes)) return RunOprofileDump(options, bytes, out, err);
    if (formats::LooksLikeJvmTable(bytes)) return RunJvmTableDump(options, bytes, out, err);
  }
  // Each record is written as it is read, and dropped: a trace can be far larger than memory.
  auto stream = trace::RecordStream::Open(options.path);
  if (!stream.ok()) {
    fmt::print(err, "jitscope dump: error: {}\n", stream.status().message());
    return 1;
  }
  const trace::TraceHeaderInfo& header = stream->header();
  const trace::TraceStats& stats = stream->stats();
  Rejections rejections{};
  if (options.json) {
    fmt::print(out, "{}\n",
               DumpJson({{"type", "header"},
                         {"version", header.version},
                         {"pid", header.pid},
                         {"exe", std::string(header.exe_path)},
                         {"pointer_size", header.pointer_size},
                         {"start_monotonic_ns", header.start_monotonic_ns},
                         {"start_realtime_ns", header.start_realtime_ns}}));
    while (const auto record = stream->Next()) {
      WriteJson(*record, out);
      CountRejection(*record, rejections);
    }
    json rejected = json::object();
    for (uint32_t i = 1; i <= trace::kMaxRejectReason; ++i) {
      if (rejections[i] != 0) {
        rejected[trace::RejectReasonName(static_cast<trace::RejectReason>(i))] = rejections[i];
      }
    }
    fmt::print(out, "{}\n",
               DumpJson({{"type", "summary"},
                         {"records", stats.records},
                         {"rejected", std::move(rejected)},
                         {"torn_records", stats.torn_records},
                         {"unknown_records", stats.unknown_records},
                         {"damaged_regions", stats.damaged_regions}}));
  } else {
    fmt::print(out, "# jitscope trace v{} pid={} exe={} start_monotonic_ns={}\n", header.version,
               header.pid, Quote(header.exe_path), header.start_monotonic_ns);
    while (const auto record = stream->Next()) {
      WriteText(*record, out);
      CountRejection(*record, rejections);
    }
    fmt::print(out, "# {} records", stats.records);
    for (uint32_t i = 1; i <= trace::kMaxRejectReason; ++i) {
      if (rejections[i] != 0) {
        fmt::print(out, ", rejected {}={}",
                   trace::RejectReasonName(static_cast<trace::RejectReason>(i)), rejections[i]);
      }
    }
    if (stats.torn_records != 0)
      fmt::print(out, ", {} torn (process died mid-write)", stats.torn_records);
    if (stats.unknown_records != 0)
      fmt::print(out, ", {} of unknown type skipped", stats.unknown_records);
    fmt::print(out, "\n");
  }
  std::fflush(out);
  if (!stream->damage().ok()) {
    fmt::print(err, "jitscope dump: error: {}\n", stream->damage().message());
    return 1;
  }
  return 0;
}

}  // namespace jitscope::cli
