// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The JVM table's reader (formats/jvm_table.h) on tables built record by record as the JVMTI
// agent writes them (support/jvm_table_builder.h), whole, cut short and damaged, and on the real
// table of the fuzzer's seeds.
#include "jitscope/formats/jvm_table.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "support/jvm_table_builder.h"

namespace jitscope::formats {
namespace {

using test_support::JvmTableBuilder;

std::span<const uint8_t> Span(const std::string& bytes) {
  return {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
}

JvmTableBuilder::Method WorkRun() {
  return {0x7f0000001000, 0x7f0000000f00,  46,
          false,          "pkg.Work",      "run",
          "(JI)J",        "pkg/Work.java", {{0, 11}, {4, 12}, {20, 14}}};
}

TEST(JvmTableTest, ReadsMethodsWithTheirLinesAndNames) {
  JvmTableBuilder table(4242, 77);
  JvmTableBuilder::Method native{0x7f0000002000, 0x7f0000001f00, 0,  true, "java.lang.System",
                                 "nanoTime",     "()J",          "", {}};
  table.AddMethod(0, WorkRun()).AddMethod(500, native);
  const auto parsed = ParseJvmTable(Span(table.bytes()), "jvm-4242.jsm");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->error.ok()) << parsed->error.message();
  EXPECT_EQ(parsed->pid, 4242u);
  EXPECT_EQ(parsed->start_ns, 77u);
  ASSERT_EQ(parsed->methods.size(), 2u);
  const JvmMethod& run = parsed->methods[0];
  EXPECT_EQ(run.method, 0x7f0000001000u);
  EXPECT_EQ(run.since_ns, 0u);
  EXPECT_EQ(run.until_ns, kJvmForever);
  EXPECT_EQ(run.code_base, 0x7f0000000f00u);
  EXPECT_EQ(run.code_size, 46u);
  EXPECT_FALSE(run.native);
  EXPECT_EQ(run.class_name, "pkg.Work");
  EXPECT_EQ(run.name, "run");
  EXPECT_EQ(run.signature, "(JI)J");
  EXPECT_EQ(run.file, "pkg/Work.java");
  EXPECT_EQ(run.lines, (std::vector<JvmLine>{{0, 11}, {4, 12}, {20, 14}}));
  const JvmMethod& nano = parsed->methods[1];
  EXPECT_TRUE(nano.native);
  EXPECT_EQ(nano.since_ns, 500u);
  EXPECT_EQ(nano.file, "");
  EXPECT_TRUE(nano.lines.empty());
}

// An END closes the latest entry of its Method* that began before it, at the last time the agent
// saw the method there; a later entry of the same Method* (another method, after a class was
// unloaded and its memory reused) is left open.
TEST(JvmTableTest, EndsCloseTheEntryTheyFollow) {
  JvmTableBuilder::Method reused = WorkRun();
  reused.class_name = "other.Thing";
  JvmTableBuilder table(1);
  table.AddMethod(100, WorkRun()).AddEnd(900, WorkRun().method, 700).AddMethod(950, reused);
  table.AddEnd(960, 0xdead, 950);  // a Method* the table never held
  const auto parsed = ParseJvmTable(Span(table.bytes()), "jvm-1.jsm");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->methods.size(), 2u);
  EXPECT_EQ(parsed->methods[0].until_ns, 700u);
  EXPECT_EQ(parsed->methods[1].until_ns, kJvmForever);
  EXPECT_EQ(parsed->unmatched_ends, 1u);
}

// The agent ends what a check found gone before it names what the check found new, both at the
// check's time: a Method* freed by one redefinition and holding another method after the next
// begins its new entry at its old entry's END's time, and that END still closes the old one.
TEST(JvmTableTest, AnEndClosesAnEntryReadBeforeItNotOneBegunAtItsTime) {
  JvmTableBuilder::Method reused = WorkRun();
  reused.name = "other";
  JvmTableBuilder table(1);
  table.AddMethod(100, WorkRun()).AddEnd(900, WorkRun().method, 800).AddMethod(900, reused);
  const auto parsed = ParseJvmTable(Span(table.bytes()), "jvm-1.jsm");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->methods.size(), 2u);
  EXPECT_EQ(parsed->methods[0].until_ns, 800u);
  EXPECT_EQ(parsed->methods[1].since_ns, 900u);
  EXPECT_EQ(parsed->methods[1].until_ns, kJvmForever);
  EXPECT_EQ(parsed->unmatched_ends, 0u);
}

TEST(JvmTableTest, ReadsCompiledCodesInlineScopes) {
  JvmTableBuilder table(1);
  table.AddCompiled(2000, 0x7f1000000000, 0x200,
                    {{0x7f1000000040, {{0x10, 7}, {0x20, 3}}}, {0x7f1000000100, {{0x20, 9}}}});
  const auto parsed = ParseJvmTable(Span(table.bytes()), "jvm-1.jsm");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->compiled.size(), 1u);
  const JvmCompiled& code = parsed->compiled[0];
  EXPECT_EQ(code.time_ns, 2000u);
  EXPECT_EQ(code.address, 0x7f1000000000u);
  EXPECT_EQ(code.size, 0x200u);
  ASSERT_EQ(code.pcs.size(), 2u);
  EXPECT_EQ(code.pcs[1].pc, 0x7f1000000100u);
  EXPECT_EQ(code.pcs[1].first_frame, 2u);
  EXPECT_EQ(code.pcs[1].frames, 1u);
  ASSERT_EQ(code.frames.size(), 3u);
  EXPECT_EQ(code.frames[0].method, 0x10u);
  EXPECT_EQ(code.frames[1].bci, 3);
}

// A JVM killed while it wrote leaves a torn last record: the records before it are kept, and the
// damage is said.
TEST(JvmTableTest, ATornLastRecordEndsTheParseKeepingTheRest) {
  JvmTableBuilder table(1);
  table.AddMethod(0, WorkRun()).AddMethod(5, WorkRun());
  const std::string& whole = table.bytes();
  for (size_t cut = 1; cut < 100; cut += 7) {
    const std::string torn = whole.substr(0, whole.size() - cut);
    const auto parsed = ParseJvmTable(Span(torn), "jvm-1.jsm");
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->methods.size(), 1u) << cut;
    EXPECT_NE(parsed->error.message().find("jvm-1.jsm: offset "), std::string::npos)
        << parsed->error.message();
  }
}

TEST(JvmTableTest, CountsThatDoNotFitTheirRecordAreDamage) {
  JvmTableBuilder table(1);
  table.AddCompiled(1, 0x1000, 0x100, {{0x1010, {{0x10, 1}}}});
  std::string bytes = table.bytes();
  // The first pc claims frames past the record's frames.
  const size_t first_pc = 24 + 16 + sizeof(JitscopeJvmCompiled);
  const uint32_t frames = 5;
  std::memcpy(bytes.data() + first_pc + 12, &frames, sizeof(frames));
  auto parsed = ParseJvmTable(Span(bytes), "jvm-1.jsm");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->compiled.empty());
  EXPECT_FALSE(parsed->error.ok());

  // A method whose line count runs past its record.
  JvmTableBuilder methods(1);
  methods.AddMethod(0, WorkRun());
  bytes = methods.bytes();
  const uint32_t lines = 1u << 30;
  std::memcpy(bytes.data() + 24 + 16 + 40, &lines, sizeof(lines));
  parsed = ParseJvmTable(Span(bytes), "jvm-1.jsm");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->methods.empty());
  EXPECT_FALSE(parsed->error.ok());
}

TEST(JvmTableTest, OtherFilesAndVersionsAreRefused) {
  EXPECT_FALSE(ParseJvmTable(Span("JSFRAMES and so on"), "x").ok());
  JvmTableBuilder table(1);
  std::string bytes = table.bytes();
  bytes[4] = 2;
  const auto parsed = ParseJvmTable(Span(bytes), "jvm-1.jsm");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "jvm-1.jsm: version 2, this jitscope reads version 1");
  EXPECT_FALSE(ParseJvmTable(Span(bytes.substr(0, 12)), "jvm-1.jsm").ok());
}

// The real table among the fuzzer's seeds (its first records, as OpenJDK 17 and the agent wrote
// them): every record reads, and the methods of java.lang.Object are there with their lines.
TEST(JvmTableTest, ReadsARealTable) {
  const std::string path = std::string(JITSCOPE_JVM_TABLE_SEEDS) + "/openjdk17.jsm";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string table = bytes.str();
  const auto parsed = ParseJvmTable(Span(table), path);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->error.ok()) << parsed->error.message();
  ASSERT_FALSE(parsed->methods.empty());
  bool object_hash_code = false;
  for (const JvmMethod& m : parsed->methods) {
    EXPECT_NE(m.method, 0u);
    EXPECT_NE(m.code_base, 0u) << m.class_name << "." << m.name;
    if (m.class_name == "java.lang.Object" && m.name == "hashCode") {
      object_hash_code = true;
      EXPECT_TRUE(m.native);
      EXPECT_EQ(m.signature, "()I");
      EXPECT_EQ(m.file, "java/lang/Object.java");
    }
  }
  EXPECT_TRUE(object_hash_code);
}

}  // namespace
}  // namespace jitscope::formats
