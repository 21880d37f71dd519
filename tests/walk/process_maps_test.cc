// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/walk/process_maps.h"

#include <optional>
#include <string>
#include <vector>

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

// When a process first mapped a file, by the file's name: a JVM's interpreter is its own from when
// it mapped libjvm.so, not before (the pid ran another program until exec).
TEST(ProcessMapsTest, FirstMappingOfAFileByItsLastPathComponent) {
  const std::string jvm = "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so";
  const std::vector<session::Mapping> mappings = {
      {7, 7, 100, 0x400000, 0x1000, 0, "/usr/bin/bash", ""},
      {7, 7, 200, 0x7f0000000000, 0x100000, 0, jvm, ""},
      {7, 7, 300, 0x7f0000200000, 0x100000, 0x100000, jvm, ""},
      {8, 8, 150, 0x400000, 0x1000, 0, "/opt/notlibjvm.so", ""}};
  const ProcessMaps maps(mappings, {});
  EXPECT_EQ(maps.FirstMappedFileNamed(7, "libjvm.so"), std::optional<uint64_t>(200));
  EXPECT_EQ(maps.FirstMappedFileNamed(7, "jvm.so"), std::nullopt);
  EXPECT_EQ(maps.FirstMappedFileNamed(8, "libjvm.so"), std::nullopt);
  EXPECT_EQ(maps.FirstMappedFileNamed(9, "libjvm.so"), std::nullopt);
}

}  // namespace
}  // namespace jitscope::walk
