// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// What the JVM table names (symbolize/java_methods.h, ImportJvmTable): interpreter frames by their
// Method* and bytecode pointer at the sample's time, never from a Method* the table does not hold
// then, and compiled code's inline scopes as inline frames of the symbol index.
#include "jitscope/symbolize/java_methods.h"

#include <gtest/gtest.h>

#include "jitscope/symbolize/importers.h"
#include "jitscope/symbolize/index_builder.h"
#include "jitscope/symbolize/symbol_index.h"
#include "support/jvm_table_builder.h"

namespace jitscope::symbolize {
namespace {

using test_support::JvmTableBuilder;

constexpr uint64_t kOuter = 0x7f0000001000, kMiddle = 0x7f0000002000, kLeaf = 0x7f0000003000;
constexpr uint64_t kNative = 0x7f0000004000;
constexpr uint64_t kOuterCode = 0x7f0000000e00, kNativeCode = 0x7f0000003f00;

formats::ParsedJvmTable Parse(const JvmTableBuilder& builder) {
  const std::string& bytes = builder.bytes();
  auto parsed = formats::ParseJvmTable(
      {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, "jvm-1.jsm");
  EXPECT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->error.ok()) << parsed->error.message();
  return std::move(*parsed);
}

// pkg.Work.outer.
JvmTableBuilder::Method Outer() {
  return {kOuter,          kOuterCode,        12, false, "pkg.Work", "outer", "(I)V",
          "pkg/Work.java", {{0, 10}, {5, 11}}};
}

// pkg.Work's outer → middle → leaf, and a native method; outer's Method* is ended at 700 (its
// class was redefined) and held by another method from 900 on.
JvmTableBuilder Table() {
  JvmTableBuilder table(1);
  table.AddMethod(0, Outer());
  table.AddMethod(0, {kMiddle,
                      0x7f0000001f00,
                      8,
                      false,
                      "pkg.Work",
                      "middle",
                      "(I)I",
                      "pkg/Work.java",
                      {{0, 20}, {3, 21}}});
  table.AddMethod(0, {kLeaf,
                      0x7f0000002f00,
                      9,
                      false,
                      "pkg.Work",
                      "leaf",
                      "(I)I",
                      "pkg/Work.java",
                      {{0, 30}, {6, 31}}});
  table.AddMethod(0,
                  {kNative, kNativeCode, 0, true, "java.lang.System", "nanoTime", "()J", "", {}});
  table.AddEnd(800, kOuter, 700);
  table.AddMethod(900, {kOuter,
                        0x7f0000009000,
                        4,
                        false,
                        "other.Thing",
                        "run",
                        "()V",
                        "other/Thing.java",
                        {{0, 3}}});
  return table;
}

TEST(JavaMethodsTest, NamesAFrameByItsMethodAndBytecodePointer) {
  const JvmTableBuilder builder = Table();  // the parsed table's names point into its bytes
  const formats::ParsedJvmTable table = Parse(builder);
  JavaMethods methods;
  methods.Add(table);
  JavaMiss miss{};
  auto name = methods.Name(kOuter, kOuterCode + 6, 100, miss);
  ASSERT_TRUE(name);
  EXPECT_EQ(name->name, "pkg.Work.outer(I)V");
  EXPECT_EQ(name->file, "pkg/Work.java");
  EXPECT_EQ(name->line, 11u);
  name = methods.Name(kOuter, kOuterCode, 100, miss);
  ASSERT_TRUE(name);
  EXPECT_EQ(name->line, 10u);
  // The same Method* after the class was unloaded and its memory reused: the other method.
  name = methods.Name(kOuter, 0x7f0000009000, 1000, miss);
  ASSERT_TRUE(name);
  EXPECT_EQ(name->name, "other.Thing.run()V");
  EXPECT_EQ(name->line, 3u);
}

// Between the last time the agent saw the method there and the next method's arrival, nothing is
// known of the Method*: no name, not the old one.
TEST(JavaMethodsTest, AMethodIsNotNamedAfterItWasLastSeen) {
  const JvmTableBuilder builder = Table();  // the parsed table's names point into its bytes
  const formats::ParsedJvmTable table = Parse(builder);
  JavaMethods methods;
  methods.Add(table);
  JavaMiss miss{};
  for (uint64_t time : {700u, 800u, 899u}) {
    EXPECT_FALSE(methods.Name(kOuter, kOuterCode, time, miss)) << time;
    EXPECT_EQ(miss, JavaMiss::kUnknownMethod);
  }
  EXPECT_FALSE(methods.Name(0x1234, 0, 100, miss));
  EXPECT_EQ(miss, JavaMiss::kUnknownMethod);
  // The latest method it holds, for samples without comparable times.
  ASSERT_TRUE(methods.Find(kOuter, kLatest));
  EXPECT_EQ(methods.Find(kOuter, kLatest)->name, "other.Thing.run()V");
}

TEST(JavaMethodsTest, ABytecodePointerOutsideTheMethodNamesNothing) {
  const JvmTableBuilder builder = Table();  // the parsed table's names point into its bytes
  const formats::ParsedJvmTable table = Parse(builder);
  JavaMethods methods;
  methods.Add(table);
  JavaMiss miss{};
  EXPECT_FALSE(methods.Name(kOuter, kOuterCode + 13, 100, miss));
  EXPECT_EQ(miss, JavaMiss::kBcpOutside);
  EXPECT_FALSE(methods.Name(kOuter, kOuterCode - 1, 100, miss));
  EXPECT_FALSE(methods.Name(kOuter, 0, 100, miss));
  // A native method's frame holds no bcp, or its code base while it runs.
  auto name = methods.Name(kNative, 0, 100, miss);
  ASSERT_TRUE(name);
  EXPECT_EQ(name->name, "java.lang.System.nanoTime()J");
  EXPECT_EQ(name->line, 0u);
  EXPECT_TRUE(methods.Name(kNative, kNativeCode, 100, miss));
  EXPECT_FALSE(methods.Name(kNative, kNativeCode + 8, 100, miss));
}

// A class redefined in bursts, as the agent writes it: its check at 500 read the class's count of
// redefinitions in the middle of a burst (its version 1 ends at the check before, 400; the
// version it saw is known from 510, when the counts were read); the check at 1000 sees the count
// changed again, and cannot tell whether that version's Method* was read before the last
// redefinition or after: that entry ends where it began. Version 3 (the same Method* again,
// HotSpot having given it the memory back) is known from 1010. No frame between 400 and 1010 is
// named, and none from version 2.
TEST(JavaMethodsTest, AnEntryEndedWhereItBeganNamesNothing) {
  constexpr uint64_t kCode[] = {kOuterCode, 0x7f0000005e00, 0x7f0000006e00};
  constexpr uint64_t kSince[] = {0, 510, 1010};
  JvmTableBuilder builder(1);
  for (int version = 0; version < 3; ++version) {
    JvmTableBuilder::Method outer = Outer();
    outer.code_base = kCode[version];
    outer.lines = {{0, 10u + 10u * version}};
    if (version != 0) builder.AddEnd(kSince[version], kOuter, version == 1 ? 400 : 510);
    builder.AddMethod(kSince[version], outer);
  }
  const formats::ParsedJvmTable table = Parse(builder);
  ASSERT_EQ(table.methods.size(), 3u);
  EXPECT_EQ(table.methods[1].since_ns, table.methods[1].until_ns);
  JavaMethods methods;
  methods.Add(table);
  JavaMiss miss{};
  auto name = methods.Name(kOuter, kCode[0], 399, miss);
  ASSERT_TRUE(name);
  EXPECT_EQ(name->line, 10u);
  for (uint64_t time : {400u, 509u, 510u, 700u, 1009u}) {
    for (uint64_t code : kCode) {
      EXPECT_FALSE(methods.Name(kOuter, code, time, miss)) << time << " " << code;
    }
  }
  name = methods.Name(kOuter, kCode[2], 1010, miss);
  ASSERT_TRUE(name);
  EXPECT_EQ(name->line, 30u);
}

std::vector<std::string> Frames(const SymbolIndex& index, uint64_t address, uint64_t time) {
  Resolution resolution;
  std::vector<std::string> frames;
  if (!index.Resolve(address, time, resolution)) return frames;
  for (const Frame& frame : resolution.frames) {
    frames.push_back(std::string(frame.name) + ":" + std::to_string(frame.line) +
                     (frame.inlined ? " inlined" : ""));
  }
  return frames;
}

// outer's compiled code at 0x1000: leaf inlined into middle inlined into outer up to 0x1040,
// middle alone up to 0x1060, then outer; each debug pc covers the code after the one before it
// up to and including itself.
TEST(JavaMethodsTest, CompiledCodesInlineScopesAreInlineFrames) {
  JvmTableBuilder builder = Table();
  constexpr uint64_t kCode = 0x7f1000001000;
  builder.AddCompiled(500, kCode, 0x100,
                      {{kCode + 0x10, {{kOuter, 1}}},
                       {kCode + 0x40, {{kLeaf, 6}, {kMiddle, 3}, {kOuter, 5}}},
                       {kCode + 0x60, {{kMiddle, 0}, {kOuter, 5}}},
                       {kCode + 0xa0, {{kOuter, 0}}},
                       {kCode + 0xb0, {{0xbad, 2}, {kOuter, 7}}}});
  const formats::ParsedJvmTable table = Parse(builder);
  JavaMethods methods;
  methods.Add(table);
  IndexBuilder index_builder;
  ImportJvmTable(table, methods, index_builder);
  const SymbolIndex index = std::move(index_builder).Build();
  EXPECT_EQ(Frames(index, kCode + 0x10, 600), (std::vector<std::string>{"pkg.Work.outer(I)V:10"}));
  const std::vector<std::string> chain{"pkg.Work.leaf(I)I:31 inlined",
                                       "pkg.Work.middle(I)I:21 inlined", "pkg.Work.outer(I)V:11"};
  EXPECT_EQ(Frames(index, kCode + 0x11, 600), chain);
  EXPECT_EQ(Frames(index, kCode + 0x40, 600), chain);
  EXPECT_EQ(Frames(index, kCode + 0x41, 600),
            (std::vector<std::string>{"pkg.Work.middle(I)I:20 inlined", "pkg.Work.outer(I)V:11"}));
  EXPECT_EQ(Frames(index, kCode + 0x80, 600), (std::vector<std::string>{"pkg.Work.outer(I)V:10"}));
  // A scope whose Method* the table does not hold is left out: the code is outer's.
  EXPECT_EQ(Frames(index, kCode + 0xb0, 600), (std::vector<std::string>{"pkg.Work.outer(I)V:11"}));
  EXPECT_TRUE(Frames(index, kCode + 0x10, 400).empty()) << "not loaded yet";
}

}  // namespace
}  // namespace jitscope::symbolize
