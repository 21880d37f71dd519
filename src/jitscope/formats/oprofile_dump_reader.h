// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads OProfile's JIT dump (/tmp/.oprofile/jitdump/<pid>.dump; layout in
// oprofile_dump_format.h, OProfile's jitdump.h), as
// written by OProfile's libopagent or by jitscope's, in a 64-bit or a 32-bit process: the
// writer's layout comes from the header (oprofile_dump_header.h), never from this reader's word
// size. The one reader of the format: `jitscope dump` prints what it returns, the symbolizer
// imports it (symbolize/importers.h), the agent's tests check the bytes libopagent wrote with it.
//
// Records, in file order: CODE_LOAD (vma, code pointer, size, name, the code bytes when the
// pointer is not 0), UNLOAD (vma), CLOSE, DEBUG_INFO (absolute vma, line and file per entry).
// Each DEBUG_INFO describes the latest CODE_LOAD before it whose vma or code pointer it names;
// the load points at it. Timestamps are gettimeofday() seconds: wall-clock time.
//
// Every file is hostile; every size is checked before it is used (bounded_reader.h). As in the
// jitdump reader:
//  - an unknown record id is skipped through its total_size and counted (opjitconv fails the
//    whole file on one; a dump is still worth reading up to and past it);
//  - a record cut short by the end of the file (a writer killed mid-record, a dump copied while
//    it grows) or zero bytes at the end are a normal end, the former counted as torn;
//  - a malformed record stops parsing: the result keeps what came before it and `error` names
//    the file and the record's offset.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "jitscope/base/status.h"
#include "jitscope/formats/oprofile_dump_format.h"
#include "jitscope/formats/oprofile_dump_header.h"

namespace jitscope::formats {

struct OprofileDumpCodeLoad {
  uint64_t vma = 0;
  uint64_t code_addr = 0;  // 0: no code bytes in the record
  uint32_t code_size = 0;
  std::string_view name;
  std::span<const uint8_t> code;  // code_size bytes when code_addr != 0, else empty
  // The index in ParsedOprofileDump::records of the DEBUG_INFO describing this code: the latest
  // one naming its vma or code_addr while this was the latest load there. None if no DEBUG_INFO.
  std::optional<uint32_t> debug_info;
};

struct OprofileDumpUnload {
  uint64_t vma = 0;
};

struct OprofileDumpClose {};

struct OprofileDumpLine {
  uint64_t vma = 0;  // absolute: the line starts here (4 bytes in the file in the ILP32 layouts)
  uint32_t line = 0;
  std::string_view file;
};

struct OprofileDumpDebugInfo {
  uint64_t code_addr = 0;
  std::vector<OprofileDumpLine> lines;
};

struct OprofileDumpRecord {
  uint64_t offset = 0;     // in the file
  uint64_t timestamp = 0;  // seconds
  std::variant<OprofileDumpCodeLoad, OprofileDumpUnload, OprofileDumpClose, OprofileDumpDebugInfo>
      body;
  // The timestamp in nanoseconds, the unit of every other JIT file's times.
  uint64_t timestamp_ns() const { return timestamp * 1'000'000'000; }
};

struct OprofileDumpStats {
  uint64_t code_loads = 0;
  uint64_t unloads = 0;
  uint64_t closes = 0;
  uint64_t debug_infos = 0;
  uint64_t unattached_debug_infos = 0;  // naming no earlier load
  uint64_t replaced_debug_infos = 0;    // a second DEBUG_INFO for one load: the latest is kept
  uint64_t unknown_records = 0;         // ids opjitconv does not know either; skipped
  uint64_t torn_records = 0;            // 0 or 1: the file ends inside a record
};

struct ParsedOprofileDump {
  OprofileHeaderFields header;
  std::vector<OprofileDumpRecord> records;  // file order, unknown ids left out
  OprofileDumpStats stats;
  base::Status error;  // the first malformed record ("FILE: offset N: ..."); OK if none
};

// Fails only when `bytes` is not a readable OProfile dump header (bad magic, the other byte
// order, an unsupported version, a header out of bounds); the message starts with `file_name`.
// Views point into `bytes`.
base::StatusOr<ParsedOprofileDump> ParseOprofileDump(std::span<const uint8_t> bytes,
                                                     std::string_view file_name);

// The pid in an OProfile dump's file name ("<pid>.dump", any directory), if it has one.
std::optional<uint32_t> OprofileDumpPid(std::string_view path);

}  // namespace jitscope::formats
