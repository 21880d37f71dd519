// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The unwind tables a process registered with the in-process unwinder: what LLVM (MCJIT, ORC's
// RuntimeDyld), Wasmtime and other engines hand to libgcc's __register_frame for the code they
// generate, captured by the preload library `jitscope record --registered-frames` puts into the
// command (preload/frame_registration_shim.cc). One file per process, written into
// JITSCOPE_OUTPUT_DIR as frames-<pid>.jsf (frames-<pid>.<n>.jsf when that name is taken).
// Format, version 1, little-endian (docs/trace-format.md, "Registered unwind tables"; the layout
// record_file.h shares with captured-<pid>.jsr):
//
//   offset 0   char[8]  magic "JSFRAMES"
//          8   u32      version (kRegisteredFramesVersion)
//         12   u32      header size in bytes (24; a reader skips what it does not know)
//         16   u32      pid
//         20   u32      zero
//         24   records, each 8-aligned:
//                u32  kind: 1 registered, 2 deregistered
//                u32  size of the .eh_frame bytes that follow (0 for a deregistration)
//                u64  time, CLOCK_MONOTONIC nanoseconds (the clock of samples and JIT files)
//                u64  the address __register_frame / __deregister_frame was given
//                     size bytes: the .eh_frame from that address through its zero terminator,
//                     as it was in memory (its pointers are relative to that address)
//                     zero padding to a multiple of 8
//
// Each record is one write() of the process, so a file cut short (the process was killed) ends
// in a torn record, which the reader counts and stops at.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/formats/eh_frame_ranges.h"

namespace jitscope::formats {

inline constexpr char kRegisteredFramesMagic[8] = {'J', 'S', 'F', 'R', 'A', 'M', 'E', 'S'};
inline constexpr uint32_t kRegisteredFramesVersion = 1;
inline constexpr uint32_t kFramesRegistered = 1;
inline constexpr uint32_t kFramesDeregistered = 2;
// The largest .eh_frame a registration keeps: LLVM registers one per object it loads, a few
// kilobytes; a section that runs on further is not an .eh_frame.
inline constexpr uint64_t kMaxRegisteredEhFrame = 64ull << 20;

// The file's header, for a process (registered_frames_writer.cc).
std::string EncodeRegisteredFramesHeader(uint32_t pid);
// One record, padded.
std::string EncodeFrameRecord(uint32_t kind, uint64_t time_ns, uint64_t address,
                              std::span<const uint8_t> eh_frame);

// A registration and how long it lasted.
struct FrameRegistration {
  uint64_t address = 0;
  std::span<const uint8_t> eh_frame;  // points into the bytes the file was parsed from
  std::vector<CodeRange> ranges;      // the code its FDEs describe (eh_frame_ranges.h)
  uint64_t registered_ns = 0;
  uint64_t deregistered_ns = std::numeric_limits<uint64_t>::max();  // max: never
};

struct ParsedRegisteredFrames {
  uint32_t pid = 0;
  std::vector<FrameRegistration> registrations;  // in the order of registration
  // Deregistrations of an address with no registration live: the process registered it before
  // the capture began, or it is not a registration's address.
  uint64_t unmatched_deregistrations = 0;
  base::Status error;  // where a record did not parse (a torn last record included)
};

// Fails when `bytes` has no header of this format; a damaged record ends the parse with `error`
// and the records before it kept.
base::StatusOr<ParsedRegisteredFrames> ParseRegisteredFrames(std::span<const uint8_t> bytes,
                                                             std::string_view file_name);

bool LooksLikeRegisteredFrames(std::span<const uint8_t> bytes);

}  // namespace jitscope::formats
