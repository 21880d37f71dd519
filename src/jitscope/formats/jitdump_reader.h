// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Reads a perf jitdump (jit-<pid>.dump) written by any producer: Node/V8 `--perf-prof`, LLVM's
// MCJIT/ORC PerfJITEventListener (lli, PostgreSQL's JIT), oneDNN, wasmtime, perf's JVMTI agent,
// and jitscope itself. Layout: jitdump_format.h; facts: perf-jitdump-oprofile.md §1.
//
// What it understands, record by record (§1.3):
//  - CODE_LOAD: name, address (code_addr, as perf uses it), size, code_index, time.
//  - DEBUG_INFO: kept and attached to the *next* CODE_LOAD, exactly as perf does (§1.3). Entries
//    are absolute start addresses ("from here on, this line"); "\xff" as a file name means "the
//    previous entry's file".
//  - CODE_MOVE: a time-stamped relocation of the code with the same code_index.
//  - UNWINDING_INFO: its .eh_frame is attached to the next CODE_LOAD, as perf does (§1.3): the
//    engine's own unwind tables for that code (V8's --perf-prof-unwinding-info).
//  - CLOSE: counted. Unknown record ids: skipped through total_size (§1.2).
//  - Both byte orders (the magic tells which, §1.1).
//
// Producer quirks handled, each counted in JitdumpStats so nothing is silent:
//  - V8 and LLVM add 0x40 (the ELF header size of old perf's generated objects, §2.2, §5.1) to
//    every DEBUG_INFO address; perf's JVMTI agent writes plain addresses. The file is inspected as
//    a whole (DecideLineAddressBias below) and the bias removed, so line addresses are true code
//    addresses whoever wrote them.
//  - Node's V8 writes some file names as fixed-length binary blobs with embedded NULs, which
//    breaks NUL-terminated parsing of the rest of the record. Node 20 writes the name for every
//    entry: when the entries do not parse strictly but fit the record as equal-sized entries,
//    they are read that way. Node 18 writes it for the first entry only, then "\xff": when the
//    record parses strictly from a NUL inside the first name on, it is read that way. The
//    unreadable names are dropped (the lines are kept). They are V8 writing a freed copy of the
//    script's name; when the next CODE_LOAD is V8's "JS:... <script>:<line>:<column>" (Node 18:
//    "LazyCompile:... <script>:<line>") and the name is that script's size and ends with its
//    bytes, that script is their file.
//
// Every size and offset is checked before use. A malformed record stops parsing: the result has
// everything read before it and `error` names the file and the record's offset.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "jitscope/base/huge_page_allocator.h"
#include "jitscope/base/status.h"

namespace jitscope::formats {

struct JitdumpFileHeader {
  bool swapped = false;  // written in the other byte order
  uint32_t version = 0;
  uint32_t elf_mach = 0;
  uint32_t pid = 0;
  uint64_t timestamp = 0;
  uint64_t flags = 0;
};

struct JitdumpLineEntry {
  uint64_t address = 0;  // absolute code address (producer bias removed)
  uint32_t line = 0;
  uint32_t discriminator = 0;            // V8: column + 1; LLVM: DWARF discriminator
  std::optional<std::string_view> file;  // nullopt: the name was unreadable
};

enum class JitdumpRecordKind { kCodeLoad, kCodeMove };

// One CODE_LOAD or CODE_MOVE, in file order.
struct JitdumpRecord {
  JitdumpRecordKind kind = JitdumpRecordKind::kCodeLoad;
  uint64_t offset = 0;  // of the record in the file
  uint64_t timestamp = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t code_addr = 0;      // CODE_LOAD: the code; CODE_MOVE: the new address
  uint64_t old_code_addr = 0;  // CODE_MOVE only
  uint64_t code_size = 0;
  uint64_t code_index = 0;
  std::string_view name;  // CODE_LOAD only
  // CODE_LOAD only: its code_size bytes of code, or empty when the record does not hold them.
  std::span<const uint8_t> code;
  // CODE_LOAD only: the .eh_frame of the UNWINDING_INFO before it, or empty. Its pc-relative
  // pointers take it to lie right after the code, at EhFrameAddress() (where perf's generated
  // ELF puts it, and V8 writes it for).
  std::span<const uint8_t> eh_frame;
  uint64_t EhFrameAddress() const { return code_addr + ((code_size + 7) & ~uint64_t{7}); }
  // CODE_LOAD only: its DEBUG_INFO entries, lines[first_line, first_line + line_count).
  uint32_t first_line = 0;
  uint32_t line_count = 0;
};

struct JitdumpStats {
  uint64_t code_loads = 0;
  uint64_t code_moves = 0;
  uint64_t debug_infos = 0;
  uint64_t closes = 0;
  uint64_t unwinding_infos = 0;
  uint64_t unusable_unwinding_infos = 0;  // sizes that do not fit the record: skipped
  uint64_t unknown_records = 0;           // ids perf does not know either; skipped by total_size
  uint64_t orphan_debug_infos = 0;        // DEBUG_INFO not followed by a CODE_LOAD
  uint64_t mismatched_debug_infos = 0;    // DEBUG_INFO whose code_addr is not the next load's
  uint64_t repaired_debug_infos = 0;      // read past Node's binary names (equal-sized, or 18's)
  uint64_t files_from_code_names = 0;     // entries of those named by their CODE_LOAD's script
  uint64_t dropped_line_entries = 0;      // outside their code once the producer bias is removed
  uint64_t line_address_bias = 0;         // 0, or 0x40 (V8/LLVM convention) removed
};

struct ParsedJitdump {
  JitdumpFileHeader header;
  // On huge pages: Node's jitdumps hold a million loads and line entries, and touching their
  // memory 4 KiB at a time costs more than parsing them.
  base::HugeVector<JitdumpRecord> records;
  base::HugeVector<JitdumpLineEntry> lines;
  JitdumpStats stats;
  base::Status error;  // the first malformed record ("FILE: offset N: ..."); OK if none
  // Where the last record read whole ends: the file's size, unless the file ends inside a record
  // (its writer is still writing it, or died), in zero bytes, or at a malformed record.
  uint64_t records_end = 0;
};

// True when `bytes` starts with the jitdump magic in either byte order.
bool LooksLikeJitdump(std::span<const uint8_t> bytes);

// Fails only when `bytes` is not a jitdump at all (magic, version or header). `file_name` is
// used in messages.
base::StatusOr<ParsedJitdump> ParseJitdump(std::span<const uint8_t> bytes,
                                           std::string_view file_name);

}  // namespace jitscope::formats
