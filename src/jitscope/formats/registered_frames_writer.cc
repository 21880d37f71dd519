// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The writing half of formats/registered_frames.h, apart from the reader: libjitscope-frames.so
// links it (library jitscope_eh_frame), and nothing else of jitscope.
#include <string>

#include "jitscope/formats/record_file.h"
#include "jitscope/formats/registered_frames.h"

namespace jitscope::formats {

std::string EncodeRegisteredFramesHeader(uint32_t pid) {
  return EncodeRecordFileHeader(kRegisteredFramesMagic, kRegisteredFramesVersion, pid);
}

std::string EncodeFrameRecord(uint32_t kind, uint64_t time_ns, uint64_t address,
                              std::span<const uint8_t> eh_frame) {
  return EncodeRecordFileRecord(kind, time_ns, address, eh_frame);
}

}  // namespace jitscope::formats
