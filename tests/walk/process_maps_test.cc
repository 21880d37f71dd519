// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/process_maps.h"

#include <gtest/gtest.h>

namespace jitscope::walk {
namespace {

TEST(IsAnonymousMemoryTest, KernelPseudoNamesAreAnonymous) {
  for (const char* name :
       {"", "//anon", "[anon:v8 code]", "[anon_shmem:jit]", "[heap]", "[stack]", "[stack:1234]",
        "memfd:jit-code", "/memfd:doublemap (deleted)", "/dev/zero (deleted)",
        "/SYSV00000000 (deleted)", "/anon_hugepage (deleted)", "anon_inode:[perf_event]"}) {
    EXPECT_TRUE(IsAnonymousMemory(name)) << name;
  }
}

TEST(IsAnonymousMemoryTest, FilesAndNamedPseudoMappingsAreNot) {
  for (const char* name : {"/usr/lib/x86_64-linux-gnu/libc.so.6", "/tmp/anon", "/tmp/jit-1.dump",
                           "[vdso]", "[vsyscall]", "/dev/shm/code", "anon", "/home/memfd:x"}) {
    EXPECT_FALSE(IsAnonymousMemory(name)) << name;
  }
}

}  // namespace
}  // namespace jitscope::walk
