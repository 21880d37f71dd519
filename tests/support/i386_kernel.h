// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Test support: whether this kernel runs i386 programs at all. An x86-64 kernel built or booted
// without IA-32 emulation, and some virtual machines (paravirtualised ones with no 32-bit mode
// for their guests), refuse every i386 executable: execve() fails with ENOEXEC. The lib32 tests
// still build their i386 clients there (compiler, multilib and the lib32 libraries are checked),
// and then skip running them, saying why: no package can give a kernel back its 32-bit mode.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::test_support {

// The smallest i386 program: one ELF32 header, one PT_LOAD segment, and `exit(0)` by `int 0x80`.
// Written by hand so the probe needs no compiler or multilib (their absence is a failure the
// lib32 tests report themselves).
inline std::string TinyI386Program() {
  constexpr uint32_t kBase = 0x08048000;
  constexpr uint32_t kHeaders = 52 + 32;
  const uint8_t code[] = {0xB8, 0x01, 0x00, 0x00, 0x00,  // mov eax, 1 (exit)
                          0x31, 0xDB,                    // xor ebx, ebx (status 0)
                          0xCD, 0x80};                   // int 0x80
  std::string elf;
  auto put = [&elf](uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) elf.push_back(static_cast<char>(value >> (8 * i)));
  };
  elf.append(
      "\x7f"
      "ELF\x01\x01\x01",
      7);  // 32-bit, little-endian, version 1
  elf.append(9, '\0');
  put(2, 2);                 // e_type: ET_EXEC
  put(3, 2);                 // e_machine: EM_386
  put(1, 4);                 // e_version
  put(kBase + kHeaders, 4);  // e_entry
  put(52, 4);                // e_phoff
  put(0, 4);                 // e_shoff
  put(0, 4);                 // e_flags
  put(52, 2);                // e_ehsize
  put(32, 2);                // e_phentsize
  put(1, 2);                 // e_phnum
  put(0, 2);                 // e_shentsize
  put(0, 2);                 // e_shnum
  put(0, 2);                 // e_shstrndx
  const uint32_t file_size = kHeaders + sizeof(code);
  put(1, 4);          // p_type: PT_LOAD
  put(0, 4);          // p_offset
  put(kBase, 4);      // p_vaddr
  put(kBase, 4);      // p_paddr
  put(file_size, 4);  // p_filesz
  put(file_size, 4);  // p_memsz
  put(5, 4);          // p_flags: R + X
  put(0x1000, 4);     // p_align
  elf.append(reinterpret_cast<const char*>(code), sizeof(code));
  return elf;
}

// True if an i386 program runs here and exits 0. Asked once per test process.
inline bool KernelRunsI386Programs() {
  static const bool runs = [] {
    const TempDir dir;
    const std::string path = dir.path() + "/i386-probe";
    if (!WriteFile(path, TinyI386Program()) || ::chmod(path.c_str(), 0700) != 0) std::abort();
    return RunProgram({path}).ok();
  }();
  return runs;
}

inline constexpr char kNoI386Kernel[] =
    "this kernel does not run i386 programs (execve of a minimal i386 ELF fails: no IA-32 "
    "emulation here), so the i386 client was built but is not run";

}  // namespace jitscope::test_support
