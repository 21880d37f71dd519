// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/oprofile_dump_header.h"

#include <cstring>

namespace jitscope::formats {
namespace {

uint32_t LoadU32(const uint8_t* p) {
  uint32_t value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

// The NUL-terminated string at `offset` in bytes[0, end), or false when none ends before `end`.
bool CStringAt(std::span<const uint8_t> bytes, size_t offset, size_t end, std::string_view& out) {
  if (offset >= end || end > bytes.size()) return false;
  const void* nul = std::memchr(bytes.data() + offset, 0, end - offset);
  if (nul == nullptr) return false;
  out = std::string_view(
      reinterpret_cast<const char*>(bytes.data() + offset),
      static_cast<size_t>(static_cast<const uint8_t*>(nul) - bytes.data()) - offset);
  return true;
}

constexpr std::string_view kElf32Prefix = "elf32-";

}  // namespace

bool LooksLikeOprofileDump(std::span<const uint8_t> bytes) {
  return bytes.size() >= sizeof(uint32_t) && LoadU32(bytes.data()) == kOprofileMagic;
}

base::StatusOr<OprofileHeaderFields> ReadOprofileHeader(std::span<const uint8_t> bytes) {
  if (bytes.size() >= sizeof(uint32_t) &&
      LoadU32(bytes.data()) == __builtin_bswap32(kOprofileMagic)) {
    return base::Status::Error(
        "OProfile dump written on a machine of the other byte order (not supported)");
  }
  if (!LooksLikeOprofileDump(bytes)) return base::Status::Error("not an OProfile dump (bad magic)");
  // The smallest header: i386's 28 bytes and a one-character target name with its NUL.
  if (bytes.size() < kOprofileLayoutI386.header_size + 2) {
    return base::Status::Error("OProfile dump header is truncated");
  }
  OprofileHeaderFields header;
  header.version = LoadU32(bytes.data() + offsetof(OprofileHeader, version));
  header.total_size = LoadU32(bytes.data() + offsetof(OprofileHeader, total_size));
  header.bfd_arch = LoadU32(bytes.data() + offsetof(OprofileHeader, bfd_arch));
  header.bfd_mach = LoadU32(bytes.data() + offsetof(OprofileHeader, bfd_mach));
  if (header.version != kOprofileVersion) {
    return base::Status::Error("unsupported OProfile dump version %u (this reader reads %u)",
                               header.version, kOprofileVersion);
  }
  if (header.total_size <= kOprofileLayoutI386.header_size || header.total_size > bytes.size()) {
    return base::Status::Error("offset 8: invalid OProfile dump header size %u", header.total_size);
  }
  // The layout, from where the target name is and what it says (see the header comment).
  std::string_view i386_name;
  if (CStringAt(bytes, kOprofileLayoutI386.header_size, header.total_size, i386_name) &&
      i386_name.starts_with(kElf32Prefix)) {
    header.layout = kOprofileLayoutI386;
    header.bfd_target = i386_name;
  } else {
    if (header.total_size <= kOprofileLayoutLp64.header_size ||
        !CStringAt(bytes, kOprofileLayoutLp64.header_size, header.total_size, header.bfd_target)) {
      return base::Status::Error("offset %u: OProfile dump target name is not NUL-terminated",
                                 kOprofileLayoutLp64.header_size);
    }
    header.layout = header.bfd_target.starts_with(kElf32Prefix) ? kOprofileLayoutIlp32Aligned
                                                                : kOprofileLayoutLp64;
  }
  std::memcpy(&header.timestamp, bytes.data() + header.layout.timestamp_offset(),
              sizeof(header.timestamp));
  return header;
}

}  // namespace jitscope::formats
