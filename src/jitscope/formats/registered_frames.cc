// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/registered_frames.h"

#include <cstring>
#include <string>

#include "jitscope/formats/bounded_reader.h"

namespace jitscope::formats {

namespace {

uint64_t Padded(uint64_t size) { return RegisteredFramesPadded(size); }

}  // namespace

bool LooksLikeRegisteredFrames(std::span<const uint8_t> bytes) {
  return bytes.size() >= sizeof(kRegisteredFramesMagic) &&
         std::memcmp(bytes.data(), kRegisteredFramesMagic, sizeof(kRegisteredFramesMagic)) == 0;
}

base::StatusOr<ParsedRegisteredFrames> ParseRegisteredFrames(std::span<const uint8_t> bytes,
                                                             std::string_view file_name) {
  const std::string name(file_name);
  if (!LooksLikeRegisteredFrames(bytes)) {
    return base::Status::Error("%s: not a file of registered unwind tables", name.c_str());
  }
  const BoundedReader reader(bytes, /*swapped=*/false);
  const std::optional<uint32_t> version = reader.Int<uint32_t>(8);
  const std::optional<uint32_t> header_size = reader.Int<uint32_t>(12);
  const std::optional<uint32_t> pid = reader.Int<uint32_t>(16);
  if (!version || !header_size || !pid || *header_size < kRegisteredFramesHeaderSize ||
      !reader.Has(0, *header_size)) {
    return base::Status::Error("%s: the header is cut short", name.c_str());
  }
  if (*version != kRegisteredFramesVersion) {
    return base::Status::Error("%s: version %u, this jitscope reads version %u", name.c_str(),
                               *version, kRegisteredFramesVersion);
  }
  ParsedRegisteredFrames parsed;
  parsed.pid = *pid;
  uint64_t offset = Padded(*header_size);
  while (offset < bytes.size()) {
    const std::optional<uint32_t> kind = reader.Int<uint32_t>(offset);
    const std::optional<uint32_t> size = reader.Int<uint32_t>(offset + 4);
    const std::optional<uint64_t> time = reader.Int<uint64_t>(offset + 8);
    const std::optional<uint64_t> address = reader.Int<uint64_t>(offset + 16);
    const uint64_t data = offset + kFrameRecordHeaderSize;
    if (!kind || !size || !time || !address || !reader.Has(data, Padded(*size))) {
      parsed.error = base::Status::Error("%s: offset %llu: a record cut short", name.c_str(),
                                         static_cast<unsigned long long>(offset));
      break;
    }
    const bool registered = *kind == kFramesRegistered && *size > 0;
    const bool deregistered = *kind == kFramesDeregistered && *size == 0;
    if (!registered && !deregistered) {
      parsed.error =
          base::Status::Error("%s: offset %llu: a record of kind %u and %u bytes", name.c_str(),
                              static_cast<unsigned long long>(offset), *kind, *size);
      break;
    }
    if (registered) {
      FrameRegistration& registration = parsed.registrations.emplace_back();
      registration.address = *address;
      registration.eh_frame = *reader.Span(data, *size);
      registration.ranges = EhFrameRanges(registration.eh_frame, *address);
      registration.registered_ns = *time;
    } else {
      // The latest registration of the address still live ends now.
      bool matched = false;
      for (auto it = parsed.registrations.rbegin(); it != parsed.registrations.rend(); ++it) {
        if (it->address == *address && it->deregistered_ns == UINT64_MAX) {
          it->deregistered_ns = *time;
          matched = true;
          break;
        }
      }
      if (!matched) ++parsed.unmatched_deregistrations;
    }
    offset = data + Padded(*size);
  }
  return parsed;
}

}  // namespace jitscope::formats
