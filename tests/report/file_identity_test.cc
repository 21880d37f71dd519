// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// FileIdentity: a mapping's file is used only while its build id is the one recorded.
#include "jitscope/report/file_identity.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "support/process.h"

namespace jitscope::report {
namespace {

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
  formats::Mapping mapping;
  mapping.filename = self;
  EXPECT_TRUE(files.Unchanged(mapping)) << "no build id recorded: taken as it is";
  mapping.build_id = id;
  EXPECT_TRUE(files.Unchanged(mapping));
  EXPECT_TRUE(files.replaced().empty());
  mapping.build_id = std::string(40, '0');
  EXPECT_FALSE(files.Unchanged(mapping));
  EXPECT_FALSE(files.Unchanged(mapping));
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
  formats::Mapping mapping;
  mapping.filename = self;
  mapping.pid = 7;
  EXPECT_TRUE(files.Unchanged(mapping)) << "a process in record's root";
  mapping.pid = 42;
  EXPECT_FALSE(files.Unchanged(mapping));
  EXPECT_FALSE(files.Unchanged(mapping));
  EXPECT_EQ(files.unchecked(), std::vector<std::string>{self + " (pid 42)"}) << "each file once";
  mapping.build_id = BuildIdOfFile(self);
  EXPECT_TRUE(files.Unchanged(mapping));
  EXPECT_TRUE(files.replaced().empty());
}

}  // namespace
}  // namespace jitscope::report
