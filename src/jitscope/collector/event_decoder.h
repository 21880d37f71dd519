// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Turns an (event type, payload) pair from iJIT_NotifyEvent into a trace::Event, validating it
// against the API's rules (Intel's guide, "Usage Tips", and Intel's reference): a NULL name,
// a NULL address or a zero size mean the event "is not accepted"; method ids must not be 0;
// an inline event needs its parent's id. Ids between 1 and 998 are accepted: Intel's current
// stub hands them out and oneDNN uses them.
//
// Only the fields each event is documented to carry are read: for METHOD_LOAD_FINISHED the first
// nine (so callers built with the 80-byte legacy struct work), for UNLOAD_START only the leading
// method id (LLVM passes a bare unsigned int there). The returned views point into the caller's
// memory and are valid only during the call.
#pragma once

#include <cstdint>

#include "jitscope/trace/event.h"

namespace jitscope::collector {

// Decodes into `out`; returns why the event is refused, or RejectReason::kNone when it is
// accepted (then `out` holds it; otherwise `out` is unspecified). A plain enum rather than an
// optional: the optional's byte-sized flag cost a store-forwarding stall per event.
trace::RejectReason DecodeEvent(uint32_t event_type, const void* payload, trace::Event& out);

}  // namespace jitscope::collector
