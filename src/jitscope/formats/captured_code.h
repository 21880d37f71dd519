// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Code read from a running process: where samples landed in executable memory that no JIT file
// holds the bytes of (the code a perf map names, anonymous executable mappings), `jitscope record`
// reads that memory while the process runs (record/code_capture.h) and keeps each read here, so
// that rules are derived from it as from a jitdump's bytes. One file per process, in the session
// directory, as captured-<pid>.jsr. Format, version 1, little-endian (the layout record_file.h
// shares with frames-<pid>.jsf; docs/file-formats.md):
//
//   offset 0   char[8]  magic "JSMEMORY"
//          8   u32      version (kCapturedCodeVersion)
//         12   u32      header size in bytes (24; a reader skips what it does not know)
//         16   u32      pid (as record saw it: the pid of record's namespace)
//         20   u32      zero
//         24   records, each 8-aligned:
//                u32  kind: 1 code read
//                u32  size of the bytes that follow (at most kMaxCapturedRead)
//                u64  time of the read, CLOCK_MONOTONIC nanoseconds (the clock of samples)
//                u64  the address the bytes were read from
//                     size bytes: the memory [address, address + size) as the read found it
//                     zero padding to a multiple of 8
//
// A read is of the code at its time: code an engine replaced between a sample and the read is
// not the code the sample ran, which is why the walk checks every step it takes by such rules
// (a return address must follow a call the analysis of its caller's code found) and the reads
// are versioned by time (symbolize/code_history.h). Records are written whole by one write()
// each, so a recording killed meanwhile leaves at most a torn last record, which the reader
// counts and stops at.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/status.h"

namespace jitscope::formats {

inline constexpr char kCapturedCodeMagic[8] = {'J', 'S', 'M', 'E', 'M', 'O', 'R', 'Y'};
inline constexpr uint32_t kCapturedCodeVersion = 1;
inline constexpr uint32_t kCodeRead = 1;
// The largest read one record keeps: a mapping's window or a perf-map entry's function; a record
// claiming more is damage.
inline constexpr uint64_t kMaxCapturedRead = 64ull << 20;

// "captured-<pid>.jsr".
std::string CapturedCodeFileName(uint32_t pid);

// The file's header, for a process.
std::string EncodeCapturedCodeHeader(uint32_t pid);
// One read, padded.
std::string EncodeCodeRead(uint64_t time_ns, uint64_t address, std::span<const uint8_t> bytes);

struct CodeRead {
  uint64_t time_ns = 0;
  uint64_t address = 0;
  std::span<const uint8_t> bytes;  // points into the bytes the file was parsed from
};

struct ParsedCapturedCode {
  uint32_t pid = 0;
  std::vector<CodeRead> reads;  // in file order (record writes them in time order)
  base::Status error;           // where a record did not parse (a torn last record included)
};

// Fails when `bytes` has no header of this format; a damaged record ends the parse with `error`
// and the records before it kept.
base::StatusOr<ParsedCapturedCode> ParseCapturedCode(std::span<const uint8_t> bytes,
                                                     std::string_view file_name);

bool LooksLikeCapturedCode(std::span<const uint8_t> bytes);

}  // namespace jitscope::formats
