// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Converts between an Event and its bytes in a trace record (layouts in format.h). Encoding
// runs inside the profiled process on every event, so it only computes sizes and copies;
// decoding runs on hostile files, so it checks every size against the bytes it was given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "jitscope/base/status.h"
#include "jitscope/trace/event.h"

namespace jitscope::trace {

// The whole record size (header included, 8-byte aligned), or 0 if it would exceed the
// format's 32-bit record size.
size_t EncodedRecordSize(const Event& event);

// Writes the record body (everything after the RecordHeader) for `event` into `out`, which has
// EncodedRecordSize(event) - sizeof(RecordHeader) bytes. Returns the header to publish, which
// carries `flags` (kRecordFlag*).
RecordHeader EncodeRecordBody(const Event& event, uint64_t timestamp, uint8_t* out,
                              uint16_t flags = 0);

// Decodes one record body. `body` holds the bytes after the header (padding included) and must
// be 8-byte aligned. The returned views point into `body`.
base::StatusOr<Record> DecodeRecordBody(RecordType type, std::span<const uint8_t> body);

}  // namespace jitscope::trace
