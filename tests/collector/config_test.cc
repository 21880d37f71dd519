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
  EXPECT_EQ(config->max_trace_size, uint64_t{1} << 30);
}

TEST(ConfigTest, MaxSizeTakesBytesAndBinarySuffixes) {
  const std::map<std::string, uint64_t> sizes = {{"0", 0},
                                                 {"1048576", 1048576},
                                                 {"1024K", 1048576},
                                                 {"64M", 64ull << 20},
                                                 {"64m", 64ull << 20},
                                                 {"2G", 2ull << 30}};
  for (const auto& [text, bytes] : sizes) {
    environment = {{"JITSCOPE_MAX_SIZE", text}};
    auto config = ConfigFromEnvironment(&FakeGetEnv);
    ASSERT_TRUE(config.ok()) << text << ": " << config.status().message();
    EXPECT_EQ(config->max_trace_size, bytes) << text;
  }
}

TEST(ConfigTest, MaxSizeRefusesWhatIsNotASizeOrTooSmall) {
  const std::map<std::string, std::string> errors = {
      {"64MB", "JITSCOPE_MAX_SIZE must be a size such as 256M, 1G or 0, not '64MB'"},
      {"M", "JITSCOPE_MAX_SIZE must be a size such as 256M, 1G or 0, not 'M'"},
      {"-1", "JITSCOPE_MAX_SIZE must be a size such as 256M, 1G or 0, not '-1'"},
      {"99999999999999999999",
       "JITSCOPE_MAX_SIZE must be a size such as 256M, 1G or 0, not "
       "'99999999999999999999'"},
      {"17179869184G",
       "JITSCOPE_MAX_SIZE must be a size such as 256M, 1G or 0, not "
       "'17179869184G'"},
      {"1023K", "JITSCOPE_MAX_SIZE must be 0 (unbounded) or at least 1M, not '1023K'"}};
  for (const auto& [text, message] : errors) {
    environment = {{"JITSCOPE_MAX_SIZE", text}};
    auto config = ConfigFromEnvironment(&FakeGetEnv);
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.status().message(), message);
  }
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
