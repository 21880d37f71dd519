// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// OProfile's JIT dump (<pid>.dump, what libopagent writes and opjitconv reads; OProfile's
// jitdump.h), byte for byte. The single place the format's constants live: the writer (libopagent's
// session) and every reader use it.
//
// The format has no byte-order marker and no size fields for its own structs: it is the native
// struct layout of the writer (OprofileLayout below). Records are spelled with fixed-size u32/u64
// fields, so they are the same on every ABI; two parts are not: the header (its u64 timestamp is
// only 4-aligned on i386, so the header is 28 bytes there, 32 elsewhere) and the debug entry's
// `unsigned long vma` (4 bytes on ILP32). jitscope writes the layout of the process it runs in
// (LP64 on x86-64 and aarch64, i386's in lib32/); readers take the layout from the header
// (oprofile_dump_header.h), never from their own word size.
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
//
// With the target comes the writer's struct layout, the two ABI-dependent sizes of §4.3.
struct OprofileLayout {
  uint32_t header_size;    // sizeof(struct jitheader): the fixed header before the target name
  uint32_t line_vma_size;  // sizeof(unsigned long), the debug entry's vma

  // A debug entry: vma, then `unsigned int lineno`, then the file name, packed.
  constexpr uint32_t line_number_offset() const { return line_vma_size; }
  constexpr uint32_t line_name_offset() const { return line_vma_size + 4; }
  // The header's u64 timestamp ends the fixed header.
  constexpr uint32_t timestamp_offset() const { return header_size - 8; }
  friend constexpr bool operator==(const OprofileLayout&, const OprofileLayout&) = default;
};
inline constexpr OprofileLayout kOprofileLayoutLp64 = {32, 8};  // x86-64, aarch64
inline constexpr OprofileLayout kOprofileLayoutI386 = {28, 4};  // u64 4-aligned, 4-byte long
// ILP32 ABIs that align u64 to 8 (ARM EABI, x32) keep the 32-byte header with a 4-byte vma.
// jitscope does not write it; the readers read it (the target name says "elf32-").
inline constexpr OprofileLayout kOprofileLayoutIlp32Aligned = {32, 4};

struct OprofileBfdTarget {
  const char* name;
  uint32_t arch;
  uint32_t mach;
  OprofileLayout layout;
};
// bfd_arch_i386 is 8 for both x86 targets; the machines are bfd_mach_x86_64 (1 << 3) and
// bfd_mach_i386_i386 (1 << 2).
inline constexpr OprofileBfdTarget kOprofileBfdX86_64 = {"elf64-x86-64", 8, 8, kOprofileLayoutLp64};
inline constexpr OprofileBfdTarget kOprofileBfdI386 = {"elf32-i386", 8, 4, kOprofileLayoutI386};
inline constexpr OprofileBfdTarget kOprofileBfdAarch64 = {"elf64-littleaarch64", 78, 0,
                                                          kOprofileLayoutLp64};

// Offset 0 of the file. Followed by the BFD target name, NUL-terminated, then zero bytes up to
// `total_size` (a multiple of 8). The LP64 layout; OprofileHeaderI386 is i386's.
struct OprofileHeader {
  uint32_t magic;       // kOprofileMagic
  uint32_t version;     // kOprofileVersion
  uint32_t total_size;  // the whole header: this struct + target name + NUL + padding
  uint32_t bfd_arch;    // OprofileBfdTarget::arch
  uint32_t bfd_mach;    // OprofileBfdTarget::mach
  uint32_t reserved;    // the compiler's alignment hole before the u64 on LP64; written as 0
  uint64_t timestamp;   // gettimeofday() seconds when the dump was created
};
static_assert(sizeof(OprofileHeader) == kOprofileLayoutLp64.header_size);
static_assert(offsetof(OprofileHeader, timestamp) == kOprofileLayoutLp64.timestamp_offset());

// i386's header: the same fields, but the i386 psABI aligns a u64 struct member to 4, so there is
// no hole before the timestamp. The typedef lowers the alignment on every compiler target, so this
// struct has i386's layout in the 64-bit tools too.
typedef uint64_t OprofileI386U64 __attribute__((aligned(4)));
struct OprofileHeaderI386 {
  uint32_t magic;
  uint32_t version;
  uint32_t total_size;
  uint32_t bfd_arch;
  uint32_t bfd_mach;
  OprofileI386U64 timestamp;  // at offset 20
};
static_assert(sizeof(OprofileHeaderI386) == kOprofileLayoutI386.header_size);
static_assert(offsetof(OprofileHeaderI386, timestamp) == kOprofileLayoutI386.timestamp_offset());

enum class OprofileRecordId : uint32_t {
  kCodeLoad = 0,
  kCodeUnload = 1,
  kCodeClose = 2,
  kCodeDebugInfo = 3,
};
inline constexpr uint32_t kOprofileRecordIdCount = 4;  // opjitconv fails a file on any other id

// The records have the same layout on every ABI: their u64 fields sit at multiples of 8, so
// i386's 4-byte alignment of u64 moves nothing. The size asserts below hold in the i386 build too
// (cmake/lib32.cmake compiles this header for libopagent.so.1 there).
//
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

// One debug entry, packed with no alignment (so not a struct): the C `unsigned long vma`
// (OprofileLayout::line_vma_size: 8 bytes on LP64, 4 on ILP32), `unsigned int lineno` (4 bytes),
// then the file name NUL-terminated. The vma is an absolute address inside the code; each entry
// names its own file.

}  // namespace jitscope::formats
