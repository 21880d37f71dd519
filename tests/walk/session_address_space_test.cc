// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The code a session's address space hands the unwinder (SessionAddressSpace::ReadCode), from a
// JVM's files as record leaves them with only a perf map: HotSpot's `Interpreter` line, and the
// code record read from the running process after the samples that asked for it.
#include "jitscope/walk/session_address_space.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/captured_code.h"
#include "jitscope/symbolize/source_set.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace jitscope::walk {
namespace {

constexpr uint32_t kPid = 91;
constexpr uint64_t kInterpreter = 0x7f0000100000;
constexpr uint64_t kMethod = 0x7f0000300000;
constexpr uint64_t kRead = 5000;    // when record read the code
constexpr uint64_t kSample = 4000;  // a sample before it

struct JvmSession {
  test_support::TempDir dir;
  std::vector<uint8_t> interpreter_code, method_code;
  std::optional<symbolize::SourceSet> sources;
  std::vector<session::Mapping> mappings;  // the maps point into it
  std::optional<ProcessMaps> maps;
  std::optional<SessionAddressSpace> space;  // at a sample of kPid taken at kSample

  JvmSession() {
    for (size_t i = 0; i < 0x100; ++i) {
      interpreter_code.push_back(static_cast<uint8_t>(i));
      method_code.push_back(static_cast<uint8_t>(0xff - i));
    }
    EXPECT_TRUE(test_support::WriteFile(dir.path() + "/perf-91.map",
                                        "7f0000100000 200 Interpreter\n"
                                        "7f0000300000 100 void Work.run()\n"));
    EXPECT_TRUE(
        test_support::WriteFile(dir.path() + "/" + formats::CapturedCodeFileName(kPid),
                                formats::EncodeCapturedCodeHeader(kPid) +
                                    formats::EncodeCodeRead(kRead, kInterpreter, interpreter_code) +
                                    formats::EncodeCodeRead(kRead, kMethod, method_code)));
    auto set = symbolize::SourceSet::Open({dir.path()});
    EXPECT_TRUE(set.ok()) << set.status().message();
    if (set.ok()) sources.emplace(std::move(*set));
    session::Mapping jvm;
    jvm.pid = kPid;
    jvm.time_ns = 100;
    jvm.start = 0x7f1000000000;
    jvm.length = 0x1000000;
    jvm.filename = "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so";
    mappings.push_back(jvm);
    maps.emplace(mappings, std::vector<session::Task>{});
    if (!sources) return;
    space.emplace(*maps, "", &*sources);
    space->At(kPid, kSample, kSample);
  }
};

TEST(SessionAddressSpaceTest, TheInterpretersCodeIsAnyReadOfIt) {
  JvmSession jvm;
  ASSERT_TRUE(jvm.space);
  SessionAddressSpace& space = *jvm.space;
  std::array<uint8_t, 8> out{};
  unwind::ModuleAt at;
  ASSERT_TRUE(space.Find(kInterpreter + 0x10, at));
  EXPECT_TRUE(at.interpreter);
  // No read holds the whole interpreter (record reads windows of 96 KiB; HotSpot's is bigger),
  // so no version of it is made; and the read came after the sample. HotSpot never changes its
  // interpreter: the read is its code.
  ASSERT_EQ(space.ReadCode(kInterpreter + 0x10, out), 8u);
  EXPECT_EQ(out, (std::array<uint8_t, 8>{0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17}));
  // As far as the read goes.
  EXPECT_EQ(space.ReadCode(kInterpreter + 0xfc, out), 4u);
}

TEST(SessionAddressSpaceTest, OtherCodeIsTheVersionsAtTheSamplesTime) {
  JvmSession jvm;
  ASSERT_TRUE(jvm.space);
  std::array<uint8_t, 8> out{};
  SessionAddressSpace& space = *jvm.space;
  // The method's read answers for the samples before it: its version holds the bytes.
  ASSERT_EQ(space.ReadCode(kMethod + 0x10, out), 8u);
  EXPECT_EQ(out[0], 0xff - 0x10);
  // Nothing is known where no code is.
  EXPECT_EQ(space.ReadCode(kMethod + 0x1000, out), 0u);
}

}  // namespace
}  // namespace jitscope::walk
