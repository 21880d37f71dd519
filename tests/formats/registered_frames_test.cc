// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The file of registered unwind tables (formats/registered_frames.h) and the ranges of an
// .eh_frame's FDEs (formats/eh_frame_ranges.h), on sections built entry by entry.
#include <cstdint>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/eh_frame_ranges.h"
#include "jitscope/formats/registered_frames.h"
#include "support/byte_builder.h"
#include "support/eh_frame_builder.h"

namespace jitscope::formats {
namespace {

using test_support::ByteBuilder;

constexpr uint8_t kPcRelSdata4 = 0x1b;
constexpr uint8_t kPcRelSdata8 = 0x1c;
constexpr uint8_t kAbsUdata8 = 0x04;
constexpr uint8_t kDataRelSdata4 = 0x3b;

using EhFrame = test_support::EhFrameBuilder;

TEST(EhFrameRangesTest, FdesAreDecodedByTheirCiesEncoding) {
  EhFrame eh;
  const size_t pcrel4 = eh.Cie(kPcRelSdata4);
  eh.Fde(pcrel4, 0x7f0000000040, 0x20, kPcRelSdata4);
  eh.Fde(pcrel4, 0x7f0000000080, 0x100, kPcRelSdata4);
  const size_t pcrel8 = eh.Cie(kPcRelSdata8);  // LLVM's, for the large code model
  eh.Fde(pcrel8, 0x7f0000200000, 0x11, kPcRelSdata8);
  const size_t absolute = eh.Cie(std::nullopt);  // no augmentation: 8-byte absolute pointers
  eh.Fde(absolute, 0x401000, 0x30, 0x00, /*augmented=*/false);
  const size_t udata8 = eh.Cie(kAbsUdata8, "zPLR");
  eh.Fde(udata8, 0x402000, 0x8, kAbsUdata8);
  eh.WideFde(absolute, 0x403000, 0x18);
  eh.Terminator();
  eh.Fde(pcrel4, 0x999000, 0x10, kPcRelSdata4);  // after the terminator: not read

  const std::vector<CodeRange> expected = {{0x7f0000000040, 0x7f0000000060},
                                           {0x7f0000000080, 0x7f0000000180},
                                           {0x7f0000200000, 0x7f0000200011},
                                           {0x401000, 0x401030},
                                           {0x402000, 0x402008},
                                           {0x403000, 0x403018}};
  EXPECT_EQ(EhFrameRanges(eh.bytes(), eh.address()), expected);
}

TEST(EhFrameRangesTest, FdesThatNeedABaseOrACieElsewhereAreSkipped) {
  EhFrame eh;
  const size_t datarel = eh.Cie(kDataRelSdata4);
  eh.Fde(datarel, 0x1000, 0x10, kDataRelSdata4);
  const size_t good = eh.Cie(kPcRelSdata4);
  eh.Fde(good, 0x7f0000000040, 0x20, kPcRelSdata4);
  eh.Fde(good, 0x7f0000000100, 0, kPcRelSdata4);  // empty
  // A CIE pointer before the section: __register_frame given one FDE, not the section.
  eh.Raw(ByteBuilder().U32(24).U32(0x7fffffff).U64(0).U64(0x10));
  eh.Terminator();
  const std::vector<CodeRange> expected = {{0x7f0000000040, 0x7f0000000060}};
  EXPECT_EQ(EhFrameRanges(eh.bytes(), eh.address()), expected);
}

TEST(EhFrameRangesTest, AnEntryThatRunsPastTheBytesEndsTheDecoding) {
  EhFrame eh;
  const size_t cie = eh.Cie(kPcRelSdata4);
  eh.Fde(cie, 0x7f0000000040, 0x20, kPcRelSdata4);
  eh.Raw(ByteBuilder().U32(1000).U32(8));  // claims 1000 bytes
  eh.Fde(cie, 0x7f0000000080, 0x20, kPcRelSdata4);
  const std::vector<CodeRange> expected = {{0x7f0000000040, 0x7f0000000060}};
  EXPECT_EQ(EhFrameRanges(eh.bytes(), eh.address()), expected);
  EXPECT_EQ(EhFrameLength(eh.bytes()), 0u);
  // Garbage of every length reads as nothing, without a read outside it.
  for (size_t n = 0; n < eh.bytes().size(); ++n) {
    const std::span<const uint8_t> prefix(eh.bytes().data(), n);
    EXPECT_LE(EhFrameRanges(prefix, eh.address()).size(), 1u);
  }
}

TEST(EhFrameRangesTest, TheLengthRunsThroughTheTerminator) {
  EhFrame eh;
  const size_t cie = eh.Cie(kPcRelSdata4);
  eh.Fde(cie, 0x7f0000000040, 0x20, kPcRelSdata4);
  eh.WideFde(cie, 0x403000, 0x18);
  const size_t before_terminator = eh.bytes().size();
  eh.Terminator();
  eh.Raw(ByteBuilder().U32(0xdeadbeef));  // what follows the section in memory
  EXPECT_EQ(EhFrameLength(eh.bytes()), before_terminator + 4);
  EXPECT_EQ(EhFrameLength(std::span(eh.bytes()).first(before_terminator)), 0u);
}

std::span<const uint8_t> Bytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

std::string ReadSeed(const std::string& name) {
  std::ifstream in(std::string(JITSCOPE_FRAMES_SEEDS) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(RegisteredFramesTest, RegistrationsAndTheirEndsAreReadBack) {
  EhFrame eh;
  const size_t cie = eh.Cie(kPcRelSdata4);
  eh.Fde(cie, 0x7f0000000040, 0x20, kPcRelSdata4);
  eh.Terminator();
  std::string file = EncodeRegisteredFramesHeader(4242);
  file += EncodeFrameRecord(kFramesRegistered, 100, eh.address(), eh.bytes());
  file += EncodeFrameRecord(kFramesRegistered, 200, 0x5000, eh.bytes());
  file += EncodeFrameRecord(kFramesDeregistered, 300, eh.address(), {});
  file += EncodeFrameRecord(kFramesDeregistered, 400, 0x9999, {});
  file += EncodeFrameRecord(kFramesRegistered, 500, eh.address(), eh.bytes());
  ASSERT_EQ(file.size() % 8, 0u);

  auto parsed = ParseRegisteredFrames(Bytes(file), "frames-4242.jsf");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->error.ok()) << parsed->error.message();
  EXPECT_EQ(parsed->pid, 4242u);
  ASSERT_EQ(parsed->registrations.size(), 3u);
  const FrameRegistration& first = parsed->registrations[0];
  EXPECT_EQ(first.address, eh.address());
  EXPECT_EQ(std::vector<uint8_t>(first.eh_frame.begin(), first.eh_frame.end()), eh.bytes());
  EXPECT_EQ(first.ranges, std::vector<CodeRange>({{0x7f0000000040, 0x7f0000000060}}));
  EXPECT_EQ(first.registered_ns, 100u);
  EXPECT_EQ(first.deregistered_ns, 300u);
  // The same bytes at another address describe other code (their pointers are pc-relative).
  EXPECT_EQ(parsed->registrations[1].ranges,
            std::vector<CodeRange>({{0x7f0000000040 - eh.address() + 0x5000,
                                     0x7f0000000060 - eh.address() + 0x5000}}));
  EXPECT_EQ(parsed->registrations[1].deregistered_ns, UINT64_MAX);
  EXPECT_EQ(parsed->registrations[2].registered_ns, 500u);
  EXPECT_EQ(parsed->registrations[2].deregistered_ns, UINT64_MAX);
  EXPECT_EQ(parsed->unmatched_deregistrations, 1u);
}

TEST(RegisteredFramesTest, ATornRecordKeepsTheRecordsBeforeIt) {
  EhFrame eh;
  eh.Fde(eh.Cie(kPcRelSdata4), 0x7f0000000040, 0x20, kPcRelSdata4);
  eh.Terminator();
  const std::string header = EncodeRegisteredFramesHeader(7);
  const std::string record = EncodeFrameRecord(kFramesRegistered, 1, eh.address(), eh.bytes());
  for (size_t cut = 1; cut < record.size(); ++cut) {
    const std::string file = header + record + record.substr(0, cut);
    auto parsed = ParseRegisteredFrames(Bytes(file), "f.jsf");
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->registrations.size(), 1u) << cut;
    EXPECT_EQ(
        parsed->error.message(),
        "f.jsf: offset " + std::to_string(header.size() + record.size()) + ": a record cut short")
        << cut;
  }
}

TEST(RegisteredFramesTest, RecordsOfNoKnownShapeEndTheParse) {
  const std::string header = EncodeRegisteredFramesHeader(7);
  const uint8_t some[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::string unknown_kind = EncodeFrameRecord(9, 1, 0x1000, some);
  const std::string deregistration_with_bytes = EncodeFrameRecord(kFramesDeregistered, 1, 0, some);
  const std::string empty_registration = EncodeFrameRecord(kFramesRegistered, 1, 0x1000, {});
  for (const std::string& bad : {unknown_kind, deregistration_with_bytes, empty_registration}) {
    auto parsed = ParseRegisteredFrames(Bytes(header + bad), "f.jsf");
    ASSERT_TRUE(parsed.ok());
    EXPECT_TRUE(parsed->registrations.empty());
    EXPECT_TRUE(parsed->error.message().starts_with("f.jsf: offset 24: a record of kind"))
        << parsed->error.message();
  }
}

TEST(RegisteredFramesTest, AFileOfAnotherFormatOrVersionIsRefused) {
  EXPECT_EQ(ParseRegisteredFrames(Bytes("JSSAMPLE"), "x").status().message(),
            "x: not a file of registered unwind tables");
  EXPECT_EQ(ParseRegisteredFrames(Bytes("JSFRAMES\x01"), "x").status().message(),
            "x: the header is cut short");
  std::string future = EncodeRegisteredFramesHeader(1);
  future[8] = 2;
  EXPECT_EQ(ParseRegisteredFrames(Bytes(future), "x").status().message(),
            "x: version 2, this jitscope reads version 1");
  // A longer header is skipped.
  std::string longer = EncodeRegisteredFramesHeader(1);
  longer[12] = 32;
  longer += std::string(8, '\0');
  auto parsed = ParseRegisteredFrames(Bytes(longer), "x");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->error.ok());
}

// The fuzzer's seeds are what they say they are (fuzz/make_seeds.py).
TEST(RegisteredFramesTest, TheSeedsReadAsDescribed) {
  const std::string synthetic = ReadSeed("synthetic.jsf");
  auto parsed = ParseRegisteredFrames(Bytes(synthetic), "synthetic.jsf");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->pid, 42u);
  ASSERT_EQ(parsed->registrations.size(), 2u);
  EXPECT_EQ(parsed->registrations[0].ranges,
            std::vector<CodeRange>({{0x7f0000001000, 0x7f0000001040}}));
  EXPECT_EQ(parsed->registrations[0].deregistered_ns, 200u);
  EXPECT_EQ(parsed->registrations[1].ranges, std::vector<CodeRange>({{0x401000, 0x401030}}));
  EXPECT_EQ(parsed->error.message(), "synthetic.jsf: offset 192: a record cut short");

  // lli's registration of cfi_shapes.c's code: one table, an FDE per function.
  const std::string lli = ReadSeed("lli_mcjit.jsf");
  parsed = ParseRegisteredFrames(Bytes(lli), "lli_mcjit.jsf");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->error.ok()) << parsed->error.message();
  ASSERT_EQ(parsed->registrations.size(), 1u);
  EXPECT_EQ(parsed->registrations[0].ranges.size(), 11u);
}

}  // namespace
}  // namespace jitscope::formats
