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

// iJVM_EVENT_TYPE_* values (Intel's jitprofiling.h). Repeated here rather
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

// The functions of OProfile's agent API (opagent.h, OProfile's guide), numbered in the same space
// as the iJVM_EVENT_TYPE_* values so a RejectedEvent can say which call was refused. Far above
// Intel's values ("OP" in the top bytes), so the two never collide.
enum OprofileCall : uint32_t {
  kCallOpOpenAgent = 0x4F500001,
  kCallOpCloseAgent = 0x4F500002,
  kCallOpWriteNativeCode = 0x4F500003,
  kCallOpWriteDebugLineInfo = 0x4F500004,
  kCallOpUnloadNativeCode = 0x4F500005,
};

// The calls of the ITT API (ittnotify.h) the collector records, numbered like OprofileCall ("IT"
// in the top bytes) so a RejectedEvent can say which was refused.
enum IttCall : uint32_t {
  kCallIttDomainCreate = 0x49540001,
  kCallIttStringHandleCreate = 0x49540002,
  kCallIttThreadSetName = 0x49540003,
  kCallIttTaskBegin = 0x49540004,
  kCallIttTaskBeginFn = 0x49540005,
  kCallIttTaskEnd = 0x49540006,
  kCallIttTaskBeginOverlapped = 0x49540007,
  kCallIttTaskEndOverlapped = 0x49540008,
  kCallIttRegionBegin = 0x49540009,
  kCallIttRegionEnd = 0x4954000A,
  kCallIttFrameBegin = 0x4954000B,
  kCallIttFrameEnd = 0x4954000C,
  kCallIttFrameSubmit = 0x4954000D,
  kCallIttTaskGroup = 0x4954000E,
  kCallIttMarker = 0x4954000F,
  kCallIttCounterCreate = 0x49540010,
  kCallIttCounterChange = 0x49540011,  // __itt_counter_inc/dec(_delta)(_v3)
  kCallIttCounterSetValue = 0x49540012,
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
  kInvalidHandle = 13,      // OProfile: a NULL, unknown or already closed op_agent_t
  kUnknownCode = 14,        // OProfile: debug lines for code that is not loaded (or was unloaded)
  kUnknownAddress = 15,     // OProfile: unload of an address where no code is loaded
  kNullFileName = 16,       // OProfile: a debug_line_info entry with a NULL filename
  kNullDomain = 17,         // ITT: a NULL domain
  kNullHandle = 18,         // ITT: a NULL counter, or a counter call with a NULL name handle
  kTooManyStrings = 19,     // ITT: the process's distinct names reached the collector's limit
};
inline constexpr uint32_t kMaxRejectReason = 19;

const char* RejectReasonName(RejectReason reason);
// The iJVM_EVENT_TYPE_* name without the prefix ("METHOD_LOAD_FINISHED_V2"), the OProfile
// function name for an OprofileCall ("op_write_native_code"), the ITT function's for an IttCall
// ("__itt_task_begin"), or nullptr.
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

// ---- OProfile's agent API (opagent.h; OProfile's guide and libopagent) ----
//
// These events keep the API's own model rather than being squeezed into Intel's: code is named by
// its address (no method ids), line tables carry absolute addresses and a file per entry, and
// debug lines arrive *after* the code they describe. `agent` numbers the op_open_agent handles
// of one process from 1 in opening order, so the records of two engines can be told apart.

// op_open_agent returned a new handle.
struct OprofileOpenEvent {
  uint32_t agent = 0;
};

// op_close_agent on a valid handle. The handle's code stays loaded: OProfile ends a symbol's
// life only with an unload (opjitconv ignores CLOSE), and so does jitscope.
struct OprofileCloseEvent {
  uint32_t agent = 0;
};

// op_write_native_code: `size` bytes of code run at `address` from now until an unload of
// `address` (or a later load over it).
struct OprofileCodeLoadEvent {
  uint32_t agent = 0;
  uint64_t address = 0;           // the `vma` argument
  uint64_t code_address = 0;      // the `code` argument: where the bytes were read; 0 for NULL
  uint32_t size = 0;              // the `code_size` argument
  std::string_view name;          // the `symbol_name` argument (never NULL once accepted)
  std::span<const uint8_t> code;  // `size` bytes at code_address; empty when `code` was NULL
};

// The distinct file names of one line table, each stored once: name i is the bytes from
// ends[i-1] (0 for i = 0) to ends[i] of `names`. Also the on-disk layout.
struct FileTable {
  std::span<const uint32_t> ends;
  std::string_view names;

  size_t size() const { return ends.size(); }
  // Precondition: i < size(); the reader has checked that `ends` is ascending and in bounds.
  std::string_view operator[](size_t i) const {
    const uint32_t begin = i == 0 ? 0 : ends[i - 1];
    return names.substr(begin, ends[i] - begin);
  }
};

// op_write_debug_line_info for code loaded before. The call names the code by the `code` pointer
// it passed to op_write_native_code; the collector resolves it to the live load, whose address
// and size are recorded here so a reader needs no other record to place the lines.
struct OprofileDebugLinesEvent {
  uint32_t agent = 0;
  uint64_t code_address = 0;                 // the `code` argument
  uint64_t address = 0;                      // `vma` of the load it belongs to
  uint32_t size = 0;                         // `code_size` of that load
  std::span<const OprofileLineEntry> lines;  // in the caller's order (format.h)
  FileTable files;
};

// op_unload_native_code of live code: the load at `address` (of `size` bytes) ends now; a later
// load at the same address is a new, separate symbol.
struct OprofileUnloadEvent {
  uint32_t agent = 0;
  uint64_t address = 0;
  uint32_t size = 0;
};

// The machine code of the region the previous code or range-update record of the same thread
// described, copied when it was reported (the trace sink writes it; no API call carries it).
// The bytes are what the code was then: an engine may patch it later.
struct CodeBytesEvent {
  uint64_t address = 0;
  uint32_t size = 0;
  std::span<const uint8_t> bytes;  // `size` bytes, or empty when the memory was not readable
};

// ---- Chains (JITSCOPE_MAX_SIZE; docs/trace-format.md "Chains") ----

// The first record of a later file of a chain: the file it continues, in the same directory.
struct ChainLinkEvent {
  uint32_t sequence = 0;       // 1, 2, ... along the chain
  uint64_t previous_size = 0;  // the previous file's size when this one was started
  std::string_view previous_name;
};

// The snapshot of live code that a chain's later file starts with is complete.
struct SnapshotEndEvent {
  uint64_t records = 0;
};

// ---- The ITT API (ittnotify.h; docs/trace-format.md "The ITT API") ----
//
// Recorded as called, on the calling thread. Domains, task names and counter names are interned
// as numbered strings; the records that use them carry the numbers. What a call sequence means
// (which end closes which begin) is the reader's to decide (report/timeline.h), so a hostile
// sequence is recorded faithfully and given one meaning there.

// A domain's, a string handle's or a counter's name, numbered.
struct IttStringEvent {
  uint32_t string = 0;
  std::string_view text;
};

// __itt_thread_set_name: the calling thread's name from now on.
struct IttThreadNameEvent {
  uint32_t tid = 0;
  std::string_view name;
};

struct IttBeginEvent {
  IttKind kind = IttKind::kTask;
  uint32_t domain = 0;
  uint32_t name = 0;  // 0: no name handle (or a task_begin_fn, named by `function`)
  IttId id{};
  IttId parent{};
  uint64_t function = 0;
};

struct IttEndEvent {
  IttKind kind = IttKind::kTask;
  uint32_t domain = 0;
  IttId id{};
};

struct IttMarkerEvent {
  uint32_t domain = 0;
  uint32_t name = 0;
  uint32_t scope = 0;
  IttId id{};
};

struct IttCounterEvent {
  uint32_t counter = 0;
  uint32_t name = 0;
  uint32_t domain = 0;
  uint32_t type = 0;  // __itt_metadata_type (format.h)
};

struct IttCounterValueEvent {
  uint32_t counter = 0;
  uint64_t value = 0;  // as IttCounterValueRecord::value
};

using Event =
    std::variant<CodeEvent, RangeUpdateEvent, UnloadEvent, ShutdownEvent, RejectedEvent,
                 OprofileOpenEvent, OprofileCloseEvent, OprofileCodeLoadEvent,
                 OprofileDebugLinesEvent, OprofileUnloadEvent, CodeBytesEvent, ChainLinkEvent,
                 SnapshotEndEvent, IttStringEvent, IttThreadNameEvent, IttBeginEvent, IttEndEvent,
                 IttMarkerEvent, IttCounterEvent, IttCounterValueEvent>;

// The iJVM_EVENT_TYPE_* value (or OprofileCall, IttCall) an event was reported with.
uint32_t CallOf(const Event& event);
bool IsOprofileCall(uint32_t api_event);
bool IsIttCall(uint32_t api_event);
// True for the records of the ITT API.
bool IsIttEvent(const Event& event);
// What an ITT begin or end is, as one word: "task", "overlapped_task", "region", "frame",
// "task_group" ("unknown" for a value outside the enum).
const char* IttKindName(IttKind kind);

// One record of a trace: an event with when and on which thread it arrived.
struct Record {
  uint64_t timestamp = 0;
  uint32_t tid = 0;
  Event event;
  // Repeats a record of an earlier file of its chain (kRecordFlagSnapshot).
  bool snapshot = false;
};

}  // namespace jitscope::trace
