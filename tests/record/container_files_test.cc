// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// How the files of a process in another mount namespace are reached (record/container_files.h):
// paths resolved inside its root whatever its links say, and only its own JIT files, only
// regular ones, copied.
#include "jitscope/record/container_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::record {
namespace {

void Write(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
}

std::string ReadAll(int fd) {
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof(buffer))) > 0;) text.append(buffer, n);
  return text;
}

// A process's links are resolved as it resolves them: "/" and ".." are its root, so an absolute
// link or a climb never reaches record's own files.
TEST(ContainerFilesTest, PathsResolveInsideTheRoot) {
  test_support::TempDir tmp;
  const std::string root = tmp.path() + "/root";
  ASSERT_EQ(::mkdir(root.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((root + "/etc").c_str(), 0700), 0);
  Write(root + "/etc/hostname", "inside\n");
  ASSERT_EQ(::symlink("/etc/hostname", (root + "/absolute").c_str()), 0);
  ASSERT_EQ(::symlink("../../../../../../etc", (root + "/climb").c_str()), 0);
  const base::ScopedFd root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(root_fd);
  for (const char* path : {"/etc/hostname", "etc/hostname", "/absolute", "/climb/hostname",
                           "/../../etc/hostname", "/etc/../../etc/./hostname"}) {
    base::StatusOr<base::ScopedFd> fd = OpenInRoot(root_fd.get(), path, O_RDONLY);
    ASSERT_TRUE(fd.ok()) << path << ": " << fd.status().message();
    EXPECT_EQ(ReadAll(fd->get()), "inside\n") << path;
  }
  base::StatusOr<base::ScopedFd> missing = OpenInRoot(root_fd.get(), "/tmp", O_PATH | O_DIRECTORY);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().errno_value(), ENOENT);
  // Its /proc/self would be this process's: magic links are refused.
  base::StatusOr<base::ScopedFd> magic = OpenInRoot(root_fd.get(), "/proc/self/root", O_PATH);
  EXPECT_FALSE(magic.ok());
}

// Of a directory the process writes its JIT files into, only its own jit-<nspid> files are
// copied, into pid-<pid>/; a FIFO or a link planted under such a name is refused, not followed.
TEST(ContainerFilesTest, OnlyItsOwnRegularJitFilesAreCopied) {
  test_support::TempDir tmp;
  const std::string out = tmp.path() + "/out";
  const std::string session = tmp.path() + "/session";
  ASSERT_EQ(::mkdir(out.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(session.c_str(), 0700), 0);
  // This process stands in for the contained one, pid 7 in its namespace.
  const pid_t pid = ::getpid();
  for (const char* name : {"jit-7.jsc", "jit-7.1.jsc", "jit-7.dump", "jit-77.jsc", "jit-7x.jsc",
                           "jit-7.01.jsc", "jit-7..jsc", "jit-07.jsc", "perf-7.map"}) {
    Write(out + "/" + name, name);
  }
  ASSERT_EQ(::mkfifo((out + "/jit-7.2.jsc").c_str(), 0600), 0);
  ASSERT_EQ(::symlink("/etc/passwd", (out + "/jit-7.3.jsc").c_str()), 0);
  base::StatusOr<ContainerFiles> files =
      ContainerFiles::Open(pid, {.ns_pid = 7, .other_mounts = true, .other_root = false}, out, {});
  ASSERT_TRUE(files.ok()) << files.status().message();
  const ContainerFiles::Copied copied = files->CopyInto(session);
  const std::string dir = "pid-" + std::to_string(pid);
  EXPECT_EQ(copied.files, (std::vector<std::string>{dir + "/jit-7.1.jsc", dir + "/jit-7.dump",
                                                    dir + "/jit-7.jsc"}));
  EXPECT_EQ(copied.bytes, 11u + 10u + 9u);
  EXPECT_EQ(test_support::ReadFile(session + "/" + dir + "/jit-7.1.jsc"), "jit-7.1.jsc");
  ASSERT_EQ(copied.problems.size(), 2u) << ::testing::PrintToString(copied.problems);
  EXPECT_EQ(copied.problems[0], out + "/jit-7.2.jsc: not a regular file");
  EXPECT_TRUE(copied.problems[1].starts_with(out + "/jit-7.3.jsc: ")) << copied.problems[1];
}

}  // namespace
}  // namespace jitscope::record
