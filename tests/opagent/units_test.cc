// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The agent's pure parts: the handle table (tokens, never pointers), the live-code registry
// (unload-then-reload at one address) and where and how the dump file is created.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "jitscope/opagent/code_registry.h"
#include "jitscope/opagent/dump_directory.h"
#include "jitscope/opagent/handle_table.h"
#include "support/temp_dir.h"

namespace jitscope::opagent {
namespace {

TEST(HandleTableTest, TokensAreValidatedNotDereferenced) {
  HandleTable table;
  const auto a = table.Open(1);
  const auto b = table.Open(2);
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, 0u);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(*a % 2, 1u) << "tokens are odd, so no aligned pointer is ever mistaken for one";
  EXPECT_EQ(table.Find(*a), 1u);
  EXPECT_EQ(table.Find(*b), 2u);
  EXPECT_FALSE(table.Find(0));
  int local = 0;
  EXPECT_FALSE(table.Find(reinterpret_cast<uintptr_t>(&local)));
  EXPECT_EQ(table.Find(*a + 0x100), 2u) << "slot 1, generation 1: that is b";
  EXPECT_FALSE(table.Find(*a + 0x200)) << "slot 2, not open";
  EXPECT_FALSE(table.Find(*a + 0x10000)) << "the next generation";
  EXPECT_FALSE(table.Find(~uintptr_t{0}));
  EXPECT_EQ(table.open_count(), 2u);

  EXPECT_TRUE(table.Close(*a));
  EXPECT_FALSE(table.Find(*a));
  EXPECT_FALSE(table.Close(*a)) << "closing twice";
  const auto c = table.Open(3);  // reuses a's slot with a new generation
  ASSERT_TRUE(c);
  EXPECT_NE(*c, *a);
  EXPECT_FALSE(table.Find(*a)) << "a stale handle stays invalid after its slot is reused";
  EXPECT_EQ(table.Find(*c), 3u);

  table.CloseAll();
  EXPECT_FALSE(table.Find(*b));
  EXPECT_FALSE(table.Find(*c));
  EXPECT_EQ(table.open_count(), 0u);
}

TEST(HandleTableTest, FailsWhenFull) {
  HandleTable table;
  std::set<uintptr_t> tokens;
  for (size_t i = 0; i < HandleTable::kSlots; ++i) {
    const auto token = table.Open(static_cast<uint32_t>(i + 1));
    ASSERT_TRUE(token);
    tokens.insert(*token);
  }
  EXPECT_EQ(tokens.size(), HandleTable::kSlots);
  EXPECT_FALSE(table.Open(999));
  EXPECT_TRUE(table.Close(*tokens.begin()));
  EXPECT_TRUE(table.Open(1000));
}

TEST(CodeRegistryTest, UnloadThenReloadAtTheSameAddress) {
  CodeRegistry registry;
  registry.Load({0x1000, 0x1000, 64, 1});
  ASSERT_TRUE(registry.FindByCode(0x1000));
  EXPECT_EQ(registry.FindByCode(0x1000)->size, 64u);
  const auto gone = registry.Unload(0x1000);
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->size, 64u);
  EXPECT_FALSE(registry.FindByCode(0x1000));
  EXPECT_FALSE(registry.Unload(0x1000)) << "unloading twice";
  registry.Load({0x1000, 0x1000, 32, 1});
  EXPECT_EQ(registry.FindByCode(0x1000)->size, 32u) << "the new code, not the old one";
  EXPECT_EQ(registry.size(), 1u);
}

TEST(CodeRegistryTest, FindsCodeByItsPointerOrItsAddress) {
  CodeRegistry registry;
  registry.Load({0x1000, 0x9000, 16, 1});  // bytes copied elsewhere
  registry.Load({0x2000, 0, 16, 1});       // no code pointer
  EXPECT_EQ(registry.FindByCode(0x9000)->address, 0x1000u);
  EXPECT_EQ(registry.FindByCode(0x1000)->address, 0x1000u);
  EXPECT_EQ(registry.FindByCode(0x2000)->address, 0x2000u);
  EXPECT_FALSE(registry.FindByCode(0x3000));
  // A new load over 0x1000 with another pointer retires the old pointer.
  registry.Load({0x1000, 0xA000, 8, 1});
  EXPECT_FALSE(registry.FindByCode(0x9000));
  EXPECT_EQ(registry.FindByCode(0xA000)->size, 8u);
  // Unloading forgets the pointer too.
  registry.Unload(0x1000);
  EXPECT_FALSE(registry.FindByCode(0xA000));
}

TEST(CodeRegistryTest, ForgetsTheCodeOfAClosedAgent) {
  CodeRegistry registry;
  registry.Load({0x1000, 0x9000, 16, 1});
  registry.Load({0x2000, 0x2000, 16, 2});
  registry.ForgetAgent(1);
  EXPECT_FALSE(registry.FindByCode(0x9000));
  EXPECT_FALSE(registry.FindByCode(0x1000));
  EXPECT_TRUE(registry.FindByCode(0x2000));
}

using test_support::TempDir;

const char* NoEnv(const char*) { return nullptr; }
std::string env_dir;
const char* DirEnv(const char* name) {
  return std::string(name) == "JITSCOPE_OPAGENT_DIR" ? env_dir.c_str() : nullptr;
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode;
}

TEST(DumpDirectoryTest, TheEnvironmentWinsAndMustExist) {
  TempDir tmp;
  env_dir = tmp.path();
  auto dir = ChooseDumpDirectory(&DirEnv, DumpLocations{tmp.path() + "/seed", tmp.path() + "/o"});
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(*dir, tmp.path());
  env_dir = tmp.path() + "/missing";
  dir = ChooseDumpDirectory(&DirEnv, DumpLocations{});
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().errno_value(), ENOENT);
}

// As JITSCOPE_OUTPUT_DIR: another user's directory (even mode 0777) is refused; they could
// replace or read the dump. (Root's own test: it gives the directory away with chown.)
TEST(DumpDirectoryTest, TheEnvironmentsDirectoryMustBeTheUsersOrRoots) {
  TempDir tmp;
  env_dir = tmp.path() + "/theirs";
  ASSERT_EQ(::mkdir(env_dir.c_str(), 0777), 0);
  ASSERT_EQ(::chown(env_dir.c_str(), 65534, 65534), 0) << "run as root";
  ASSERT_EQ(::chmod(env_dir.c_str(), 0777), 0);
  auto dir = ChooseDumpDirectory(&DirEnv, DumpLocations{});
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().errno_value(), EACCES);
  EXPECT_EQ(dir.status().message(),
            "JITSCOPE_OPAGENT_DIR: " + env_dir +
                " belongs to another user (uid 65534); not writing there: Permission denied");
}

TEST(DumpDirectoryTest, TheSeedLocationWhenItExists) {
  TempDir tmp;
  const std::string seed = tmp.path() + "/jitdump";
  ASSERT_EQ(::mkdir(seed.c_str(), 0755), 0);
  auto dir = ChooseDumpDirectory(&NoEnv, DumpLocations{seed, tmp.path() + "/o"});
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(*dir, seed);
}

TEST(DumpDirectoryTest, CreatesTheSharedLocationSafely) {
  TempDir tmp;
  const DumpLocations locations{tmp.path() + "/no-seed", tmp.path() + "/.oprofile"};
  auto dir = ChooseDumpDirectory(&NoEnv, locations);
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  EXPECT_EQ(*dir, tmp.path() + "/.oprofile/jitdump");
  EXPECT_EQ(ModeOf(tmp.path() + "/.oprofile") & 07777, 01777u);
  EXPECT_EQ(ModeOf(*dir) & 07777, 01777u);
  // Existing directories are reused.
  EXPECT_TRUE(ChooseDumpDirectory(&NoEnv, locations).ok());
}

TEST(DumpDirectoryTest, NeverFollowsALinkInTheSharedLocation) {
  TempDir tmp;
  const std::string elsewhere = tmp.path() + "/elsewhere";
  ASSERT_EQ(::mkdir(elsewhere.c_str(), 0700), 0);
  ASSERT_EQ(::symlink(elsewhere.c_str(), (tmp.path() + "/.oprofile").c_str()), 0);
  auto dir = ChooseDumpDirectory(&NoEnv,
                                 DumpLocations{tmp.path() + "/no-seed", tmp.path() + "/.oprofile"});
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().errno_value(), ENOTDIR);
  struct stat st {};
  EXPECT_NE(::stat((elsewhere + "/jitdump").c_str(), &st), 0) << "nothing created through the link";
}

TEST(DumpDirectoryTest, CreatesTheDumpOwnerOnlyAndReplacesOnlyOurStaleDump) {
  TempDir tmp;
  auto fd = CreateDumpFile(tmp.path(), 4242);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  const std::string path = tmp.path() + "/4242.dump";
  EXPECT_EQ(ModeOf(path) & 07777, 0600u);
  ASSERT_EQ(::write(fd->get(), "stale", 5), 5);
  // A dump left by an earlier process with this pid: replaced, as OProfile's creat() truncates.
  auto again = CreateDumpFile(tmp.path(), 4242);
  ASSERT_TRUE(again.ok()) << again.status().message();
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
  // A link planted at the name is an error and its target is untouched.
  const std::string target = tmp.path() + "/target";
  ASSERT_EQ(::close(::open(target.c_str(), O_CREAT | O_WRONLY, 0644)), 0);
  ASSERT_EQ(::symlink(target.c_str(), (tmp.path() + "/77.dump").c_str()), 0);
  auto planted = CreateDumpFile(tmp.path(), 77);
  ASSERT_FALSE(planted.ok());
  EXPECT_EQ(planted.status().errno_value(), EEXIST);
  EXPECT_TRUE(S_ISLNK(ModeOf(tmp.path() + "/77.dump")));
}

}  // namespace
}  // namespace jitscope::opagent
