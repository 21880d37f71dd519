// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/event.h"

namespace jitscope::trace {

const char* RejectReasonName(RejectReason reason) {
  switch (reason) {
    case RejectReason::kNone:
      return "none";
    case RejectReason::kNullPayload:
      return "null_payload";
    case RejectReason::kNullName:
      return "null_name";
    case RejectReason::kNullAddress:
      return "null_address";
    case RejectReason::kZeroSize:
      return "zero_size";
    case RejectReason::kZeroMethodId:
      return "zero_method_id";
    case RejectReason::kZeroParentId:
      return "zero_parent_id";
    case RejectReason::kNullLineTable:
      return "null_line_table";
    case RejectReason::kInlineOverlap:
      return "inline_overlap";
    case RejectReason::kUnknownEvent:
      return "unknown_event";
    case RejectReason::kTooLarge:
      return "too_large";
    case RejectReason::kWriteFailed:
      return "write_failed";
    case RejectReason::kMissingDataFormat:
      return "missing_data_format";
    case RejectReason::kInvalidHandle:
      return "invalid_handle";
    case RejectReason::kUnknownCode:
      return "unknown_code";
    case RejectReason::kUnknownAddress:
      return "unknown_address";
    case RejectReason::kNullFileName:
      return "null_file_name";
    case RejectReason::kNullDomain:
      return "null_domain";
    case RejectReason::kNullHandle:
      return "null_handle";
    case RejectReason::kTooManyStrings:
      return "too_many_strings";
  }
  return "unknown_reason";
}

const char* ApiEventName(uint32_t api_event) {
  switch (api_event) {
    case kEventShutdown:
      return "SHUTDOWN";
    case kEventMethodLoadFinished:
      return "METHOD_LOAD_FINISHED";
    case kEventMethodUnloadStart:
      return "METHOD_UNLOAD_START";
    case kEventMethodUpdate:
      return "METHOD_UPDATE";
    case kEventMethodInlineLoadFinished:
      return "METHOD_INLINE_LOAD_FINISHED";
    case kEventMethodUpdateV2:
      return "METHOD_UPDATE_V2";
    case kEventMethodLoadFinishedV2:
      return "METHOD_LOAD_FINISHED_V2";
    case kEventMethodLoadFinishedV3:
      return "METHOD_LOAD_FINISHED_V3";
    case kCallOpOpenAgent:
      return "op_open_agent";
    case kCallOpCloseAgent:
      return "op_close_agent";
    case kCallOpWriteNativeCode:
      return "op_write_native_code";
    case kCallOpWriteDebugLineInfo:
      return "op_write_debug_line_info";
    case kCallOpUnloadNativeCode:
      return "op_unload_native_code";
    case kCallIttDomainCreate:
      return "__itt_domain_create";
    case kCallIttStringHandleCreate:
      return "__itt_string_handle_create";
    case kCallIttThreadSetName:
      return "__itt_thread_set_name";
    case kCallIttTaskBegin:
      return "__itt_task_begin";
    case kCallIttTaskBeginFn:
      return "__itt_task_begin_fn";
    case kCallIttTaskEnd:
      return "__itt_task_end";
    case kCallIttTaskBeginOverlapped:
      return "__itt_task_begin_overlapped";
    case kCallIttTaskEndOverlapped:
      return "__itt_task_end_overlapped";
    case kCallIttRegionBegin:
      return "__itt_region_begin";
    case kCallIttRegionEnd:
      return "__itt_region_end";
    case kCallIttFrameBegin:
      return "__itt_frame_begin_v3";
    case kCallIttFrameEnd:
      return "__itt_frame_end_v3";
    case kCallIttFrameSubmit:
      return "__itt_frame_submit_v3";
    case kCallIttTaskGroup:
      return "__itt_task_group";
    case kCallIttMarker:
      return "__itt_marker";
    case kCallIttCounterCreate:
      return "__itt_counter_create";
    case kCallIttCounterChange:
      return "__itt_counter_inc";
    case kCallIttCounterSetValue:
      return "__itt_counter_set_value";
  }
  return nullptr;
}

bool IsOprofileCall(uint32_t api_event) {
  return api_event >= kCallOpOpenAgent && api_event <= kCallOpUnloadNativeCode;
}

bool IsIttCall(uint32_t api_event) {
  return api_event >= kCallIttDomainCreate && api_event <= kCallIttCounterSetValue;
}

bool IsIttEvent(const Event& event) {
  // The ITT API's events end the variant (event.h).
  static const size_t first = Event(IttStringEvent{}).index();
  return event.index() >= first;
}

const char* IttKindName(IttKind kind) {
  switch (kind) {
    case IttKind::kTask:
      return "task";
    case IttKind::kOverlappedTask:
      return "overlapped_task";
    case IttKind::kRegion:
      return "region";
    case IttKind::kFrame:
      return "frame";
    case IttKind::kTaskGroup:
      return "task_group";
  }
  return "unknown";
}

namespace {

uint32_t BeginCall(const IttBeginEvent& e) {
  switch (e.kind) {
    case IttKind::kTask:
      return e.function != 0 ? kCallIttTaskBeginFn : kCallIttTaskBegin;
    case IttKind::kOverlappedTask:
      return kCallIttTaskBeginOverlapped;
    case IttKind::kRegion:
      return kCallIttRegionBegin;
    case IttKind::kFrame:
      return kCallIttFrameBegin;
    case IttKind::kTaskGroup:
      return kCallIttTaskGroup;
  }
  return kCallIttTaskBegin;
}

uint32_t EndCall(const IttEndEvent& e) {
  switch (e.kind) {
    case IttKind::kOverlappedTask:
      return kCallIttTaskEndOverlapped;
    case IttKind::kRegion:
      return kCallIttRegionEnd;
    case IttKind::kFrame:
      return kCallIttFrameEnd;
    case IttKind::kTask:
    case IttKind::kTaskGroup:
      break;
  }
  return kCallIttTaskEnd;
}

}  // namespace

uint32_t CallOf(const Event& event) {
  struct Visitor {
    uint32_t operator()(const CodeEvent& e) const { return e.api_event; }
    uint32_t operator()(const RangeUpdateEvent&) const { return kEventMethodUpdateV2; }
    uint32_t operator()(const UnloadEvent&) const { return kEventMethodUnloadStart; }
    uint32_t operator()(const ShutdownEvent&) const { return kEventShutdown; }
    uint32_t operator()(const RejectedEvent& e) const { return e.api_event; }
    uint32_t operator()(const OprofileOpenEvent&) const { return kCallOpOpenAgent; }
    uint32_t operator()(const OprofileCloseEvent&) const { return kCallOpCloseAgent; }
    uint32_t operator()(const OprofileCodeLoadEvent&) const { return kCallOpWriteNativeCode; }
    uint32_t operator()(const OprofileDebugLinesEvent&) const { return kCallOpWriteDebugLineInfo; }
    uint32_t operator()(const OprofileUnloadEvent&) const { return kCallOpUnloadNativeCode; }
    // Written by the trace sink beside a code record, never reported by a call of its own (no
    // API numbers an event 0).
    uint32_t operator()(const CodeBytesEvent&) const { return 0; }
    // Written by the trace sink as it moves to the next file of a chain.
    uint32_t operator()(const ChainLinkEvent&) const { return 0; }
    uint32_t operator()(const SnapshotEndEvent&) const { return 0; }
    // A string record is written by the call that named it first: a domain's, a handle's or a
    // counter's creation.
    uint32_t operator()(const IttStringEvent&) const { return kCallIttStringHandleCreate; }
    uint32_t operator()(const IttThreadNameEvent&) const { return kCallIttThreadSetName; }
    uint32_t operator()(const IttBeginEvent& e) const { return BeginCall(e); }
    uint32_t operator()(const IttEndEvent& e) const { return EndCall(e); }
    uint32_t operator()(const IttMarkerEvent&) const { return kCallIttMarker; }
    uint32_t operator()(const IttCounterEvent&) const { return kCallIttCounterCreate; }
    uint32_t operator()(const IttCounterValueEvent&) const { return kCallIttCounterChange; }
  };
  return std::visit(Visitor{}, event);
}

}  // namespace jitscope::trace
