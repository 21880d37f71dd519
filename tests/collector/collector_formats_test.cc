// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// JITSCOPE_FORMATS=trace,jitdump,perfmap end to end inside the collector: configuration, sink
// creation (the perf map is skipped with a warning when its path is taken) and fan-out.
#include <unistd.h>

#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "jitdump_test_reader.h"
#include "jitprofiling.h"
#include "jitscope/collector/collector.h"
#include "jitscope/collector/config.h"
#include "jitscope/formats/jitdump_writer.h"
#include "jitscope/formats/perf_map_writer.h"
#include "jitscope/trace/reader.h"
#include "sink_test_support.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::collector {
namespace {

std::map<std::string, std::string>* fake_environment = nullptr;

const char* FakeGetenv(const char* name) {
  const auto found = fake_environment->find(name);
  return found == fake_environment->end() ? nullptr : found->second.c_str();
}

base::StatusOr<Config> ConfigFrom(std::map<std::string, std::string> variables) {
  fake_environment = &variables;
  auto config = ConfigFromEnvironment(&FakeGetenv);
  fake_environment = nullptr;
  return config;
}

using test_support::ReadFile;

TEST(CollectorFormats, ConfigNamesEveryFormatAndThePerfMapDirectory) {
  auto config = ConfigFrom(
      {{"JITSCOPE_FORMATS", "trace, jitdump,perfmap"}, {"JITSCOPE_PERF_MAP_DIR", "/var/maps"}});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(kFormatTrace | kFormatJitdump | kFormatPerfMap, config->formats);
  EXPECT_EQ("/var/maps", config->perf_map_dir);
  auto defaults = ConfigFrom({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(std::string(formats::kPerfMapDirectory), defaults->perf_map_dir);
  EXPECT_EQ(kFormatTrace, defaults->formats);
  auto unknown = ConfigFrom({{"JITSCOPE_FORMATS", "jitdump,perf-map"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ("JITSCOPE_FORMATS: unknown format 'perf-map' (known: trace, jitdump, perfmap)",
            unknown.status().message());
}

class CollectorFormatsTest : public ::testing::Test {
 protected:
  Config MakeConfig(uint32_t formats) {
    Config config;
    config.output_dir = out_.path();
    config.perf_map_dir = maps_.path();
    config.formats = formats;
    config.log_path = out_.path() + "/log";
    return config;
  }
  base::StatusOr<std::unique_ptr<Collector>> Create(const Config& config) {
    return Collector::Create(config, Log::Open(config.log_path), SystemEnvironment());
  }
  std::string PerfMapPath() const {
    return maps_.path() + "/" + formats::PerfMapFileName(static_cast<uint32_t>(::getpid()));
  }
  std::string LogText() const { return ReadFile(out_.path() + "/log"); }

  test_support::TempDir out_;
  test_support::TempDir maps_;
};

TEST_F(CollectorFormatsTest, EveryFormatGetsEveryLoad) {
  auto collector = Create(MakeConfig(kFormatTrace | kFormatJitdump | kFormatPerfMap));
  ASSERT_TRUE(collector.ok()) << collector.status().message();
  ASSERT_EQ(3u, (*collector)->sinks().size());
  unsigned char code[24] = {0x90, 0xc3};
  iJIT_Method_Load load{};
  load.method_id = 1000;
  load.method_name = const_cast<char*>("kernel");
  load.method_load_address = code;
  load.method_size = sizeof(code);
  ASSERT_EQ(1, (*collector)->Notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load));
  (*collector)->AtExit();

  const uint32_t pid = static_cast<uint32_t>(::getpid());
  auto trace = trace::TraceFile::Open(out_.path() + "/jit-" + std::to_string(pid) + ".jsc");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(2u, trace->trace().records.size());  // the load and its code bytes
  const auto& bytes = std::get<trace::CodeBytesEvent>(trace->trace().records[1].event);
  EXPECT_EQ(std::vector<uint8_t>(code, code + sizeof(code)),
            std::vector<uint8_t>(bytes.bytes.begin(), bytes.bytes.end()));
  auto dump = testing::ReadTestJitdump(out_.path() + "/" + formats::JitdumpFileName(pid));
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  ASSERT_EQ(2u, dump->records.size());
  EXPECT_EQ("kernel", dump->records[0].name);
  EXPECT_EQ(std::vector<uint8_t>(code, code + sizeof(code)), dump->records[0].code);
  EXPECT_EQ(formats::JitdumpRecordId::kCodeClose, dump->records[1].id);
  EXPECT_EQ(formats::FormatPerfMapLine(reinterpret_cast<uintptr_t>(code), sizeof(code), "kernel"),
            ReadFile(PerfMapPath()));
  const std::string log = LogText();
  EXPECT_NE(std::string::npos, log.find("writing a perf jitdump to " + out_.path())) << log;
  EXPECT_NE(std::string::npos, log.find("writing a perf map to " + PerfMapPath())) << log;
}

TEST_F(CollectorFormatsTest, ATakenPerfMapIsSkippedWithAWarning) {
  { std::ofstream(PerfMapPath()) << "1000 10 another writer\n"; }
  auto collector = Create(MakeConfig(kFormatJitdump | kFormatPerfMap));
  ASSERT_TRUE(collector.ok()) << collector.status().message();
  EXPECT_EQ(1u, (*collector)->sinks().size());
  EXPECT_NE(std::string::npos, LogText().find("no perf map: " + PerfMapPath() + " already exists"))
      << LogText();
  EXPECT_EQ("1000 10 another writer\n", ReadFile(PerfMapPath()));

  auto only_map = Create(MakeConfig(kFormatPerfMap));
  ASSERT_FALSE(only_map.ok());
  EXPECT_EQ("no output could be created", only_map.status().message());
}

}  // namespace
}  // namespace jitscope::collector
