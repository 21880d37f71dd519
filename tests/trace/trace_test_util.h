// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test helpers: a one-line description of a record that names every field, so tests compare
// whole records exactly.
#pragma once

#include <sstream>
#include <string>
#include <variant>

#include "jitscope/trace/event.h"

namespace jitscope::trace {

inline std::string DescribeText(const std::optional<std::string_view>& s) {
  return s ? "\"" + std::string(*s) + "\"" : "null";
}

inline std::string Describe(const Record& record) {
  std::ostringstream out;
  if (record.snapshot) out << "snapshot ";
  out << record.timestamp << " tid=" << record.tid << " ";
  if (const auto* e = std::get_if<CodeEvent>(&record.event)) {
    out << "code event=" << e->api_event << " id=" << e->method_id
        << " parent=" << e->parent_method_id << " addr=" << e->address << " size=" << e->size
        << " class_id=" << e->class_id << " arch=" << e->arch << " name=" << DescribeText(e->name)
        << " class=" << DescribeText(e->class_file) << " source=" << DescribeText(e->source_file)
        << " module=" << DescribeText(e->module) << " lines=";
    for (const auto& l : e->lines) out << l.offset << ":" << l.line << ",";
  } else if (const auto* u = std::get_if<RangeUpdateEvent>(&record.event)) {
    out << "range_update addr=" << u->address << " size=" << u->size << " type=" << u->segment_type
        << " format=" << DescribeText(u->data_format);
  } else if (const auto* u = std::get_if<UnloadEvent>(&record.event)) {
    out << "unload id=" << u->method_id;
  } else if (std::holds_alternative<ShutdownEvent>(record.event)) {
    out << "shutdown";
  } else if (const auto* r = std::get_if<RejectedEvent>(&record.event)) {
    out << "rejected event=" << r->api_event << " reason=" << RejectReasonName(r->reason);
  } else if (const auto* c = std::get_if<CodeBytesEvent>(&record.event)) {
    out << "code_bytes addr=" << c->address << " size=" << c->size << " bytes=";
    for (const uint8_t byte : c->bytes) out << static_cast<unsigned>(byte) << ",";
  } else if (const auto* l = std::get_if<ChainLinkEvent>(&record.event)) {
    out << "chain_link sequence=" << l->sequence << " previous=\"" << l->previous_name
        << "\" previous_size=" << l->previous_size;
  } else if (const auto* e = std::get_if<SnapshotEndEvent>(&record.event)) {
    out << "snapshot_end records=" << e->records;
  } else if (const auto* e = std::get_if<IttStringEvent>(&record.event)) {
    out << "itt_string " << e->string << "=\"" << e->text << "\"";
  } else if (const auto* e = std::get_if<IttThreadNameEvent>(&record.event)) {
    out << "itt_thread_name thread=" << e->tid << " name=\"" << e->name << "\"";
  } else if (const auto* e = std::get_if<IttBeginEvent>(&record.event)) {
    out << "itt_begin kind=" << static_cast<unsigned>(e->kind) << " domain=" << e->domain
        << " name=" << e->name << " id=" << e->id.d1 << ":" << e->id.d2
        << " parent=" << e->parent.d1 << ":" << e->parent.d2 << " fn=" << e->function;
  } else if (const auto* e = std::get_if<IttEndEvent>(&record.event)) {
    out << "itt_end kind=" << static_cast<unsigned>(e->kind) << " domain=" << e->domain
        << " id=" << e->id.d1 << ":" << e->id.d2;
  } else if (const auto* e = std::get_if<IttMarkerEvent>(&record.event)) {
    out << "itt_marker domain=" << e->domain << " name=" << e->name << " scope=" << e->scope
        << " id=" << e->id.d1 << ":" << e->id.d2;
  } else if (const auto* e = std::get_if<IttCounterEvent>(&record.event)) {
    out << "itt_counter " << e->counter << " name=" << e->name << " domain=" << e->domain
        << " type=" << e->type;
  } else if (const auto* e = std::get_if<IttCounterValueEvent>(&record.event)) {
    out << "itt_counter_value " << e->counter << "=" << e->value;
  } else {
    out << "(not described)";
  }
  return out.str();
}

}  // namespace jitscope::trace
