// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// FileIdentity: a mapping's file is used only while its build id is the one recorded.
#include "jitscope/walk/file_identity.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "jitscope/session/elf_build_id.h"
#include "support/process.h"

namespace jitscope::walk {
namespace {

using session::BuildIdOfFile;

// readelf's view of a file's build id.
std::string ReadelfBuildId(const std::string& path) {
  const test_support::ProcessResult run = test_support::RunProgram({"readelf", "-n", path});
  EXPECT_TRUE(run.ok()) << run.Describe();
  const std::string marker = "Build ID: ";
  const size_t at = run.out.find(marker);
  if (at == std::string::npos) return "";
  return run.out.substr(at + marker.size(), run.out.find('\n', at) - at - marker.size());
}

TEST(FileIdentityTest, AFileIsUsedWhileItsBuildIdIsTheRecordedOne) {
  // This test program (the path itself: /proc/self/exe would be readelf's own in readelf).
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string id = BuildIdOfFile(self);
  ASSERT_EQ(id.size(), 40u) << "this test program has a GNU build id";
  EXPECT_EQ(id, ReadelfBuildId(self));
  EXPECT_EQ(BuildIdOfFile("/nonexistent"), "");

  FileIdentity files;
  session::Mapping mapping;
  mapping.filename = self;
  EXPECT_EQ(files.FileOf(mapping), &mapping.filename) << "no build id recorded: taken as it is";
  mapping.build_id = id;
  EXPECT_EQ(files.FileOf(mapping), &mapping.filename);
  EXPECT_TRUE(files.replaced().empty());
  mapping.build_id = std::string(40, '0');
  EXPECT_EQ(files.FileOf(mapping), nullptr);
  EXPECT_EQ(files.FileOf(mapping), nullptr);
  ASSERT_EQ(files.replaced().size(), 1u) << "each file once";
  EXPECT_EQ(files.replaced()[0].path, self);
  EXPECT_EQ(files.replaced()[0].recorded, std::string(40, '0'));
  EXPECT_EQ(files.replaced()[0].now, id);
}

// A process that ran in a root directory of its own (a container): a path names maybe another
// file here, so without a build id its file is not used; with one, as for any process.
TEST(FileIdentityTest, WithoutABuildIdAContainersFileIsNotUsed) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  FileIdentity files;
  files.SetOtherRoots({42});
  session::Mapping mapping;
  mapping.filename = self;
  mapping.pid = 7;
  EXPECT_EQ(files.FileOf(mapping), &mapping.filename) << "a process in record's root";
  mapping.pid = 42;
  EXPECT_EQ(files.FileOf(mapping), nullptr);
  EXPECT_EQ(files.FileOf(mapping), nullptr);
  EXPECT_EQ(files.unchecked(), std::vector<std::string>{self + " (pid 42)"}) << "each file once";
  mapping.build_id = BuildIdOfFile(self);
  EXPECT_EQ(files.FileOf(mapping), &mapping.filename);
  EXPECT_TRUE(files.replaced().empty());
}

// A container's file that record copied is read from its copy, for that process only, with or
// without a build id; a build id recorded is checked against the copy's, and a copy that is not
// that file is not read.
TEST(FileIdentityTest, AContainersCopiedFileIsReadFromItsCopy) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string id = BuildIdOfFile(self);
  FileIdentity files;
  files.SetOtherRoots({42, 43});
  files.SetCopies({{{42, "/usr/bin/app"}, self}, {{43, "/usr/bin/other"}, "/nonexistent"}});
  session::Mapping mapping;
  mapping.filename = "/usr/bin/app";
  mapping.pid = 42;
  const std::string* file = files.FileOf(mapping);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(*file, self) << "no build id recorded: the copy, as it is";
  mapping.build_id = id;
  file = files.FileOf(mapping);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(*file, self) << "the copy's build id is the recorded one";
  mapping.build_id = std::string(40, 'f');
  EXPECT_EQ(files.FileOf(mapping), nullptr);
  ASSERT_EQ(files.replaced().size(), 1u);
  EXPECT_EQ(files.replaced()[0].path, self) << "the file read, the copy";
  EXPECT_EQ(files.replaced()[0].now, id);
  mapping.build_id.clear();
  mapping.pid = 43;
  EXPECT_EQ(files.FileOf(mapping), nullptr) << "another process's path was not copied";
  mapping.filename = "/usr/bin/other";
  file = files.FileOf(mapping);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(*file, "/nonexistent") << "taken as it is: the symbolizer says it is unreadable";
  EXPECT_EQ(files.unchecked(), std::vector<std::string>{"/usr/bin/app (pid 43)"})
      << "only a file neither copied nor with a build id";
}

}  // namespace
}  // namespace jitscope::walk
