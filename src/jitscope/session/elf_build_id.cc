// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/session/elf_build_id.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>

#include "jitscope/base/scoped_resource.h"
#include "jitscope/session/perf_record.h"

namespace jitscope::session {

std::string BuildIdOfFd(int fd) {
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) return "";
  const void* bytes = nullptr;
  const ssize_t size = dwelf_elf_gnu_build_id(elf, &bytes);
  std::string hex =
      size > 0 ? BuildIdHex({static_cast<const uint8_t*>(bytes), static_cast<size_t>(size)})
               : std::string();
  elf_end(elf);
  return hex;
}

std::string DebugLinkOfFd(int fd) {
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) return "";
  GElf_Word crc = 0;
  const char* name = dwelf_elf_gnu_debuglink(elf, &crc);
  std::string link = name != nullptr ? name : "";
  elf_end(elf);
  // A file name, not a path: one with a '/' would lead out of the directories searched.
  return link.find('/') == std::string::npos && link != "." && link != ".." ? link : "";
}

std::string BuildIdOfFile(const std::string& path) {
  const base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  return fd ? BuildIdOfFd(fd.get()) : std::string();
}

}  // namespace jitscope::session
