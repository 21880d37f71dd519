// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The perf jitdump format (tools/perf/Documentation/jitdump-specification.txt), byte for byte. The
// single place the format's constants live; the writer (collector sink) and the reader (importer)
// both use it.
//
// All integers are in the writer's byte order; a reader that sees kJitdumpMagicSwapped must
// byte-swap every field. Records are packed: a reader finds the next record only through
// `total_size`.
#pragma once

#include <cstdint>

namespace jitscope::formats {

inline constexpr uint32_t kJitdumpMagic = 0x4A695444;         // "JiTD" as a big-endian u32
inline constexpr uint32_t kJitdumpMagicSwapped = 0x4454694A;  // written by the other byte order
// The header's version stays 1 even for revision 2 of the spec; perf rejects anything greater.
inline constexpr uint32_t kJitdumpVersion = 1;
inline constexpr uint64_t kJitdumpFlagArchTimestamp = 1;  // bit 0; any other bit: perf refuses

struct JitdumpHeader {
  uint32_t magic;       // kJitdumpMagic
  uint32_t version;     // kJitdumpVersion
  uint32_t total_size;  // sizeof(JitdumpHeader): perf mishandles larger headers, never extend
  uint32_t elf_mach;    // e_machine of the process (EM_X86_64 = 62)
  uint32_t pad1;        // 0
  uint32_t pid;
  uint64_t timestamp;  // creation time, same clock as the records (CLOCK_MONOTONIC ns)
  uint64_t flags;      // kJitdumpFlagArchTimestamp or 0
};
static_assert(sizeof(JitdumpHeader) == 40);

enum class JitdumpRecordId : uint32_t {
  kCodeLoad = 0,
  kCodeMove = 1,
  kCodeDebugInfo = 2,
  kCodeClose = 3,
  kCodeUnwindingInfo = 4,
};

struct JitdumpRecordPrefix {
  uint32_t id;          // JitdumpRecordId
  uint32_t total_size;  // whole record, prefix included (perf stops if < 16)
  uint64_t timestamp;
};
static_assert(sizeof(JitdumpRecordPrefix) == 16);

// Followed by the NUL-terminated name and then exactly code_size code bytes. No padding after
// the code: perf locates the code at record start + total_size - code_size.
struct JitdumpCodeLoad {
  JitdumpRecordPrefix prefix;
  uint32_t pid;
  uint32_t tid;
  uint64_t vma;
  uint64_t code_addr;  // what perf uses as the load address
  uint64_t code_size;
  uint64_t code_index;  // unique per load within a pid: it names perf inject's ELF file
};
static_assert(sizeof(JitdumpCodeLoad) == 56);

struct JitdumpCodeMove {
  JitdumpRecordPrefix prefix;
  uint32_t pid;
  uint32_t tid;
  uint64_t vma;
  uint64_t old_code_addr;
  uint64_t new_code_addr;
  uint64_t code_size;
  uint64_t code_index;
};
static_assert(sizeof(JitdumpCodeMove) == 64);

// Applies to the *next* CODE_LOAD (perf does not check code_addr). Followed by nr_entry
// JitdumpDebugEntry values, each followed by its NUL-terminated file name, packed.
struct JitdumpDebugInfo {
  JitdumpRecordPrefix prefix;
  uint64_t code_addr;
  uint64_t nr_entry;
};
static_assert(sizeof(JitdumpDebugInfo) == 32);

struct JitdumpDebugEntry {
  uint64_t addr;     // absolute address inside the code
  uint32_t lineno;   // from 1
  uint32_t discrim;  // column/discriminator; perf ignores it
  // char name[];    "\xff" alone means "same file as the previous entry" (readers only)
};
static_assert(sizeof(JitdumpDebugEntry) == 16);

// Followed by unwinding_size bytes: .eh_frame first, .eh_frame_hdr last (what perf reads).
struct JitdumpUnwindingInfo {
  JitdumpRecordPrefix prefix;
  uint64_t unwinding_size;
  uint64_t eh_frame_hdr_size;
  uint64_t mapped_size;
};
static_assert(sizeof(JitdumpUnwindingInfo) == 40);

}  // namespace jitscope::formats
