// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// OProfile's JIT dump (<pid>.dump, what libopagent writes and opjitconv reads; fact sheet
// ../shared/reference/perf-jitdump-oprofile.md §4.3), byte for byte. The single place the
// format's constants live: the writer (libopagent's session) and every reader use it.
//
// The format has no byte-order marker and no size fields for its own structs: it is the native
// struct layout of the writer. This header describes the LP64 layout (x86-64, aarch64), the
// only one jitscope writes; an ILP32 writer's header is 28 bytes and its debug entries carry a
// 4-byte vma, so a reader must refuse such a file rather than guess.
//
// Not to be confused with perf's jitdump (jitdump_format.h): different magic, different record
// ids (here 1 = UNLOAD, 2 = CLOSE, 3 = DEBUG_INFO), a 32-bit code size, timestamps in seconds.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jitscope::formats {

inline constexpr uint32_t kOprofileMagic = 0x4F74496A;  // bytes "jItO" on a little-endian disk
inline constexpr uint32_t kOprofileVersion = 1;
// Every record's total_size, and the header's, is rounded up to this with zero bytes.
inline constexpr uint32_t kOprofileAlignment = 8;

constexpr size_t OprofilePadded(size_t size) {
  return (size + kOprofileAlignment - 1) & ~size_t{kOprofileAlignment - 1};
}

// BFD's description of the process's machine (libbfd's target name, `enum bfd_architecture` and
// machine number), which opjitconv hands back to libbfd to build its ELF. The numbers are those
// of binutils 2.40 (Debian 12), read from its bfd.h: the enum is not stable across binutils
// releases, the target name is.
struct OprofileBfdTarget {
  const char* name;
  uint32_t arch;
  uint32_t mach;
};
inline constexpr OprofileBfdTarget kOprofileBfdX86_64 = {"elf64-x86-64", 8, 8};
inline constexpr OprofileBfdTarget kOprofileBfdAarch64 = {"elf64-littleaarch64", 78, 0};

// Offset 0 of the file. Followed by the BFD target name, NUL-terminated, then zero bytes up to
// `total_size` (a multiple of 8).
struct OprofileHeader {
  uint32_t magic;       // kOprofileMagic
  uint32_t version;     // kOprofileVersion
  uint32_t total_size;  // the whole header: this struct + target name + NUL + padding
  uint32_t bfd_arch;    // OprofileBfdTarget::arch
  uint32_t bfd_mach;    // OprofileBfdTarget::mach
  uint32_t reserved;    // the compiler's alignment hole before the u64 on LP64; written as 0
  uint64_t timestamp;   // gettimeofday() seconds when the dump was created
};
static_assert(sizeof(OprofileHeader) == 32);

enum class OprofileRecordId : uint32_t {
  kCodeLoad = 0,
  kCodeUnload = 1,
  kCodeClose = 2,
  kCodeDebugInfo = 3,
};
inline constexpr uint32_t kOprofileRecordIdCount = 4;  // opjitconv fails a file on any other id

// Starts every record. `total_size` includes the prefix, the variable part and the padding.
struct OprofileRecordPrefix {
  uint32_t id;          // OprofileRecordId
  uint32_t total_size;  // a multiple of 8
  uint64_t timestamp;   // gettimeofday() seconds
};
static_assert(sizeof(OprofileRecordPrefix) == 16);

// op_write_native_code. Followed by the symbol name, NUL-terminated; then `code_size` code bytes
// only when `code_addr` is not 0 (opjitconv decides "code present" by code_addr alone); then
// zero padding to 8.
struct OprofileCodeLoad {
  OprofileRecordPrefix prefix;
  uint64_t vma;        // where the code runs
  uint64_t code_addr;  // the caller's `code` pointer; 0 when it passed NULL (no bytes stored)
  uint32_t code_size;
  uint32_t align;  // 0
};
static_assert(sizeof(OprofileCodeLoad) == 40);

// op_unload_native_code: ends the life of the live load at `vma` (opjitconv matches the first
// still-alive load with that vma).
struct OprofileCodeUnload {
  OprofileRecordPrefix prefix;
  uint64_t vma;
};
static_assert(sizeof(OprofileCodeUnload) == 24);

// op_close_agent: the end of the VM's life. Header only.
struct OprofileCodeClose {
  OprofileRecordPrefix prefix;
};
static_assert(sizeof(OprofileCodeClose) == 16);

// op_write_debug_line_info. Followed by `nr_entry` packed entries, then zero padding to 8.
// libopagent writes nothing at all for a call with 0 entries.
struct OprofileDebugInfo {
  OprofileRecordPrefix prefix;
  uint64_t code_addr;  // the `code` pointer the caller passed (that of its earlier code load)
  uint32_t nr_entry;
  uint32_t align;  // 0
};
static_assert(sizeof(OprofileDebugInfo) == 32);

// One debug entry, packed with no alignment (so not a struct): the C `unsigned long vma` (8 bytes
// on LP64), `unsigned int lineno` (4 bytes), then the file name NUL-terminated. The vma is an
// absolute address inside the code; each entry names its own file.
inline constexpr size_t kOprofileDebugEntryVmaOffset = 0;
inline constexpr size_t kOprofileDebugEntryLineOffset = 8;
inline constexpr size_t kOprofileDebugEntryNameOffset = 12;

}  // namespace jitscope::formats
