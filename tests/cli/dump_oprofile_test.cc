// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope dump` and OProfile: the agent API's records in a native trace, and OProfile's own
// JIT dump (<pid>.dump), recognised by its magic. Exact output.
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/formats/oprofile_dump_writer.h"
#include "jitscope/trace/writer.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope {
namespace {

using test_support::RunProgram;
using test_support::TempDir;

const uint8_t kCode[] = {0x90, 0xc3};
const trace::OprofileLineEntry kLines[] = {{0x1000, 7, 0}, {0x1001, 9, 1}};
const uint32_t kEnds[] = {6, 16};

const trace::Event kEvents[] = {
    trace::OprofileOpenEvent{1},
    trace::OprofileCodeLoadEvent{1, 0x1000, 0x9000, 2, "A.f()V", {kCode, 2}},
    trace::OprofileDebugLinesEvent{1, 0x9000, 0x1000, 2, kLines, {kEnds, "A.javapkg/B.java"}},
    trace::OprofileCodeLoadEvent{1, 0x2000, 0, 64, "stub", {}},
    trace::RejectedEvent{trace::kCallOpUnloadNativeCode, trace::RejectReason::kUnknownAddress},
    trace::OprofileUnloadEvent{1, 0x1000, 2},
    trace::OprofileCloseEvent{1},
};

TEST(DumpOprofileTest, TraceRecordsOfTheAgentApi) {
  TempDir dir;
  {
    auto fd = base::CreateExclusive(dir.path(), "t.jsc");
    ASSERT_TRUE(fd.ok());
    auto writer = trace::TraceWriter::Create(std::move(fd).value(), {5, "/bin/java", 1, 2});
    ASSERT_TRUE(writer.ok());
    uint64_t time = 10;
    for (const auto& event : kEvents) (*writer)->Append(event, time++, 5);
  }
  auto dump = RunProgram({JITSCOPE_CLI, "dump", dir.path() + "/t.jsc"});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(dump.out,
            "# jitscope trace v2 pid=5 exe=\"/bin/java\" start_monotonic_ns=1\n"
            "10 tid=5 op_open_agent agent=1\n"
            "11 tid=5 op_write_native_code agent=1 addr=0x1000 size=2 code_addr=0x9000 "
            "code_bytes=2 name=\"A.f()V\"\n"
            "12 tid=5 op_write_debug_line_info agent=1 addr=0x1000 size=2 code_addr=0x9000 "
            "lines=[0x1000:7:\"A.java\" 0x1001:9:\"pkg/B.java\"]\n"
            "13 tid=5 op_write_native_code agent=1 addr=0x2000 size=64 code_addr=0x0 "
            "code_bytes=0 name=\"stub\"\n"
            "14 tid=5 REJECTED event=op_unload_native_code reason=unknown_address\n"
            "15 tid=5 op_unload_native_code agent=1 addr=0x1000 size=2\n"
            "16 tid=5 op_close_agent agent=1\n"
            "# 7 records, rejected unknown_address=1\n");

  auto json = RunProgram({JITSCOPE_CLI, "dump", "--json", dir.path() + "/t.jsc"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("{\"address\":4096,\"agent\":1,\"code\":\"90c3\",\"code_address\":36864,"
                          "\"event\":\"op_write_native_code\",\"name\":\"A.f()V\",\"size\":2,"
                          "\"tid\":5,\"timestamp\":11,\"type\":\"oprofile_code_load\"}\n"),
            std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find("\"lines\":[{\"address\":4096,\"file\":\"A.java\",\"line\":7},"
                          "{\"address\":4097,\"file\":\"pkg/B.java\",\"line\":9}]"),
            std::string::npos)
      << json.out;
}

// Writes kEvents (but the rejected one) as libopagent would, to DIR/42.dump; returns its path.
std::string WriteOprofileDump(const TempDir& dir) {
  auto fd = base::CreateExclusive(dir.path(), "42.dump");
  EXPECT_TRUE(fd.ok());
  if (!fd.ok()) return "";
  auto writer = formats::OprofileDumpWriter::Create(std::move(fd).value(),
                                                    formats::kOprofileBfdX86_64, 1700000000);
  EXPECT_TRUE(writer.ok());
  if (!writer.ok()) return "";
  uint64_t time = 1700000001;
  for (const auto& event : kEvents) {
    if (!std::holds_alternative<trace::RejectedEvent>(event)) {
      EXPECT_TRUE(writer->Write(event, time++).ok());
    }
  }
  return dir.path() + "/42.dump";
}

TEST(DumpOprofileTest, OprofileDumpsAreRecognisedByTheirMagic) {
  TempDir dir;
  const std::string path = WriteOprofileDump(dir);
  auto dump = RunProgram({JITSCOPE_CLI, "dump", path});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(dump.out,
            "# oprofile jit dump v1 target=\"elf64-x86-64\" bfd_arch=8 bfd_mach=8 "
            "timestamp=1700000000\n"
            "1700000002 CODE_LOAD vma=0x1000 code_addr=0x9000 size=2 code_bytes=2 name=\"A.f()V\"\n"
            "1700000003 DEBUG_INFO code_addr=0x9000 lines=[0x1000:7:\"A.java\" "
            "0x1001:9:\"pkg/B.java\"]\n"
            "1700000004 CODE_LOAD vma=0x2000 code_addr=0x0 size=64 code_bytes=0 name=\"stub\"\n"
            "1700000005 UNLOAD vma=0x1000\n"
            "1700000006 CLOSE\n"
            "# 5 records\n");

  auto json = RunProgram({JITSCOPE_CLI, "dump", "--json", path});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(
      json.out.substr(0, json.out.find('\n') + 1),
      "{\"bfd_arch\":8,\"bfd_mach\":8,\"bfd_target\":\"elf64-x86-64\",\"timestamp\":1700000000,"
      "\"type\":\"oprofile_header\",\"version\":1}\n");
  EXPECT_NE(json.out.find("{\"code\":\"90c3\",\"code_addr\":36864,\"code_size\":2,"
                          "\"name\":\"A.f()V\",\"offset\":48,\"timestamp\":1700000002,"
                          "\"type\":\"CODE_LOAD\",\"vma\":4096}\n"),
            std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find("{\"records\":5,\"torn_records\":0,\"type\":\"summary\"}\n"),
            std::string::npos);

  // A writer killed mid-record: what was whole is printed, the torn tail counted.
  std::ofstream(path, std::ios::app | std::ios::binary).write("\x01\0\0\0\xff\0\0\0", 8);
  dump = RunProgram({JITSCOPE_CLI, "dump", path});
  EXPECT_EQ(dump.exit_code, 0);
  EXPECT_NE(dump.out.find("# 5 records, 1 torn (the writer died mid-record)\n"), std::string::npos)
      << dump.out;
}

// A record id OProfile does not know is skipped and counted, as in the trace, and what follows
// it is read.
TEST(DumpOprofileTest, UnknownRecordsAreSkippedAndCounted) {
  TempDir dir;
  const std::string path = WriteOprofileDump(dir);
  // id 9, 24 bytes; then an UNLOAD of 0x2000 at time 1700000009.
  std::ofstream(path, std::ios::app | std::ios::binary)
      .write(
          "\x09\0\0\0\x18\0\0\0"
          "\0\0\0\0\0\0\0\0"
          "\0\0\0\0\0\0\0\0"
          "\x01\0\0\0\x18\0\0\0"
          "\x09\xf1\x53\x65\0\0\0\0"
          "\0\x20\0\0\0\0\0\0",
          48);
  auto dump = RunProgram({JITSCOPE_CLI, "dump", path});
  EXPECT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_NE(dump.out.find("1700000006 CLOSE\n"
                          "1700000009 UNLOAD vma=0x2000\n"
                          "# 6 records, 1 of unknown type skipped\n"),
            std::string::npos)
      << dump.out;
  auto json = RunProgram({JITSCOPE_CLI, "dump", "--json", path});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find(
                "{\"records\":6,\"torn_records\":0,\"type\":\"summary\",\"unknown_records\":1}\n"),
            std::string::npos)
      << json.out;
}

}  // namespace
}  // namespace jitscope
