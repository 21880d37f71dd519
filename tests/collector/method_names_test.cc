// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// "First symbolic information wins" (seeds 000_*.txt, Usage Tips of "Analyzing Split Functions"
// and of module names), one test per rule.
#include "jitscope/collector/method_names.h"

#include <gtest/gtest.h>

#include "sink_test_support.h"

namespace jitscope::collector {
namespace {

using testing::CodeRecord;
using testing::CodeSpec;

trace::CodeEvent Code(const CodeSpec& spec) {
  return std::get<trace::CodeEvent>(CodeRecord(0, spec).event);
}

TEST(MethodNames, FirstNameAndSourceWinForAllRegionsOfAMethod) {
  MethodNames names;
  EXPECT_EQ("first",
            names.Resolve(Code({.method_id = 5, .name = "first", .source_file = "a.js"})).name);
  const MethodSymbol second =
      names.Resolve(Code({.method_id = 5, .name = "second", .source_file = "b.js"}));
  EXPECT_EQ("first", second.name);
  EXPECT_EQ("a.js", second.source_file);
}

TEST(MethodNames, ANullSourceFileMeansTheFirstOne) {
  MethodNames names;
  names.Resolve(Code({.method_id = 5, .name = "f", .source_file = "a.js"}));
  EXPECT_EQ("a.js", names.Resolve(Code({.method_id = 5, .name = "f"})).source_file);
}

TEST(MethodNames, EachFieldComesFromTheFirstNotificationThatHasIt) {
  MethodNames names;
  // METHOD_UPDATE may come first, without a name.
  EXPECT_EQ("[method 9]",
            names.Resolve(Code({.api_event = trace::kEventMethodUpdate, .method_id = 9})).name);
  const MethodSymbol later =
      names.Resolve(Code({.method_id = 9, .name = "g", .source_file = "g.js"}));
  EXPECT_EQ("g", later.name);
  EXPECT_EQ("g.js", later.source_file);
}

TEST(MethodNames, ModuleNameRegisteredFirstWinsAndIsShownAsModuleBangName) {
  MethodNames names;
  EXPECT_EQ("engine!f", names
                            .Resolve(Code({.api_event = trace::kEventMethodLoadFinishedV2,
                                           .method_id = 3,
                                           .name = "f",
                                           .module = "engine"}))
                            .name);
  EXPECT_EQ("engine!f", names
                            .Resolve(Code({.api_event = trace::kEventMethodLoadFinishedV2,
                                           .method_id = 3,
                                           .name = "f",
                                           .module = "other"}))
                            .name);
  EXPECT_EQ("f", DisplayName("f", std::nullopt));
  EXPECT_EQ("f", DisplayName("f", ""));
}

TEST(MethodNames, AForgottenMethodStartsAfresh) {
  MethodNames names;
  names.Resolve(Code({.method_id = 5, .name = "old"}));
  names.Forget(5);
  EXPECT_EQ("new", names.Resolve(Code({.method_id = 5, .name = "new"})).name);
}

}  // namespace
}  // namespace jitscope::collector
