// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libopagent.so.1 through its C ABI, as an engine uses it: return values and errno of every
// function (OProfile's guide chapter 2), the OProfile dump byte for byte, what reaches jitscope's
// trace, unload-then-reload at one address, two handles, eight threads at once, sessions, fork().
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/oprofile_dump_reader.h"
#include "jitscope/trace/reader.h"
#include "opagent.h"
#include "support/byte_builder.h"
#include "support/files.h"
#include "support/read_back.h"
#include "support/temp_dir.h"

namespace {

using jitscope::formats::OprofileDumpCodeLoad;
using jitscope::formats::OprofileDumpDebugInfo;
using jitscope::formats::OprofileDumpUnload;
using jitscope::formats::ParsedOprofileDump;
using jitscope::test_support::AsBytes;
using jitscope::test_support::ByteBuilder;
using jitscope::test_support::ReadFile;
using jitscope::test_support::TempDir;

// One line per trace record, without time and thread: what the engine's calls became.
struct Describe {
  std::string operator()(const jitscope::trace::OprofileOpenEvent& e) const {
    return "open agent=" + std::to_string(e.agent);
  }
  std::string operator()(const jitscope::trace::OprofileCloseEvent& e) const {
    return "close agent=" + std::to_string(e.agent);
  }
  std::string operator()(const jitscope::trace::OprofileCodeLoadEvent& e) const {
    char line[512];
    std::snprintf(line, sizeof(line), "load agent=%u addr=%#llx size=%u code_bytes=%zu name=%s",
                  e.agent, static_cast<unsigned long long>(e.address), e.size, e.code.size(),
                  std::string(e.name).c_str());
    return line;
  }
  std::string operator()(const jitscope::trace::OprofileDebugLinesEvent& e) const {
    char line[128];
    std::snprintf(line, sizeof(line), "lines agent=%u addr=%#llx size=%u [", e.agent,
                  static_cast<unsigned long long>(e.address), e.size);
    std::string s = line;
    for (const auto& l : e.lines) {
      std::snprintf(line, sizeof(line), "%#llx:%u:%s ", static_cast<unsigned long long>(l.address),
                    l.line, std::string(e.files[l.file]).c_str());
      s += line;
    }
    return s + "]";
  }
  std::string operator()(const jitscope::trace::OprofileUnloadEvent& e) const {
    char line[128];
    std::snprintf(line, sizeof(line), "unload agent=%u addr=%#llx size=%u", e.agent,
                  static_cast<unsigned long long>(e.address), e.size);
    return line;
  }
  std::string operator()(const jitscope::trace::RejectedEvent& e) const {
    return std::string("rejected ") + jitscope::trace::ApiEventName(e.api_event) + " " +
           jitscope::trace::RejectReasonName(e.reason);
  }
  template <typename T>
  std::string operator()(const T&) const {
    return "unexpected";
  }
};

class OpagentApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("JITSCOPE_OPAGENT_DIR", dir_.c_str(), 1);
    ::setenv("JITSCOPE_OUTPUT_DIR", dir_.c_str(), 1);
    ::setenv("JITSCOPE_LOG", (dir_ + "/log").c_str(), 1);
    ::unsetenv("JITSCOPE_FORMATS");
  }
  std::string DumpPath() const { return dir_ + "/" + std::to_string(::getpid()) + ".dump"; }
  std::string TracePath(int generation = 0) const {
    std::string name = "/jit-" + std::to_string(::getpid());
    if (generation > 0) name += "." + std::to_string(generation);
    return dir_ + name + ".jsc";
  }

  ParsedOprofileDump ParseDump() {
    dump_bytes_ = ReadFile(DumpPath());
    auto dump = jitscope::formats::ParseOprofileDump(AsBytes(dump_bytes_), DumpPath());
    EXPECT_TRUE(dump.ok()) << dump.status().message();
    if (!dump.ok()) return {};
    EXPECT_TRUE(dump->error.ok()) << dump->error.message();
    EXPECT_EQ(dump->stats.torn_records, 0u);
    return std::move(dump).value();
  }

  std::vector<std::string> TraceLines(int generation = 0) {
    auto file = jitscope::trace::TraceFile::Open(TracePath(generation));
    EXPECT_TRUE(file.ok()) << file.status().message();
    if (!file.ok()) return {};
    EXPECT_TRUE(file->trace().damage.ok());
    std::vector<std::string> lines;
    for (const auto& record : file->trace().records) {
      lines.push_back(std::visit(Describe{}, record.event));
    }
    return lines;
  }

  TempDir temp_;
  const std::string dir_ = temp_.path();
  std::string dump_bytes_;  // what ParseDump's views point into
};

// Expects `call` to fail with -1 (or NULL) and `error`.
#define EXPECT_FAILS_WITH(call, error) \
  do {                                 \
    errno = 0;                         \
    EXPECT_EQ((call), -1);             \
    EXPECT_EQ(errno, (error));         \
  } while (0)

TEST_F(OpagentApiTest, VersionIsOprofiles) {
  EXPECT_EQ(op_major_version(), 1);
  EXPECT_EQ(op_minor_version(), 0);
}

TEST_F(OpagentApiTest, OpenFailsWithErrnoAndNull) {
  ::setenv("JITSCOPE_OPAGENT_DIR", (dir_ + "/missing").c_str(), 1);
  errno = 0;
  EXPECT_EQ(op_open_agent(), nullptr);
  EXPECT_EQ(errno, ENOENT);

  const std::string file = dir_ + "/file";
  ASSERT_EQ(::close(::open(file.c_str(), O_CREAT | O_WRONLY, 0600)), 0);
  ::setenv("JITSCOPE_OPAGENT_DIR", file.c_str(), 1);
  errno = 0;
  EXPECT_EQ(op_open_agent(), nullptr);
  EXPECT_EQ(errno, ENOTDIR);

  ::setenv("JITSCOPE_OPAGENT_DIR", dir_.c_str(), 1);
  ::setenv("JITSCOPE_FORMATS", "trace,bogus", 1);
  errno = 0;
  EXPECT_EQ(op_open_agent(), nullptr);
  EXPECT_EQ(errno, EINVAL);
  ::unsetenv("JITSCOPE_FORMATS");
}

TEST_F(OpagentApiTest, ErrnoMatrix) {
  static const uint8_t code[16] = {0xc3};
  int local = 0;
  const op_agent_t garbage = &local;
  const op_agent_t odd_garbage = reinterpret_cast<op_agent_t>(uintptr_t{0x12345});
  const struct debug_line_info line = {reinterpret_cast<uintptr_t>(code), 7, "A.java"};
  const struct debug_line_info no_file = {reinterpret_cast<uintptr_t>(code), 7, nullptr};

  // Before any handle exists: bad handles are EINVAL, not a crash.
  EXPECT_FAILS_WITH(op_close_agent(nullptr), EINVAL);
  EXPECT_FAILS_WITH(op_write_native_code(garbage, "f", 1, code, 16), EINVAL);

  op_agent_t agent = op_open_agent();
  ASSERT_NE(agent, nullptr);
  const uint64_t vma = reinterpret_cast<uintptr_t>(code);

  for (const op_agent_t bad : {op_agent_t{nullptr}, garbage, odd_garbage}) {
    EXPECT_FAILS_WITH(op_close_agent(bad), EINVAL);
    EXPECT_FAILS_WITH(op_write_native_code(bad, "f", vma, code, 16), EINVAL);
    EXPECT_FAILS_WITH(op_write_debug_line_info(bad, code, 1, &line), EINVAL);
    EXPECT_FAILS_WITH(op_unload_native_code(bad, vma), EINVAL);
  }
  // Invalid arguments on a valid handle.
  EXPECT_FAILS_WITH(op_write_native_code(agent, nullptr, vma, code, 16), EINVAL);
  EXPECT_FAILS_WITH(op_write_native_code(agent, "f", 0, code, 16), EINVAL);
  EXPECT_FAILS_WITH(op_write_debug_line_info(agent, code, 1, &line), EINVAL);  // not loaded yet
  EXPECT_FAILS_WITH(op_unload_native_code(agent, vma), EINVAL);                // not loaded yet

  // Success leaves errno alone.
  errno = EXDEV;
  EXPECT_EQ(op_write_native_code(agent, "f", vma, code, 16), 0);
  EXPECT_EQ(op_write_debug_line_info(agent, code, 0, nullptr), 0);  // nothing to write
  EXPECT_EQ(op_write_debug_line_info(agent, code, 1, &line), 0);
  EXPECT_EQ(errno, EXDEV);
  EXPECT_FAILS_WITH(op_write_debug_line_info(agent, code, 1, nullptr), EINVAL);
  EXPECT_FAILS_WITH(op_write_debug_line_info(agent, code, 1, &no_file), EINVAL);
  EXPECT_FAILS_WITH(op_write_debug_line_info(agent, code + 1, 1, &line), EINVAL);
  EXPECT_EQ(op_unload_native_code(agent, vma), 0);
  EXPECT_FAILS_WITH(op_unload_native_code(agent, vma), EINVAL);  // twice
  EXPECT_EQ(op_close_agent(agent), 0);

  // A closed handle is invalid for every function.
  EXPECT_FAILS_WITH(op_close_agent(agent), EINVAL);
  EXPECT_FAILS_WITH(op_write_native_code(agent, "f", vma, code, 16), EINVAL);
  EXPECT_FAILS_WITH(op_write_debug_line_info(agent, code, 1, &line), EINVAL);
  EXPECT_FAILS_WITH(op_unload_native_code(agent, vma), EINVAL);

  // Refused calls are recorded (while the session lasted), accepted ones are in order.
  const char* bad_handle = "rejected op_close_agent invalid_handle";
  const std::vector<std::string> expected = {
      "open agent=" + std::to_string(0),  // patched below: the agent number is process-wide
      bad_handle,
      "rejected op_write_native_code invalid_handle",
      "rejected op_write_debug_line_info invalid_handle",
      "rejected op_unload_native_code invalid_handle",
      bad_handle,
      "rejected op_write_native_code invalid_handle",
      "rejected op_write_debug_line_info invalid_handle",
      "rejected op_unload_native_code invalid_handle",
      bad_handle,
      "rejected op_write_native_code invalid_handle",
      "rejected op_write_debug_line_info invalid_handle",
      "rejected op_unload_native_code invalid_handle",
      "rejected op_write_native_code null_name",
      "rejected op_write_native_code null_address",
      "rejected op_write_debug_line_info unknown_code",
      "rejected op_unload_native_code unknown_address",
  };
  const std::vector<std::string> lines = TraceLines();
  ASSERT_EQ(lines.size(), expected.size() + 8) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[0].rfind("open agent=", 0), 0u);
  for (size_t i = 1; i < expected.size(); ++i) EXPECT_EQ(lines[i], expected[i]) << i;
  const std::string agent_number = lines[0].substr(std::strlen("open agent="));
  char tail[4][160];
  std::snprintf(tail[0], sizeof(tail[0]), "load agent=%s addr=%#llx size=16 code_bytes=16 name=f",
                agent_number.c_str(), static_cast<unsigned long long>(vma));
  std::snprintf(tail[1], sizeof(tail[1]), "lines agent=%s addr=%#llx size=16 [%#llx:7:A.java ]",
                agent_number.c_str(), static_cast<unsigned long long>(vma),
                static_cast<unsigned long long>(vma));
  std::snprintf(tail[2], sizeof(tail[2]), "unload agent=%s addr=%#llx size=16",
                agent_number.c_str(), static_cast<unsigned long long>(vma));
  std::snprintf(tail[3], sizeof(tail[3]), "close agent=%s", agent_number.c_str());
  const std::vector<std::string> rest(lines.begin() + expected.size(), lines.end());
  EXPECT_EQ(rest, (std::vector<std::string>{
                      tail[0], tail[1], "rejected op_write_debug_line_info null_line_table",
                      "rejected op_write_debug_line_info null_file_name",
                      "rejected op_write_debug_line_info unknown_code", tail[2],
                      "rejected op_unload_native_code unknown_address", tail[3]}));

  // The dump has only the accepted calls.
  const ParsedOprofileDump dump = ParseDump();
  ASSERT_EQ(dump.records.size(), 4u);
  EXPECT_TRUE(std::holds_alternative<OprofileDumpCodeLoad>(dump.records[0].body));
  EXPECT_TRUE(std::holds_alternative<OprofileDumpDebugInfo>(dump.records[1].body));
  EXPECT_TRUE(std::holds_alternative<OprofileDumpUnload>(dump.records[2].body));
}

// Replaces every timestamp of the dump (header and records) by 0 after checking it lies in
// [before, after]: OProfile's clock is gettimeofday() seconds, the rest must match exactly.
void ZeroTimestamps(std::string& bytes, uint64_t before, uint64_t after) {
  auto check_and_zero = [&](size_t offset) {
    uint64_t t = 0;
    std::memcpy(&t, bytes.data() + offset, 8);
    EXPECT_GE(t, before);
    EXPECT_LE(t, after);
    std::memset(bytes.data() + offset, 0, 8);
  };
  ASSERT_GE(bytes.size(), 32u);
  check_and_zero(24);
  uint32_t header_size = 0;
  std::memcpy(&header_size, bytes.data() + 8, 4);
  for (size_t offset = header_size; offset + 16 <= bytes.size();) {
    uint32_t size = 0;
    std::memcpy(&size, bytes.data() + offset + 4, 4);
    ASSERT_GE(size, 16u);
    check_and_zero(offset + 8);
    offset += size;
  }
}

// The clock the agent stamps its dump with. Not time(): glibc reads that from the coarse clock,
// which may still be in the second before gettimeofday()'s.
uint64_t GettimeofdaySeconds() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  return static_cast<uint64_t>(tv.tv_sec);
}

TEST_F(OpagentApiTest, TheDumpIsOprofilesFormatByteForByte) {
  static const uint8_t code[5] = {0x55, 0x48, 0x89, 0xe5, 0xc3};
  const uint64_t before = GettimeofdaySeconds();
  op_agent_t agent = op_open_agent();
  ASSERT_NE(agent, nullptr);
  struct stat st {};
  ASSERT_EQ(::stat(DumpPath().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);

  const uint64_t vma = 0x7f1200003000;
  ASSERT_EQ(op_write_native_code(agent, "pkg.A.run()V", vma, code, sizeof(code)), 0);
  ASSERT_EQ(op_write_native_code(agent, "interpreter", 0x7f1200004000, nullptr, 4096), 0);
  const struct debug_line_info lines[] = {
      {vma, 12, "pkg/A.java"}, {vma + 3, 14, "pkg/B.java"}, {vma + 4, 12, "pkg/A.java"}};
  ASSERT_EQ(op_write_debug_line_info(agent, code, 3, lines), 0);
  ASSERT_EQ(op_unload_native_code(agent, vma), 0);
  ASSERT_EQ(op_close_agent(agent), 0);
  const uint64_t after = GettimeofdaySeconds();

  ByteBuilder e;
  e.U32(0x4F74496A).U32(1).U32(48).U32(8).U32(8).U32(0).U64(0).CString("elf64-x86-64").PadTo8();
  // CODE_LOAD: 40 + 13 + 5 = 58 → 64.
  e.U32(0).U32(64).U64(0).U64(vma).U64(reinterpret_cast<uintptr_t>(code)).U32(5).U32(0);
  e.CString("pkg.A.run()V").Raw({reinterpret_cast<const char*>(code), sizeof(code)}).PadTo8();
  // CODE_LOAD without code: 40 + 12 = 52 → 56.
  e.U32(0).U32(56).U64(0).U64(0x7f1200004000).U64(0).U32(4096).U32(0);
  e.CString("interpreter").PadTo8();
  // DEBUG_INFO: 32 + 3 × (12 + 11) = 101 → 104.
  e.U32(3).U32(104).U64(0).U64(reinterpret_cast<uintptr_t>(code)).U32(3).U32(0);
  e.U64(vma).U32(12).CString("pkg/A.java");
  e.U64(vma + 3).U32(14).CString("pkg/B.java");
  e.U64(vma + 4).U32(12).CString("pkg/A.java").PadTo8();
  e.U32(1).U32(24).U64(0).U64(vma);  // UNLOAD
  e.U32(2).U32(16).U64(0);           // CLOSE

  std::string actual = ReadFile(DumpPath());
  ZeroTimestamps(actual, before, after);
  EXPECT_EQ(actual, e.str());
}

TEST_F(OpagentApiTest, UnloadThenReloadAtTheSameAddressIsANewSymbol) {
  static uint8_t code[32] = {0x90};
  const uint64_t vma = reinterpret_cast<uintptr_t>(code);
  op_agent_t agent = op_open_agent();
  ASSERT_NE(agent, nullptr);
  const struct debug_line_info first_line = {vma, 1, "First.java"};
  const struct debug_line_info second_line = {vma + 8, 2, "Second.java"};
  ASSERT_EQ(op_write_native_code(agent, "first", vma, code, 32), 0);
  ASSERT_EQ(op_write_debug_line_info(agent, code, 1, &first_line), 0);
  ASSERT_EQ(op_unload_native_code(agent, vma), 0);
  EXPECT_FAILS_WITH(op_write_debug_line_info(agent, code, 1, &first_line), EINVAL);  // gone
  ASSERT_EQ(op_write_native_code(agent, "second", vma, code, 16), 0);
  ASSERT_EQ(op_write_debug_line_info(agent, code, 1, &second_line), 0);
  ASSERT_EQ(op_unload_native_code(agent, vma), 0);
  EXPECT_FAILS_WITH(op_unload_native_code(agent, vma), EINVAL);
  ASSERT_EQ(op_close_agent(agent), 0);

  std::vector<std::string> lines = TraceLines();
  ASSERT_EQ(lines.size(), 10u);
  const std::string a = lines[0].substr(std::strlen("open agent="));
  char addr[32];
  std::snprintf(addr, sizeof(addr), "%#llx", static_cast<unsigned long long>(vma));
  char line8[32];
  std::snprintf(line8, sizeof(line8), "%#llx", static_cast<unsigned long long>(vma + 8));
  const std::string at = std::string(" addr=") + addr;
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "open agent=" + a,
                       "load agent=" + a + at + " size=32 code_bytes=32 name=first",
                       "lines agent=" + a + at + " size=32 [" + addr + ":1:First.java ]",
                       "unload agent=" + a + at + " size=32",
                       "rejected op_write_debug_line_info unknown_code",
                       "load agent=" + a + at + " size=16 code_bytes=16 name=second",
                       "lines agent=" + a + at + " size=16 [" + line8 + ":2:Second.java ]",
                       "unload agent=" + a + at + " size=16",
                       "rejected op_unload_native_code unknown_address",
                       "close agent=" + a,
                   }));
  const ParsedOprofileDump dump = ParseDump();
  ASSERT_EQ(dump.records.size(), 7u);
  EXPECT_EQ(std::get<OprofileDumpCodeLoad>(dump.records[0].body).name, "first");
  EXPECT_EQ(std::get<OprofileDumpUnload>(dump.records[2].body).vma, vma);
  EXPECT_EQ(std::get<OprofileDumpCodeLoad>(dump.records[3].body).name, "second");
  EXPECT_EQ(std::get<OprofileDumpDebugInfo>(dump.records[4].body).lines[0].file, "Second.java");
}

TEST_F(OpagentApiTest, TwoHandlesShareOneConsistentSession) {
  static uint8_t code_a[8], code_b[8];
  op_agent_t a = op_open_agent();
  op_agent_t b = op_open_agent();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(a, b);
  ASSERT_EQ(op_write_native_code(a, "engine_a", reinterpret_cast<uintptr_t>(code_a), code_a, 8), 0);
  ASSERT_EQ(op_write_native_code(b, "engine_b", reinterpret_cast<uintptr_t>(code_b), code_b, 8), 0);
  ASSERT_EQ(op_close_agent(a), 0);
  // b still works after a closed; a does not.
  EXPECT_EQ(op_unload_native_code(b, reinterpret_cast<uintptr_t>(code_b)), 0);
  EXPECT_FAILS_WITH(op_unload_native_code(a, reinterpret_cast<uintptr_t>(code_a)), EINVAL);
  ASSERT_EQ(op_close_agent(b), 0);

  const std::vector<std::string> lines = TraceLines();
  ASSERT_EQ(lines.size(), 8u) << ::testing::PrintToString(lines);
  const unsigned first = std::stoul(lines[0].substr(std::strlen("open agent=")));
  EXPECT_EQ(lines[1], "open agent=" + std::to_string(first + 1));
  EXPECT_EQ(lines[4], "close agent=" + std::to_string(first));
  EXPECT_EQ(lines[7], "close agent=" + std::to_string(first + 1));
  const ParsedOprofileDump dump = ParseDump();
  ASSERT_EQ(dump.records.size(), 5u);  // two loads, a CLOSE, the unload, a CLOSE
  EXPECT_TRUE(std::holds_alternative<jitscope::formats::OprofileDumpClose>(dump.records[2].body));
  EXPECT_TRUE(std::holds_alternative<jitscope::formats::OprofileDumpClose>(dump.records[4].body));
}

TEST_F(OpagentApiTest, EightThreadsWriteConcurrently) {
  constexpr int kThreads = 8;
  constexpr int kMethods = 300;
  static uint8_t code[64] = {0xc3};
  op_agent_t agent = op_open_agent();
  ASSERT_NE(agent, nullptr);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kMethods; ++i) {
        const uint64_t vma = 0x7f0000000000 + (uint64_t(t) << 24) + uint64_t(i) * 0x100;
        const std::string name = "t" + std::to_string(t) + ".m" + std::to_string(i);
        const struct debug_line_info lines[] = {{vma, unsigned(i + 1), "T.java"},
                                                {vma + 8, unsigned(i + 2), "T.java"}};
        if (op_write_native_code(agent, name.c_str(), vma, code, sizeof(code)) != 0) ++failures;
        // The code pointer is shared by all loads, so the lines name their code by address.
        if (op_write_debug_line_info(agent, reinterpret_cast<void*>(vma), 2, lines) != 0) {
          ++failures;
        }
        if (i % 2 == 1 && op_unload_native_code(agent, vma) != 0) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(op_close_agent(agent), 0);
  EXPECT_EQ(failures.load(), 0);

  // Every record whole, each thread's records in its own order.
  const ParsedOprofileDump dump = ParseDump();
  size_t loads = 0, infos = 0, unloads = 0;
  std::vector<int> next(kThreads, 0);
  for (const auto& record : dump.records) {
    if (const auto* load = std::get_if<OprofileDumpCodeLoad>(&record.body)) {
      ++loads;
      int t = 0, i = 0;
      ASSERT_EQ(std::sscanf(std::string(load->name).c_str(), "t%d.m%d", &t, &i), 2);
      ASSERT_TRUE(t >= 0 && t < kThreads);
      EXPECT_EQ(i, next[t]++);
      EXPECT_EQ(load->vma, 0x7f0000000000 + (uint64_t(t) << 24) + uint64_t(i) * 0x100);
      EXPECT_EQ(load->code.size(), sizeof(code));
    } else if (const auto* info = std::get_if<OprofileDumpDebugInfo>(&record.body)) {
      ++infos;
      ASSERT_EQ(info->lines.size(), 2u);
      EXPECT_EQ(info->lines[1].line, info->lines[0].line + 1);
    } else if (std::holds_alternative<OprofileDumpUnload>(record.body)) {
      ++unloads;
    }
  }
  EXPECT_EQ(loads, size_t{kThreads * kMethods});
  EXPECT_EQ(infos, size_t{kThreads * kMethods});
  EXPECT_EQ(unloads, size_t{kThreads * kMethods / 2});

  size_t trace_loads = 0, trace_lines = 0, trace_unloads = 0, rejected = 0;
  for (const std::string& line : TraceLines()) {
    trace_loads += line.rfind("load ", 0) == 0;
    trace_lines += line.rfind("lines ", 0) == 0;
    trace_unloads += line.rfind("unload ", 0) == 0;
    rejected += line.rfind("rejected ", 0) == 0;
  }
  EXPECT_EQ(trace_loads, size_t{kThreads * kMethods});
  EXPECT_EQ(trace_lines, size_t{kThreads * kMethods});
  EXPECT_EQ(trace_unloads, size_t{kThreads * kMethods / 2});
  EXPECT_EQ(rejected, 0u);
}

TEST_F(OpagentApiTest, ALaterSessionReplacesTheDumpAndStartsANewTrace) {
  static uint8_t code[8];
  op_agent_t first = op_open_agent();
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(op_write_native_code(first, "old", reinterpret_cast<uintptr_t>(code), code, 8), 0);
  ASSERT_EQ(op_close_agent(first), 0);  // the last handle: the session ends, files are closed
  op_agent_t second = op_open_agent();
  ASSERT_NE(second, nullptr);
  EXPECT_FAILS_WITH(op_close_agent(first), EINVAL);
  ASSERT_EQ(op_write_native_code(second, "new", reinterpret_cast<uintptr_t>(code), code, 8), 0);
  ASSERT_EQ(op_close_agent(second), 0);

  const ParsedOprofileDump dump = ParseDump();
  ASSERT_EQ(dump.records.size(), 2u);
  EXPECT_EQ(std::get<OprofileDumpCodeLoad>(dump.records[0].body).name, "new");
  EXPECT_EQ(TraceLines(0).size(), 3u);  // open, load "old", close
  const std::vector<std::string> second_trace = TraceLines(1);
  ASSERT_EQ(second_trace.size(), 4u);  // open, a refused close, load "new", close
  EXPECT_EQ(second_trace[1], "rejected op_close_agent invalid_handle");
}

// The last handle closed is a clean end: the trace is at most 64 KiB larger than its records,
// in size and on disk.
TEST_F(OpagentApiTest, ClosingTheLastHandleCutsTheTraceAfterItsRecords) {
  static uint8_t code[256];
  op_agent_t agent = op_open_agent();
  ASSERT_NE(agent, nullptr);
  for (uintptr_t i = 0; i < 2000; ++i) {  // about 0.6 MiB of records
    ASSERT_EQ(op_write_native_code(agent, "method", reinterpret_cast<uintptr_t>(code) + i * 4096,
                                   code, sizeof(code)),
              0);
  }
  ASSERT_EQ(op_close_agent(agent), 0);
  const jitscope::test_support::TraceSpace space =
      jitscope::test_support::SpaceOfTrace(TracePath());
  EXPECT_GT(space.records, 2000u * 256);
  EXPECT_LE(space.size, space.records + 64 * 1024);
  EXPECT_LE(space.disk, space.records + 64 * 1024);
}

TEST_F(OpagentApiTest, AForkedChildNeverWritesIntoItsParentsFiles) {
  static uint8_t code[8];
  op_agent_t agent = op_open_agent();
  ASSERT_NE(agent, nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The parent's handle is dead here; a handle of the child's own works and writes its own dump.
    int status = 0;
    errno = 0;
    if (op_write_native_code(agent, "child", 1, nullptr, 8) != -1 || errno != EINVAL) status |= 1;
    op_agent_t own = op_open_agent();
    if (own == nullptr) status |= 2;
    if (own != nullptr && op_write_native_code(own, "child", 1, nullptr, 8) != 0) status |= 4;
    if (own != nullptr && op_close_agent(own) != 0) status |= 8;
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ASSERT_EQ(op_write_native_code(agent, "parent", reinterpret_cast<uintptr_t>(code), code, 8), 0);
  ASSERT_EQ(op_close_agent(agent), 0);

  const ParsedOprofileDump dump = ParseDump();
  ASSERT_EQ(dump.records.size(), 2u);
  EXPECT_EQ(std::get<OprofileDumpCodeLoad>(dump.records[0].body).name, "parent");
  const std::string child_dump = ReadFile(dir_ + "/" + std::to_string(child) + ".dump");
  auto parsed = jitscope::formats::ParseOprofileDump(AsBytes(child_dump), "child.dump");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->records.size(), 2u);
  EXPECT_EQ(std::get<OprofileDumpCodeLoad>(parsed->records[0].body).name, "child");
}

}  // namespace
