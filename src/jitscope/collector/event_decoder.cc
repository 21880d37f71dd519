// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/event_decoder.h"

#include <cstring>

#include "jitprofiling.h"

namespace jitscope::collector {
namespace {

using trace::CodeEvent;
using trace::RejectReason;

static_assert(sizeof(LineNumberInfo) == sizeof(trace::LineEntry) &&
                  offsetof(LineNumberInfo, Offset) == offsetof(trace::LineEntry, offset) &&
                  offsetof(LineNumberInfo, LineNumber) == offsetof(trace::LineEntry, line),
              "the trace stores line tables in LineNumberInfo's layout");

std::optional<std::string_view> Text(const char* s) {
  if (s == nullptr) return std::nullopt;
  return std::string_view(s);
}

// An enum field holds whatever the caller stored (C lets any int through). Loading a value that
// is not an enumerator as the C++ enum type is undefined behaviour, so the bits are read instead.
template <typename Enum>
uint32_t EnumBits(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(uint32_t));
  uint32_t bits;
  std::memcpy(&bits, &field, sizeof(bits));
  return bits;
}

// The fields every code-carrying struct has, gathered before validation.
template <typename Struct>
CodeEvent& CommonFields(uint32_t event_type, const Struct& s, trace::Event& out) {
  // Built in place: the event is copied nowhere on the way to the sinks.
  CodeEvent& code = out.emplace<CodeEvent>();
  code.api_event = event_type;
  code.method_id = s.method_id;
  code.address = reinterpret_cast<uintptr_t>(s.method_load_address);
  code.size = s.method_size;
  code.name = Text(s.method_name);
  code.class_file = Text(s.class_file_name);
  code.source_file = Text(s.source_file_name);
  if (s.line_number_table != nullptr) {
    code.lines = {reinterpret_cast<const trace::LineEntry*>(s.line_number_table),
                  s.line_number_size};
  }
  return code;
}

// The rules shared by every code event. `s` is the caller's struct, checked for the line table
// (a NULL table with entries is an error, a table with zero entries is just empty).
template <typename Struct>
RejectReason Validate(const CodeEvent& code, const Struct& s, bool name_required) {
  if (code.method_id == 0) return RejectReason::kZeroMethodId;
  if (name_required && !code.name) return RejectReason::kNullName;
  if (code.address == 0) return RejectReason::kNullAddress;
  if (code.size == 0) return RejectReason::kZeroSize;
  if (s.line_number_table == nullptr && s.line_number_size != 0) {
    return RejectReason::kNullLineTable;
  }
  return RejectReason::kNone;
}

// Copies the caller's struct out of `payload`. memcpy, not a cast, because nothing promises the
// caller's pointer is suitably aligned for our view of the struct.
template <typename Struct>
Struct Read(const void* payload) {
  Struct s;
  std::memcpy(&s, payload, sizeof(s));
  return s;
}

}  // namespace

RejectReason DecodeEvent(uint32_t event_type, const void* payload, trace::Event& out) {
  switch (event_type) {
    case iJVM_EVENT_TYPE_SHUTDOWN:
      out.emplace<trace::ShutdownEvent>();
      return RejectReason::kNone;
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED:
    case iJVM_EVENT_TYPE_METHOD_UPDATE: {
      if (payload == nullptr) return RejectReason::kNullPayload;
      // Reads the nine fields common to the current 64-byte and the legacy 80-byte layouts.
      const auto s = Read<iJIT_Method_Load>(payload);
      CodeEvent& code = CommonFields(event_type, s, out);
      code.class_id = s.class_id;
      // METHOD_UPDATE requires only id, address and size (001_*.txt).
      return Validate(code, s, event_type == iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED);
    }
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2: {
      if (payload == nullptr) return RejectReason::kNullPayload;
      const auto s = Read<iJIT_Method_Load_V2>(payload);
      CodeEvent& code = CommonFields(event_type, s, out);
      code.module = Text(s.module_name);
      return Validate(code, s, true);
    }
    case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3: {
      if (payload == nullptr) return RejectReason::kNullPayload;
      const auto s = Read<iJIT_Method_Load_V3>(payload);
      CodeEvent& code = CommonFields(event_type, s, out);
      code.module = Text(s.module_name);
      code.arch = EnumBits(s.module_arch);
      return Validate(code, s, true);
    }
    case iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED: {
      if (payload == nullptr) return RejectReason::kNullPayload;
      const auto s = Read<iJIT_Method_Inline_Load>(payload);
      CodeEvent& code = CommonFields(event_type, s, out);
      code.parent_method_id = s.parent_method_id;
      if (code.method_id != 0 && code.parent_method_id == 0) return RejectReason::kZeroParentId;
      return Validate(code, s, true);
    }
    case iJVM_EVENT_TYPE_METHOD_UPDATE_V2: {
      if (payload == nullptr) return RejectReason::kNullPayload;
      const auto s = Read<iJIT_Method_Update>(payload);
      auto& update = out.emplace<trace::RangeUpdateEvent>();
      update.address = reinterpret_cast<uintptr_t>(s.load_address);
      update.size = s.size;
      update.segment_type = EnumBits(s.type);
      update.data_format = Text(s.data_format);
      if (update.address == 0) return RejectReason::kNullAddress;
      if (update.size == 0) return RejectReason::kZeroSize;
      if (update.segment_type == iJIT_CT_DATA && !update.data_format)
        return RejectReason::kMissingDataFormat;
      return RejectReason::kNone;
    }
    case iJVM_EVENT_TYPE_METHOD_UNLOAD_START: {
      if (payload == nullptr) return RejectReason::kNullPayload;
      // Only the leading unsigned int is reliable (intel-jit-api.md §5: MCJIT passes a bare
      // unsigned int, ORC a uint64_t, others a whole iJIT_Method_Load).
      unsigned int method_id = 0;
      std::memcpy(&method_id, payload, sizeof(method_id));
      if (method_id == 0) return RejectReason::kZeroMethodId;
      out.emplace<trace::UnloadEvent>(trace::UnloadEvent{method_id});
      return RejectReason::kNone;
    }
    default:
      return RejectReason::kUnknownEvent;
  }
}

}  // namespace jitscope::collector
