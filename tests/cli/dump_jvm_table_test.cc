// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope dump` of the JVMTI agent's JVM table (jvm-<pid>.jsm), recognised by its magic: one
// line (or JSON object) per record in file order. Exact output.
#include <string>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/jvm_table_builder.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope {
namespace {

using test_support::JvmTableBuilder;
using test_support::RunProgram;
using test_support::TempDir;

TEST(DumpJvmTableTest, OneLinePerRecordInFileOrder) {
  TempDir dir;
  JvmTableBuilder table(42, 5);
  table.AddMethod(
      0, {0x1000, 0x900, 12, false, "pkg.Work", "run", "(I)V", "pkg/Work.java", {{0, 7}, {4, 8}}});
  table.AddMethod(20, {0x2000, 0x1900, 0, true, "java.lang.System", "nanoTime", "()J", "", {}});
  table.AddCompiled(30, 0x7000, 0x40, {{0x7010, {{0x2000, 3}, {0x1000, 4}}}});
  table.AddEnd(40, 0x1000, 35);
  const std::string path = dir.path() + "/jvm-42.jsm";
  ASSERT_TRUE(test_support::WriteFile(path, table.bytes() + "torn"));
  auto dump = RunProgram({JITSCOPE_CLI, "dump", path});
  EXPECT_EQ(dump.exit_code, 1) << "the torn last record is damage";
  EXPECT_EQ(dump.out,
            "# jitscope JVM table v1 pid=42 start_ns=5\n"
            "0 METHOD method=0x1000 until=35 code=0x900 size=12 class=\"pkg.Work\" name=\"run\" "
            "signature=\"(I)V\" file=\"pkg/Work.java\" lines=[0:7 4:8]\n"
            "20 METHOD method=0x2000 code=0x1900 size=0 native=1 class=\"java.lang.System\" "
            "name=\"nanoTime\" signature=\"()J\" file=- lines=[]\n"
            "30 COMPILED code=0x7000 size=64 pcs=[0x7010:\"0x2000@3,0x1000@4\"]\n"
            "40 END method=0x1000 valid_until=35 matched=1\n"
            "# 4 records\n");
  EXPECT_NE(dump.err.find("jvm-42.jsm: offset 352: a record cut short"), std::string::npos)
      << dump.err;

  ASSERT_TRUE(test_support::WriteFile(path, table.bytes()));
  dump = RunProgram({JITSCOPE_CLI, "dump", "--json", path});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_EQ(dump.out.substr(0, dump.out.find('\n')),
            "{\"pid\":42,\"start_ns\":5,\"type\":\"jvm_table_header\",\"version\":1}");
  EXPECT_NE(dump.out.find("{\"matched\":1,\"method\":4096,\"offset\":"), std::string::npos)
      << dump.out;
  EXPECT_NE(dump.out.find("{\"records\":4,\"type\":\"summary\",\"unmatched_ends\":0}"),
            std::string::npos)
      << dump.out;
}

}  // namespace
}  // namespace jitscope
