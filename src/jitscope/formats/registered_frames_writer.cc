// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The writing half of formats/registered_frames.h, apart from the reader: libjitscope-frames.so
// links it (library jitscope_eh_frame), and nothing else of jitscope.
#include <string>
#include <string_view>

#include "jitscope/formats/registered_frames.h"

namespace jitscope::formats {

namespace {

template <typename T>
void Put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

std::string_view Text(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::string EncodeRegisteredFramesHeader(uint32_t pid) {
  std::string out(kRegisteredFramesMagic, sizeof(kRegisteredFramesMagic));
  Put<uint32_t>(out, kRegisteredFramesVersion);
  Put<uint32_t>(out, kRegisteredFramesHeaderSize);
  Put<uint32_t>(out, pid);
  Put<uint32_t>(out, 0);
  return out;
}

std::string EncodeFrameRecord(uint32_t kind, uint64_t time_ns, uint64_t address,
                              std::span<const uint8_t> eh_frame) {
  std::string out;
  out.reserve(kFrameRecordHeaderSize + RegisteredFramesPadded(eh_frame.size()));
  Put<uint32_t>(out, kind);
  Put<uint32_t>(out, static_cast<uint32_t>(eh_frame.size()));
  Put<uint64_t>(out, time_ns);
  Put<uint64_t>(out, address);
  out.append(Text(eh_frame));
  out.resize(kFrameRecordHeaderSize + RegisteredFramesPadded(eh_frame.size()), '\0');
  return out;
}

}  // namespace jitscope::formats
