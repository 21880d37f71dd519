// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libjitscope-frames.so preloaded into a program that registers unwind tables as a JIT engine
// does (frame_registration_client.c): each process writes what it registered, and when, to a
// file of its own (formats/registered_frames.h), and libgcc still gets every call.
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/registered_frames.h"
#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::collector {
namespace {

using test_support::ReadFile;
using test_support::RunProgram;
using test_support::TempDir;

struct ClientRun {
  int parent = 0, child = 0;
  uint64_t eh = 0, eh2 = 0, code = 0;
};

ClientRun Parse(const std::string& out) {
  ClientRun run;
  unsigned long long eh = 0, eh2 = 0, code = 0;
  EXPECT_EQ(std::sscanf(out.c_str(), "parent %d child %d eh %llx eh2 %llx code %llx", &run.parent,
                        &run.child, &eh, &eh2, &code),
            5)
      << out;
  run.eh = eh;
  run.eh2 = eh2;
  run.code = code;
  return run;
}

formats::ParsedRegisteredFrames ReadFrames(const std::string& path, std::string& bytes) {
  bytes = ReadFile(path);
  auto parsed = formats::ParseRegisteredFrames(
      std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), path);
  EXPECT_TRUE(parsed.ok()) << path << ": " << parsed.status().message();
  if (!parsed.ok()) return {};
  EXPECT_TRUE(parsed->error.ok()) << parsed->error.message();
  return *std::move(parsed);
}

TEST(FrameRegistrationTest, EachProcessWritesItsRegistrationsAndLibgccGetsThemToo) {
  TempDir tmp;
  auto ran = RunProgram({FRAME_REGISTRATION_CLIENT},
                        {{"LD_PRELOAD", JITSCOPE_FRAMES}, {"JITSCOPE_OUTPUT_DIR", tmp.path()}});
  // The client checks with libgcc that each registration and deregistration took effect.
  ASSERT_TRUE(ran.ok()) << ran.Describe();
  const ClientRun run = Parse(ran.out);
  // The table's one FDE describes the 64 bytes of `code`.
  const std::vector<formats::CodeRange> code = {{run.code, run.code + 64}};

  std::string bytes;
  const formats::ParsedRegisteredFrames parent =
      ReadFrames(tmp.path() + "/frames-" + std::to_string(run.parent) + ".jsf", bytes);
  EXPECT_EQ(parent.pid, static_cast<uint32_t>(run.parent));
  ASSERT_EQ(parent.registrations.size(), 1u);
  const formats::FrameRegistration& registration = parent.registrations[0];
  EXPECT_EQ(registration.address, run.eh);
  EXPECT_EQ(registration.eh_frame.size(), 48u);  // CIE, FDE and terminator
  EXPECT_EQ(registration.ranges, code);
  EXPECT_LT(registration.registered_ns, registration.deregistered_ns);
  EXPECT_NE(registration.deregistered_ns, UINT64_MAX);
  EXPECT_EQ(parent.unmatched_deregistrations, 0u);

  std::string child_bytes;
  const formats::ParsedRegisteredFrames child =
      ReadFrames(tmp.path() + "/frames-" + std::to_string(run.child) + ".jsf", child_bytes);
  EXPECT_EQ(child.pid, static_cast<uint32_t>(run.child));
  ASSERT_EQ(child.registrations.size(), 1u);
  EXPECT_EQ(child.registrations[0].address, run.eh2);
  EXPECT_EQ(child.registrations[0].ranges, code);
  EXPECT_EQ(child.registrations[0].deregistered_ns, UINT64_MAX);
  EXPECT_GT(child.registrations[0].registered_ns, registration.registered_ns);

  // Nothing else was written.
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(tmp.path())) {
    ++files;
  }
  EXPECT_EQ(files, 2u);
}

TEST(FrameRegistrationTest, AnUnwritableDirectoryDropsTheRecordsNotTheCalls) {
  TempDir tmp;
  const std::string file = tmp.path() + "/not-a-directory";
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  auto ran = RunProgram({FRAME_REGISTRATION_CLIENT},
                        {{"LD_PRELOAD", JITSCOPE_FRAMES}, {"JITSCOPE_OUTPUT_DIR", file}});
  EXPECT_TRUE(ran.ok()) << ran.Describe();
  EXPECT_EQ(ran.err, "");
}

TEST(FrameRegistrationTest, ARecycledPidsFileIsNotOverwritten) {
  TempDir tmp;
  // A shell plants frames-<its pid>.jsf and execs the client, which keeps the pid: the client
  // finds its name taken, as a process whose pid an earlier one in the directory had, and
  // writes frames-<pid>.1.jsf.
  auto ran = RunProgram(
      {"/bin/sh", "-c",
       "echo planted > \"$DIR/frames-$$.jsf\" && exec env "
       "LD_PRELOAD=\"$LIB\" " FRAME_REGISTRATION_CLIENT},
      {{"DIR", tmp.path()}, {"LIB", JITSCOPE_FRAMES}, {"JITSCOPE_OUTPUT_DIR", tmp.path()}});
  ASSERT_TRUE(ran.ok()) << ran.Describe();
  const ClientRun run = Parse(ran.out);
  EXPECT_EQ(ReadFile(tmp.path() + "/frames-" + std::to_string(run.parent) + ".jsf"), "planted\n");
  std::string bytes;
  const formats::ParsedRegisteredFrames moved =
      ReadFrames(tmp.path() + "/frames-" + std::to_string(run.parent) + ".1.jsf", bytes);
  ASSERT_EQ(moved.registrations.size(), 1u);
  EXPECT_EQ(moved.registrations[0].address, run.eh);
}

}  // namespace
}  // namespace jitscope::collector
