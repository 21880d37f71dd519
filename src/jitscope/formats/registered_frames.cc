// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/registered_frames.h"

#include <cstring>
#include <string>

#include "jitscope/formats/record_file_reader.h"

namespace jitscope::formats {

bool LooksLikeRegisteredFrames(std::span<const uint8_t> bytes) {
  return LooksLikeRecordFile(bytes, kRegisteredFramesMagic);
}

base::StatusOr<ParsedRegisteredFrames> ParseRegisteredFrames(std::span<const uint8_t> bytes,
                                                             std::string_view file_name) {
  const std::string name(file_name);
  if (!LooksLikeRegisteredFrames(bytes)) {
    return base::Status::Error("%s: not a file of registered unwind tables", name.c_str());
  }
  ASSIGN_OR_RETURN(RecordFileReader reader,
                   RecordFileReader::Open(bytes, kRegisteredFramesVersion, name));
  ParsedRegisteredFrames parsed;
  parsed.pid = reader.pid();
  parsed.error = reader.ForEach([&](const RecordFileRecord& record) {
    const bool registered = record.kind == kFramesRegistered && !record.bytes.empty();
    const bool deregistered = record.kind == kFramesDeregistered && record.bytes.empty();
    if (!registered && !deregistered) {
      return base::Status::Error("%s: offset %llu: a record of kind %u and %zu bytes", name.c_str(),
                                 static_cast<unsigned long long>(record.offset), record.kind,
                                 record.bytes.size());
    }
    if (registered) {
      FrameRegistration& registration = parsed.registrations.emplace_back();
      registration.address = record.address;
      registration.eh_frame = record.bytes;
      registration.ranges = EhFrameRanges(registration.eh_frame, record.address);
      registration.registered_ns = record.time_ns;
      return base::Status::Ok();
    }
    // The latest registration of the address still live ends now.
    for (auto it = parsed.registrations.rbegin(); it != parsed.registrations.rend(); ++it) {
      if (it->address == record.address && it->deregistered_ns == UINT64_MAX) {
        it->deregistered_ns = record.time_ns;
        return base::Status::Ok();
      }
    }
    ++parsed.unmatched_deregistrations;
    return base::Status::Ok();
  });
  return parsed;
}

}  // namespace jitscope::formats
