// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/config.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

namespace jitscope::collector {
namespace {

std::map<std::string, std::string> environment;
const char* FakeGetEnv(const char* name) {
  auto it = environment.find(name);
  return it == environment.end() ? nullptr : it->second.c_str();
}

TEST(ConfigTest, Defaults) {
  environment = {};
  auto config = ConfigFromEnvironment(&FakeGetEnv);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->output_dir, ".");
  EXPECT_EQ(config->formats, kFormatTrace);
  EXPECT_EQ(config->log_path, "");
}

TEST(ConfigTest, ReadsEveryVariable) {
  environment = {{"JITSCOPE_OUTPUT_DIR", "/out"},
                 {"JITSCOPE_FORMATS", " trace ,trace"},
                 {"JITSCOPE_LOG", "/tmp/log"},
                 {"JITSCOPE_CODE_BYTES", "0"}};
  auto config = ConfigFromEnvironment(&FakeGetEnv);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->output_dir, "/out");
  EXPECT_EQ(config->formats, kFormatTrace);
  EXPECT_EQ(config->log_path, "/tmp/log");
  EXPECT_FALSE(config->code_bytes);
}

TEST(ConfigTest, CodeBytesAreKeptUnlessSwitchedOffExactly) {
  environment = {};
  EXPECT_TRUE(ConfigFromEnvironment(&FakeGetEnv)->code_bytes);
  environment = {{"JITSCOPE_CODE_BYTES", "1"}};
  EXPECT_TRUE(ConfigFromEnvironment(&FakeGetEnv)->code_bytes);
  environment = {{"JITSCOPE_CODE_BYTES", "no"}};
  auto config = ConfigFromEnvironment(&FakeGetEnv);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), "JITSCOPE_CODE_BYTES must be 0 or 1, not 'no'");
}

TEST(ConfigTest, EmptyValuesMeanDefaults) {
  environment = {{"JITSCOPE_OUTPUT_DIR", ""}, {"JITSCOPE_FORMATS", ""}};
  auto config = ConfigFromEnvironment(&FakeGetEnv);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->output_dir, ".");
  EXPECT_EQ(config->formats, kFormatTrace);
}

TEST(ConfigTest, UnknownFormatIsAClearError) {
  environment = {{"JITSCOPE_FORMATS", "trace,vtune"}};
  auto config = ConfigFromEnvironment(&FakeGetEnv);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            "JITSCOPE_FORMATS: unknown format 'vtune' (known: trace, jitdump, perfmap)");
}

TEST(ConfigTest, AListOfOnlyCommasNamesNoFormat) {
  environment = {{"JITSCOPE_FORMATS", " , ,"}};
  auto config = ConfigFromEnvironment(&FakeGetEnv);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), "JITSCOPE_FORMATS names no format");
}

}  // namespace
}  // namespace jitscope::collector
