// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// CfiModule finds the CFI of a file whose only CFI is in its separate debug file, as Debian's
// -dbgsym packages ship them: by the file's .gnu_debuglink (the debug file beside it) and by its
// build-id (under a debug root's .build-id/), never in a debug file of another build. The library
// is built with .debug_frame only (debug_frame_only.c), then split with objcopy (binutils) as
// dh_strip does.
//
// It also reads an .eh_frame an engine supplied for JIT code (FromEhFrame): V8's, as Node 20's
// --perf-prof-unwinding-info wrote it for a TurboFan function.
#include "jitscope/unwind/cfi_module.h"

#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::unwind {
namespace {

using test_support::RunProgram;
using test_support::TempDir;

void RunTool(const std::vector<std::string>& argv) {
  const test_support::ProcessResult run = RunProgram(argv);
  ASSERT_TRUE(run.ok()) << run.Describe();
}

// The build-id of `path` in hex, from readelf's notes.
std::string BuildId(const std::string& path) {
  const test_support::ProcessResult run = RunProgram({"readelf", "-n", path});
  EXPECT_TRUE(run.ok()) << run.Describe();
  const std::string marker = "Build ID: ";
  const size_t at = run.out.find(marker);
  if (at == std::string::npos) return "";
  return run.out.substr(at + marker.size(), run.out.find('\n', at) - at - marker.size());
}

class SeparateDebugFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The function's address in the file: where the dynamic linker put it, less the base.
    void* library = dlopen(DEBUG_FRAME_ONLY_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    void* function = dlsym(library, "debug_frame_only_function");
    ASSERT_NE(function, nullptr);
    Dl_info info{};
    ASSERT_NE(dladdr(function, &info), 0);
    address_ = reinterpret_cast<uint64_t>(function) - reinterpret_cast<uint64_t>(info.dli_fbase);
    // A few bytes in: past the first instruction, where the CFA has often moved.
    address_ += 4;

    const std::string original = DEBUG_FRAME_ONLY_LIBRARY;
    linked_ = dir_.path() + "/linked/libdebug_frame_only.so";
    by_id_ = dir_.path() + "/by-id/libdebug_frame_only.so";
    root_ = dir_.path() + "/root";
    RunTool({"mkdir", "-p", dir_.path() + "/linked", dir_.path() + "/by-id"});
    RunTool({"objcopy", "--only-keep-debug", original, linked_ + ".debug"});
    // Beside the file, named by its debuglink (which holds the name and the CRC).
    RunTool({"objcopy", "--strip-debug", "--add-gnu-debuglink=" + linked_ + ".debug", original,
             linked_});
    // Under the debug root, named by the build-id; the file has no debuglink.
    const std::string id = BuildId(original);
    ASSERT_GT(id.size(), 2u) << "the library has no build-id";
    RunTool({"mkdir", "-p", root_ + "/.build-id/" + id.substr(0, 2)});
    RunTool({"objcopy", "--only-keep-debug", original,
             root_ + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug"});
    RunTool({"objcopy", "--strip-debug", original, by_id_});
  }

  // The row CfiModule finds at the function's address in `path`, looking for debug files in
  // `debug_path`; nullopt when it finds none.
  std::optional<CfiRow> RowIn(const std::string& path, const std::string& debug_path) {
    auto module = CfiModule::Open(path, debug_path);
    EXPECT_TRUE(module.ok()) << module.status().message();
    if (!module.ok()) return std::nullopt;
    const CfiRow* row = (*module)->Find(address_);
    return row == nullptr ? std::nullopt : std::optional<CfiRow>(*row);
  }

  TempDir dir_;
  uint64_t address_ = 0;
  std::string linked_, by_id_, root_;
};

bool SameRule(const CfiRow& a, const CfiRow& b) {
  auto same_ops = [](const std::vector<Dwarf_Op>& x, const std::vector<Dwarf_Op>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].atom != y[i].atom || x[i].number != y[i].number || x[i].number2 != y[i].number2) {
        return false;
      }
    }
    return true;
  };
  if (a.start != b.start || a.end != b.end || !same_ops(a.cfa, b.cfa) ||
      a.return_address_register != b.return_address_register) {
    return false;
  }
  for (size_t r = 0; r < a.registers.size(); ++r) {
    if (a.registers[r].kind != b.registers[r].kind ||
        !same_ops(a.registers[r].location, b.registers[r].location)) {
      return false;
    }
  }
  return true;
}

TEST_F(SeparateDebugFileTest, TheOriginalHasItsOwnDebugFrame) {
  const std::optional<CfiRow> row = RowIn(DEBUG_FRAME_ONLY_LIBRARY, "/nonexistent");
  ASSERT_TRUE(row.has_value());
  EXPECT_FALSE(row->cfa.empty());
}

TEST_F(SeparateDebugFileTest, AStrippedFileFindsItThroughItsDebuglink) {
  const std::optional<CfiRow> expected = RowIn(DEBUG_FRAME_ONLY_LIBRARY, "/nonexistent");
  ASSERT_TRUE(expected.has_value());
  // The debuglink is looked for beside the file (the first, empty, element of the path).
  const std::optional<CfiRow> row = RowIn(linked_, ":/nonexistent");
  ASSERT_TRUE(row.has_value());
  EXPECT_TRUE(SameRule(*row, *expected));
  // Without a place to look there is none, nor where the file of that name is another file's
  // debug file (its build-id is not the library's).
  EXPECT_FALSE(RowIn(linked_, "/nonexistent").has_value());
  RunTool({"objcopy", "--only-keep-debug", "/proc/self/exe", linked_ + ".debug"});
  EXPECT_FALSE(RowIn(linked_, ":/nonexistent").has_value());
}

TEST_F(SeparateDebugFileTest, AStrippedFileFindsItByBuildIdUnderADebugRoot) {
  const std::optional<CfiRow> expected = RowIn(DEBUG_FRAME_ONLY_LIBRARY, "/nonexistent");
  ASSERT_TRUE(expected.has_value());
  const std::optional<CfiRow> row = RowIn(by_id_, "/nonexistent:" + root_);
  ASSERT_TRUE(row.has_value());
  EXPECT_TRUE(SameRule(*row, *expected));
  EXPECT_FALSE(RowIn(by_id_, "/nonexistent").has_value());
}

// The UNWINDING_INFO data V8 wrote for `fib`'s 384 bytes of TurboFan code: a CIE ("zLR",
// pc-relative FDE pointers), one FDE for 382 bytes, then the 20-byte .eh_frame_hdr, which
// FromEhFrame is not given.
std::vector<uint8_t> V8EhFrame() {
  const std::string hex =
      "1800000000000000037a4c520001781002ff1b0c070890010000000028000000200000005cfeffff7e010000"
      "004f0e108602430d060304010d07410e08520c06100000000000000000000000";
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes.push_back(static_cast<uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

struct ExpectedRow {
  uint64_t offset;  // into the code
  int cfa_register;
  uint64_t cfa_offset;
  bool rbp_saved;  // at CFA - 16
};

TEST(EngineEhFrameTest, RowsAreFoundAtTheCodesOwnAddresses) {
  constexpr uint64_t kCode = 0x7f0000001000;
  constexpr uint64_t kCodeSize = 384;
  const std::vector<uint8_t> eh_frame = V8EhFrame();
  ASSERT_EQ(eh_frame.size(), 76u);
  auto module = CfiModule::FromEhFrame(eh_frame, kCode + kCodeSize);
  ASSERT_TRUE(module.ok()) << module.status().message();

  // 15 bytes of V8's entry check, push rbp at 15, mov rbp, rsp at 15 + 1; the epilogue moves
  // the CFA to rsp at 0x116 (pop rbp) and to rsp + 8 at 0x117 (the return); code placed after
  // it runs in the frame again from 0x129.
  const ExpectedRow rows[] = {{0, 7, 8, false},     {14, 7, 8, false},   {15, 7, 16, true},
                              {17, 7, 16, true},    {18, 6, 16, true},   {0x115, 6, 16, true},
                              {0x116, 7, 16, true}, {0x117, 7, 8, true}, {0x128, 7, 8, true},
                              {0x129, 6, 16, true}, {0x17d, 6, 16, true}};
  for (const ExpectedRow& expected : rows) {
    SCOPED_TRACE(testing::Message() << "offset 0x" << std::hex << expected.offset);
    const CfiRow* row = (*module)->Find(kCode + expected.offset);
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->return_address_register, 16);
    EXPECT_EQ(row->cfa_form.kind, CommonForm::Kind::kRegisterPlus);
    EXPECT_EQ(row->cfa_form.reg, expected.cfa_register);
    EXPECT_EQ(row->cfa_form.offset, expected.cfa_offset);
    EXPECT_EQ(row->registers[16].form.kind, CommonForm::Kind::kAtCfaPlus);
    EXPECT_EQ(row->registers[16].form.offset, static_cast<uint64_t>(-8));
    if (expected.rbp_saved) {
      EXPECT_EQ(row->registers[6].form.kind, CommonForm::Kind::kAtCfaPlus);
      EXPECT_EQ(row->registers[6].form.offset, static_cast<uint64_t>(-16));
    } else {
      EXPECT_NE(row->registers[6].kind, RegisterRule::Kind::kLocation);
    }
  }
  // Outside the FDE's 382 bytes: no row, before the code or after it.
  EXPECT_EQ((*module)->Find(kCode - 1), nullptr);
  EXPECT_EQ((*module)->Find(kCode + 0x17e), nullptr);
  EXPECT_FALSE((*module)->entry().has_value());
}

TEST(EngineEhFrameTest, TheTableAtAnotherAddressDescribesOtherCode) {
  // The FDE's pointer is relative to where the table lies: placed elsewhere, it is elsewhere.
  constexpr uint64_t kCode = 0x7f0000001000;
  auto module = CfiModule::FromEhFrame(V8EhFrame(), kCode + 384 + 0x1000);
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_EQ((*module)->Find(kCode), nullptr);
  EXPECT_NE((*module)->Find(kCode + 0x1000), nullptr);
}

TEST(EngineEhFrameTest, GarbageFindsNoRows) {
  // A CIE that claims more bytes than there are, then noise: it reads (libdw parses entries as
  // they are asked for), and finds no row anywhere. An empty table is no table: refused.
  std::vector<uint8_t> garbage = {0xf0, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x7a};
  for (uint8_t i = 0; i < 40; ++i) garbage.push_back(static_cast<uint8_t>(i * 37));
  auto module = CfiModule::FromEhFrame(garbage, 0x10000);
  ASSERT_TRUE(module.ok()) << module.status().message();
  for (uint64_t pc = 0xf000; pc < 0x11000; pc += 0x80) EXPECT_EQ((*module)->Find(pc), nullptr);
  EXPECT_FALSE(CfiModule::FromEhFrame({}, 0x10000).ok());
}

}  // namespace
}  // namespace jitscope::unwind
