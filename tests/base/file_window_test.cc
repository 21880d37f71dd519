// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/base/file_window.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "support/temp_dir.h"

namespace jitscope::base {
namespace {

class FileWindowTest : public ::testing::Test {
 protected:
  // A file of `size` bytes, each a function of its offset, open for reading.
  ScopedFd Write(size_t size) {
    bytes_.resize(size);
    for (size_t i = 0; i < size; ++i) bytes_[i] = static_cast<char>(i * 7 + i / 4093);
    auto fd = CreateExclusive(tmp_.path(), "data");
    EXPECT_TRUE(fd.ok());
    EXPECT_TRUE(WriteAll(fd->get(), bytes_.data(), bytes_.size()).ok());
    return ScopedFd(::open((tmp_.path() + "/data").c_str(), O_RDONLY | O_CLOEXEC));
  }
  std::string Expected(uint64_t offset, size_t size) const { return bytes_.substr(offset, size); }

  test_support::TempDir tmp_;
  std::string bytes_;
};

// A pass that goes forward, releasing behind it, reads every byte right with a buffer of a
// read-ahead and a record (two read-aheads), however long the file.
TEST_F(FileWindowTest, AForwardPassReadsEveryByteInABufferOfAReadAhead) {
  const size_t size = 5 * FileWindow::kReadAhead + 12345;
  ScopedFd fd = Write(size);
  FileWindow window(fd.get(), size);
  for (uint64_t offset = 0; offset < size;) {
    const size_t length = std::min<size_t>(size - offset, 1000 + offset % 9000);
    const auto read = window.Read(offset, length);
    ASSERT_TRUE(read) << offset;
    ASSERT_EQ(*read, Expected(offset, length)) << offset;
    offset += length;
    window.Release(offset);
  }
  // (Grown by doubling: a read-ahead and a record took two.)
  EXPECT_LE(window.capacity(), 2 * FileWindow::kReadAhead);
}

// Time order is nearly file order: reads that go back and forth within what is not released are
// served from the buffer, which holds that span; a read before the buffer is served alone.
TEST_F(FileWindowTest, ReadsGoBackWithinWhatIsNotReleasedAndBeforeItAlone) {
  const size_t size = 4 * FileWindow::kReadAhead;
  ScopedFd fd = Write(size);
  FileWindow window(fd.get(), size);
  const uint64_t far = 3 * FileWindow::kReadAhead;
  ASSERT_EQ(window.Read(100, 50), Expected(100, 50));
  ASSERT_EQ(window.Read(far, 50), Expected(far, 50));
  ASSERT_EQ(window.Read(200, 50), Expected(200, 50));
  EXPECT_GE(window.capacity(), far);  // all of it kept: nothing was released
  window.Release(far - 10);
  ASSERT_EQ(window.Read(size - 20, 20), Expected(size - 20, 20));
  EXPECT_EQ(window.Read(300, 8), Expected(300, 8));  // released: read aside
  EXPECT_EQ(window.Read(far - 10, 30), Expected(far - 10, 30));
}

TEST_F(FileWindowTest, ReadsPastTheEndOrOfBytesCutOffFail) {
  const size_t size = 3 * FileWindow::kReadAhead;
  ScopedFd fd = Write(size);
  FileWindow window(fd.get(), size);
  EXPECT_EQ(window.Read(size - 8, 8), Expected(size - 8, 8));
  EXPECT_FALSE(window.Read(size - 8, 9));
  EXPECT_FALSE(window.Read(size + 1, 0));
  EXPECT_FALSE(window.Read(~uint64_t{0}, 2));
  EXPECT_EQ(window.Read(size, 0), "");
  // The file is cut short under the window: what it holds still reads, the rest fails.
  FileWindow cut(fd.get(), size);
  ASSERT_EQ(cut.Read(0, 10), Expected(0, 10));
  ASSERT_EQ(::truncate((tmp_.path() + "/data").c_str(), 2 * FileWindow::kReadAhead), 0);
  EXPECT_EQ(cut.Read(FileWindow::kReadAhead - 10, 10), Expected(FileWindow::kReadAhead - 10, 10));
  EXPECT_FALSE(cut.Read(2 * FileWindow::kReadAhead + 5, 10));
  EXPECT_FALSE(cut.Read(2 * FileWindow::kReadAhead - 5, 10));
  cut.Release(2 * FileWindow::kReadAhead);
  EXPECT_FALSE(cut.Read(0, 2 * FileWindow::kReadAhead + 1));  // read aside, past the cut
}

}  // namespace
}  // namespace jitscope::base
