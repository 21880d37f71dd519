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
  }
  return nullptr;
}

}  // namespace jitscope::trace
