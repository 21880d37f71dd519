// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/base/files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "support/resident.h"
#include "support/temp_dir.h"

namespace jitscope::base {
namespace {

using test_support::ResidentKb;

class FilesTest : public ::testing::Test {
 protected:
  // Writes `pages` pages to dir_/data, byte i being a function of i and its page (so no two pages
  // are alike); returns the bytes, and the file open as `fd`.
  std::string WritePages(size_t pages, ScopedFd& fd) {
    const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    std::string bytes(pages * page, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + i / page);
    auto created = CreateExclusive(dir_, "data");
    EXPECT_TRUE(created.ok());
    if (created.ok()) fd = std::move(created).value();
    EXPECT_TRUE(WriteAll(fd.get(), bytes.data(), bytes.size()).ok());
    return bytes;
  }

  test_support::TempDir tmp_;
  const std::string dir_ = tmp_.path();
};

TEST_F(FilesTest, CreateExclusiveMakesAnOwnerOnlyFile) {
  const mode_t old_umask = ::umask(0);
  auto fd = CreateExclusive(dir_, "a.bin");
  ::umask(old_umask);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/a.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(FilesTest, CreateExclusiveNeverClobbersAnExistingFile) {
  ASSERT_TRUE(CreateExclusive(dir_, "a.bin").ok());
  auto again = CreateExclusive(dir_, "a.bin");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().errno_value(), EEXIST);
}

TEST_F(FilesTest, CreateExclusiveDoesNotFollowAPlantedLink) {
  const std::string target = dir_ + "/target";
  ASSERT_EQ(::symlink(target.c_str(), (dir_ + "/link").c_str()), 0);
  auto fd = CreateExclusive(dir_, "link");
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().errno_value(), EEXIST);
  EXPECT_NE(::access(target.c_str(), F_OK), 0) << "the link's target must not have been created";
}

// $TMPDIR's directory holds the file, which has no name there and is owner-only; without a
// usable $TMPDIR, /var/tmp does.
TEST_F(FilesTest, TemporaryFilesAreUnnamedAndInTmpdir) {
  const char* before = std::getenv("TMPDIR");
  const std::string saved = before != nullptr ? before : "";
  ::setenv("TMPDIR", dir_.c_str(), 1);
  auto fd = CreateTemporaryFile();
  ::setenv("TMPDIR", (dir_ + "/missing").c_str(), 1);
  auto fallback = CreateTemporaryFile();
  if (before != nullptr) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  ASSERT_TRUE(fallback.ok()) << fallback.status().message();
  struct stat file {
  }, dir{}, var_tmp{}, other{};
  ASSERT_EQ(::fstat(fd->get(), &file), 0);
  ASSERT_EQ(::stat(dir_.c_str(), &dir), 0);
  EXPECT_EQ(file.st_dev, dir.st_dev);
  EXPECT_EQ(file.st_nlink, 0u) << "no name in any directory";
  EXPECT_EQ(file.st_mode & 07777, 0600u);
  ASSERT_EQ(::fstat(fallback->get(), &other), 0);
  ASSERT_EQ(::stat("/var/tmp", &var_tmp), 0);
  EXPECT_EQ(other.st_dev, var_tmp.st_dev);
  ASSERT_TRUE(WriteAll(fd->get(), "spooled", 7).ok());
  auto mapped = MappedFile::FromFd(fd->get(), "spool");
  ASSERT_TRUE(mapped.ok()) << mapped.status().message();
  EXPECT_EQ(mapped->bytes(), "spooled");
}

TEST_F(FilesTest, MappedFileReadsWhatWasWritten) {
  auto fd = CreateExclusive(dir_, "data");
  ASSERT_TRUE(fd.ok());
  ASSERT_TRUE(WriteAll(fd->get(), "hello", 5).ok());
  auto file = MappedFile::Open(dir_ + "/data");
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->bytes(), "hello");
}

TEST_F(FilesTest, EvictedPagesLeaveMemoryAndReadTheSame) {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  ScopedFd fd;
  const std::string bytes = WritePages(8, fd);
  auto file = MappedFile::Open(dir_ + "/data");
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_EQ(file->bytes(), bytes);  // every page read: resident
  EXPECT_EQ(ResidentKb(file->data()), 8 * page / 1024);
  // Done with pages 0 to 2 and a byte of page 3, which stays.
  file->Evict(0, 3 * page + 1);
  EXPECT_EQ(ResidentKb(file->data()), 5 * page / 1024);
  // Done with page 3 and two bytes of page 4.
  file->Evict(3 * page + 1, 4 * page + 2);
  EXPECT_EQ(ResidentKb(file->data()), 4 * page / 1024);
  file->Evict(4 * page + 2, 100 * page);
  EXPECT_EQ(ResidentKb(file->data()), 0u);
  EXPECT_EQ(file->bytes(), bytes);
  EXPECT_EQ(ResidentKb(file->data()), 8 * page / 1024);
}

// A copy holds the bytes as they were: its writer may cut the file short meanwhile (where a
// mapping's cut-off pages would raise SIGBUS), or make it longer. Evicting keeps them.
TEST_F(FilesTest, ACopyKeepsTheBytesItReadWhateverBecomesOfTheFile) {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  ScopedFd fd;
  const std::string bytes = WritePages(3, fd);
  auto copy = MappedFile::Copy(dir_ + "/data");
  ASSERT_TRUE(copy.ok()) << copy.status().message();
  ASSERT_EQ(::ftruncate(fd.get(), 5), 0);
  EXPECT_EQ(copy->bytes(), bytes);
  copy->Evict(0, 3 * page);
  EXPECT_EQ(copy->bytes(), bytes);
  ASSERT_TRUE(WriteAll(fd.get(), "more", 4).ok());
  auto again = MappedFile::Copy(dir_ + "/data");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->bytes(), bytes.substr(0, 5) + std::string(3 * page - 5, '\0') + "more");
  ASSERT_EQ(::ftruncate(fd.get(), 0), 0);
  auto empty = MappedFile::Copy(dir_ + "/data");
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_FALSE(MappedFile::Copy(dir_ + "/missing").ok());
  auto directory = MappedFile::Copy(dir_);
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.status().message(), dir_ + " is not a regular file");
}

// Copies into CopyBuffers: each reads the file as it is now (one that changed is read again, never
// served from an earlier copy), into a buffer no other copy holds, and a buffer is reused once the
// copy that held it is gone.
TEST_F(FilesTest, CopiesIntoKeptBuffersReadTheFileAnewAndReuseOnlyFreeBuffers) {
  ScopedFd fd;
  const std::string bytes = WritePages(2, fd);
  const std::string path = dir_ + "/data";
  CopyBuffers buffers;
  const uint8_t* first_buffer = nullptr;
  {
    auto first = MappedFile::Copy(path, &buffers);
    ASSERT_TRUE(first.ok()) << first.status().message();
    EXPECT_EQ(first->bytes(), bytes);
    first_buffer = first->data();
    // Held: a second copy takes a buffer of its own, and the first keeps its bytes.
    ASSERT_EQ(::pwrite(fd.get(), "XY", 2, 0), 2);
    auto second = MappedFile::Copy(path, &buffers);
    ASSERT_TRUE(second.ok()) << second.status().message();
    EXPECT_NE(second->data(), first_buffer);
    EXPECT_EQ(second->bytes(), "XY" + bytes.substr(2));
    EXPECT_EQ(first->bytes(), bytes);
    EXPECT_EQ(buffers.count(), 2u);
  }
  // Both free: the file, changed in place at the same size, is read again into a kept buffer.
  ASSERT_EQ(::pwrite(fd.get(), "Z", 1, 100), 1);
  std::string changed = "XY" + bytes.substr(2);
  changed[100] = 'Z';
  {
    auto third = MappedFile::Copy(path, &buffers);
    ASSERT_TRUE(third.ok()) << third.status().message();
    EXPECT_EQ(third->bytes(), changed);
    EXPECT_EQ(buffers.count(), 2u);
  }
  // Grown past a quarter more than the buffers hold: a new buffer replaces the largest free one.
  const std::string more(bytes.size(), 'm');
  ASSERT_TRUE(WriteAll(fd.get(), more.data(), more.size()).ok());
  auto grown = MappedFile::Copy(path, &buffers);
  ASSERT_TRUE(grown.ok()) << grown.status().message();
  EXPECT_EQ(grown->bytes(), changed + more);
  EXPECT_EQ(buffers.count(), 2u);
  // Cut short: the free buffer, which held a longer copy, shows only what the file holds now.
  ASSERT_EQ(::ftruncate(fd.get(), 3), 0);
  auto cut = MappedFile::Copy(path, &buffers);
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_EQ(cut->bytes(), "XY" + bytes.substr(2, 1));
  EXPECT_FALSE(MappedFile::Copy(dir_ + "/missing", &buffers).ok());
}

TEST_F(FilesTest, MappedFileOfAMissingFileSaysWhich) {
  auto file = MappedFile::Open(dir_ + "/missing");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message(), "cannot open " + dir_ + "/missing: No such file or directory");
}

TEST_F(FilesTest, MappedFileOfADirectoryIsAnError) {
  auto file = MappedFile::Open(dir_);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message(), dir_ + " is not a regular file");
}

}  // namespace
}  // namespace jitscope::base
