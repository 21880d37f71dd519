// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// ModuleCache: a file's module is opened once while the file stays the same, and again as soon
// as it is another file or was rewritten.
#include "jitscope/walk/module_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace jitscope::walk {
namespace {

constexpr char kCachedDebugPath[] = ":.debug:/usr/lib/debug";

// A copy of this test program (an ELF file with CFI) at `path`.
void CopyThisProgram(const std::string& path) {
  std::filesystem::copy_file(std::filesystem::read_symlink("/proc/self/exe"), path,
                             std::filesystem::copy_options::overwrite_existing);
}

TEST(ModuleCacheTest, AFileIsOpenedAgainOnlyWhenItChanged) {
  test_support::TempDir tmp;
  const std::string path = tmp.path() + "/program";
  CopyThisProgram(path);
  ModuleCache modules;
  const std::shared_ptr<unwind::CfiModule> first = modules.Open(path, kCachedDebugPath);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(modules.opens(), 1u);
  // The same file: the same module, not opened again.
  EXPECT_EQ(modules.Open(path, kCachedDebugPath), first);
  EXPECT_EQ(modules.opens(), 1u);
  // Another debug path is another module.
  const std::shared_ptr<unwind::CfiModule> other = modules.Open(path, ":/nonexistent");
  ASSERT_NE(other, nullptr);
  EXPECT_NE(other, first);
  EXPECT_EQ(modules.opens(), 2u);

  // Rewritten in place (another modification time): opened again.
  const timespec times[2] = {{0, UTIME_OMIT}, {1'000'000'000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  const std::shared_ptr<unwind::CfiModule> rewritten = modules.Open(path, kCachedDebugPath);
  ASSERT_NE(rewritten, nullptr);
  EXPECT_NE(rewritten, first);
  EXPECT_EQ(modules.opens(), 3u);
  EXPECT_EQ(modules.Open(path, kCachedDebugPath), rewritten);
  EXPECT_EQ(modules.opens(), 3u);

  // Replaced by another file renamed over it, of the same modification time: another inode.
  const std::string replacement = tmp.path() + "/replacement";
  CopyThisProgram(replacement);
  ASSERT_EQ(::utimensat(AT_FDCWD, replacement.c_str(), times, 0), 0);
  std::filesystem::rename(replacement, path);
  const std::shared_ptr<unwind::CfiModule> replaced = modules.Open(path, kCachedDebugPath);
  ASSERT_NE(replaced, nullptr);
  EXPECT_NE(replaced, rewritten);
  EXPECT_EQ(modules.opens(), 4u);

  // Gone: no module, and no attempt to open it again while it stays gone.
  std::filesystem::remove(path);
  EXPECT_EQ(modules.Open(path, kCachedDebugPath), nullptr);
  EXPECT_EQ(modules.opens(), 5u);
  EXPECT_EQ(modules.Open(path, kCachedDebugPath), nullptr);
  EXPECT_EQ(modules.opens(), 5u);
  // Back: opened.
  CopyThisProgram(path);
  EXPECT_NE(modules.Open(path, kCachedDebugPath), nullptr);
  EXPECT_EQ(modules.opens(), 6u);
  // A module handed out lives on while its holder keeps it, whatever the cache opened since.
  EXPECT_TRUE(first->is_64bit());
}

}  // namespace
}  // namespace jitscope::walk
