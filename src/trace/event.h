// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The event model shared by every stage: what a JIT engine reported, as plain views. The
// collector builds these from the caller's structs (pointing into the caller's memory for the
// duration of the call) and the trace reader builds them pointing into the mapped file, so
// neither side copies strings or line tables just to pass them on.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <variant>

#include "jitscope/trace/format.h"

namespace jitscope::trace {

// iJVM_EVENT_TYPE_* values (../shared/reference/intel-jit-api.md §1.1). Repeated here rather
// than including jitprofiling.h so the tool side does not depend on the public C header.
enum ApiEvent : uint32_t {
  kEventShutdown = 2,
  kEventMethodLoadFinished = 13,
  kEventMethodUnloadStart = 14,
  kEventMethodUpdate = 15,
  kEventMethodInlineLoadFinished = 16,
  kEventMethodUpdateV2 = 17,
  kEventMethodLoadFinishedV2 = 21,
  kEventMethodLoadFinishedV3 = 22,
};

// Why the collector refused an event. Values are stored in the trace: append only.
enum class RejectReason : uint32_t {
  kNone = 0,                // not rejected (never stored)
  kNullPayload = 1,         // an event that needs a payload got NULL
  kNullName = 2,            // method_name is NULL
  kNullAddress = 3,         // method_load_address is NULL ("not accepted")
  kZeroSize = 4,            // method_size is 0 ("not accepted")
  kZeroMethodId = 5,        // method_id is 0
  kZeroParentId = 6,        // inline event with parent_method_id 0
  kNullLineTable = 7,       // line_number_table NULL with a non-zero line_number_size
  kInlineOverlap = 8,       // an inline region overlaps a sibling of the same parent
  kUnknownEvent = 9,        // event type not defined by the API
  kTooLarge = 10,           // the record would not fit the trace's 32-bit record size
  kWriteFailed = 11,        // the trace could not be extended (disk full, I/O error)
  kMissingDataFormat = 12,  // UPDATE_V2 of a DATA segment without data_format
};
inline constexpr uint32_t kMaxRejectReason = 12;

const char* RejectReasonName(RejectReason reason);
// The iJVM_EVENT_TYPE_* name without the prefix ("METHOD_LOAD_FINISHED_V2"), or nullptr.
const char* ApiEventName(uint32_t api_event);

// METHOD_LOAD_FINISHED(_V2/_V3), METHOD_INLINE_LOAD_FINISHED and METHOD_UPDATE.
struct CodeEvent {
  uint32_t api_event = 0;
  uint32_t method_id = 0;
  uint32_t parent_method_id = 0;
  uint64_t address = 0;
  uint32_t size = 0;
  uint32_t class_id = 0;
  uint32_t arch = 0;
  std::optional<std::string_view> name;
  std::optional<std::string_view> class_file;
  std::optional<std::string_view> source_file;
  std::optional<std::string_view> module;
  std::span<const LineEntry> lines;
};

// METHOD_UPDATE_V2.
struct RangeUpdateEvent {
  uint64_t address = 0;
  uint32_t size = 0;
  uint32_t segment_type = 0;
  std::optional<std::string_view> data_format;
};

struct UnloadEvent {
  uint32_t method_id = 0;
};

struct ShutdownEvent {};

struct RejectedEvent {
  uint32_t api_event = 0;
  RejectReason reason = RejectReason::kUnknownEvent;
};

using Event = std::variant<CodeEvent, RangeUpdateEvent, UnloadEvent, ShutdownEvent, RejectedEvent>;

// One record of a trace: an event with when and on which thread it arrived.
struct Record {
  uint64_t timestamp = 0;
  uint32_t tid = 0;
  Event event;
};

}  // namespace jitscope::trace
