// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The layout jitscope's own files of one process's records share: the unwind tables it
// registered (registered_frames.h, frames-<pid>.jsf) and the code record read from it
// (captured_code.h, captured-<pid>.jsr). Little-endian:
//
//   offset 0   char[8]  magic, the file's kind
//          8   u32      version
//         12   u32      header size in bytes (24; a reader skips what it does not know)
//         16   u32      pid
//         20   u32      zero
//         24   records, each 8-aligned: u32 kind, u32 size of the bytes that follow, u64 time
//              (CLOCK_MONOTONIC nanoseconds), u64 address, the bytes, zero padding to 8
//
// Header-only and standing on nothing but the standard library for its writing half:
// libjitscope-frames.so writes frames-<pid>.jsf with it inside other people's processes.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace jitscope::formats {

inline constexpr uint32_t kRecordFileHeaderSize = 24;
inline constexpr uint32_t kRecordFileRecordHeaderSize = 24;

// A record's bytes are padded to a multiple of this.
inline constexpr uint64_t RecordFilePadded(uint64_t size) { return (size + 7) & ~uint64_t{7}; }

namespace record_file {
template <typename T>
void Put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}
}  // namespace record_file

inline std::string EncodeRecordFileHeader(const char (&magic)[8], uint32_t version, uint32_t pid) {
  std::string out(magic, sizeof(magic));
  record_file::Put<uint32_t>(out, version);
  record_file::Put<uint32_t>(out, kRecordFileHeaderSize);
  record_file::Put<uint32_t>(out, pid);
  record_file::Put<uint32_t>(out, 0);
  return out;
}

inline std::string EncodeRecordFileRecord(uint32_t kind, uint64_t time_ns, uint64_t address,
                                          std::span<const uint8_t> bytes) {
  std::string out;
  out.reserve(kRecordFileRecordHeaderSize + RecordFilePadded(bytes.size()));
  record_file::Put<uint32_t>(out, kind);
  record_file::Put<uint32_t>(out, static_cast<uint32_t>(bytes.size()));
  record_file::Put<uint64_t>(out, time_ns);
  record_file::Put<uint64_t>(out, address);
  out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  out.resize(kRecordFileRecordHeaderSize + RecordFilePadded(bytes.size()), '\0');
  return out;
}

inline bool LooksLikeRecordFile(std::span<const uint8_t> bytes, const char (&magic)[8]) {
  return bytes.size() >= sizeof(magic) && std::memcmp(bytes.data(), magic, sizeof(magic)) == 0;
}

}  // namespace jitscope::formats
