// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Ground truth from an engine's own unwind information: LLVM's MCJIT writes, for the
// code it JIT-compiles, the .eh_frame it would write for an object file, and registers it with
// the in-process unwinder (__register_frame). The rules derived from the bytes lli ran (the
// jitdump it writes; rule_agreement.h) must equal LLVM's CFI at every instruction where they
// claim a rule, for cfi_shapes.c's functions at several optimisation levels, with and without
// frame pointers. LLVM's CFI is read twice:
//  - as registered: libjitscope-frames.so, preloaded as `record --registered-frames` does,
//    keeps each registered .eh_frame with the address it was registered at;
//  - from lli's object cache (-enable-cache-manager), which keeps the very object lli loaded,
//    linked at fixed addresses by ld.
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/jitdump_reader.h"
#include "jitscope/formats/registered_frames.h"
#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "unwind/rule_agreement.h"

namespace jitscope::unwind {
namespace {

using test_support::ReadFile;
using test_support::RunProgram;
using test_support::TempDir;

// The functions cfi_shapes.c defines: each is JIT-compiled, reported and compared.
constexpr size_t kShapesFunctions = 11;

// The first file under `dir` whose name `matches`: lli writes its jitdump to
// .debug/jit/<run>/jit-<pid>.dump under JITDUMPDIR, and its cached object to the cache directory
// followed by the module's path (for cfi_shapes.ll at /tmp/x: <cache>/tmp/x/cfi_shapes.o).
std::string FindFile(const std::string& dir,
                     const std::function<bool(const std::string&)>& matches) {
  std::error_code error;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, error)) {
    if (entry.is_regular_file() && matches(entry.path().filename().string())) {
      return entry.path().string();
    }
  }
  return "";
}

class LlvmCfiTest : public ::testing::TestWithParam<std::vector<std::string>> {};

// What every comparison must find: LLVM describes all of its code, and agrees with the rules.
void ExpectAgreement(const testing::RuleAgreement& all, size_t functions) {
  EXPECT_EQ(functions, kShapesFunctions);
  EXPECT_EQ(all.other_base, 0u) << all.Describe();
  EXPECT_EQ(all.cfa_differs, 0u) << all.Describe();
  EXPECT_EQ(all.return_address_differs, 0u) << all.Describe();
  EXPECT_EQ(all.saved_differs, 0u) << all.Describe();
  // Not compared: a register the analysis has seen pushed while LLVM's CFI still calls it
  // unchanged (LLVM describes a prologue's pushes after the last of them). Until the code writes
  // the register, both are true.
  // Every instruction the analysis claims is compared: LLVM describes all of its code. And every
  // instruction that runs has a rule, a switch's cases too; only alignment padding has none.
  EXPECT_EQ(all.compared, all.claimed) << all.Describe();
  EXPECT_EQ(all.claimed + all.padding, all.instructions) << all.Describe();
}

TEST_P(LlvmCfiTest, RulesDerivedFromLlisCodeEqualLlvmsOwnCfi) {
  TempDir tmp;
  const std::string ll = tmp.path() + "/cfi_shapes.ll";
  std::vector<std::string> compile = {CLANG_14};
  compile.insert(compile.end(), GetParam().begin(), GetParam().end());
  compile.insert(compile.end(), {"-S", "-emit-llvm", CFI_SHAPES_C, "-o", ll});
  auto compiled = RunProgram(compile);
  ASSERT_TRUE(compiled.ok()) << compiled.Describe();
  auto ran = RunProgram(
      {LLI_14, "-jit-kind=mcjit", "-enable-cache-manager", "-object-cache-dir=" + tmp.path(), ll},
      {{"JITDUMPDIR", tmp.path()},
       {"LD_PRELOAD", JITSCOPE_FRAMES},
       {"JITSCOPE_OUTPUT_DIR", tmp.path()}});
  ASSERT_TRUE(ran.exited()) << ran.Describe();
  const std::string object =
      FindFile(tmp.path(), [](const std::string& name) { return name == "cfi_shapes.o"; });
  ASSERT_FALSE(object.empty()) << "lli's object cache is empty\n" << ran.Describe();
  const std::string linked = tmp.path() + "/cfi_shapes.elf";
  auto link = RunProgram(
      {LD_PROGRAM, "-e", "main", "--unresolved-symbols=ignore-all", "-o", linked, object});
  ASSERT_TRUE(link.ok()) << link.Describe();

  const std::string jitdump_path = FindFile(tmp.path(), [](const std::string& name) {
    return name.starts_with("jit-") && name.ends_with(".dump");
  });
  ASSERT_FALSE(jitdump_path.empty()) << "lli wrote no jitdump under " << tmp.path();
  const std::string bytes = ReadFile(jitdump_path);
  auto jitdump = formats::ParseJitdump(
      std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), jitdump_path);
  ASSERT_TRUE(jitdump.ok()) << jitdump.status().message();

  const std::string frames_path = FindFile(tmp.path(), [](const std::string& name) {
    return name.starts_with("frames-") && name.ends_with(".jsf");
  });
  ASSERT_FALSE(frames_path.empty()) << "lli registered no tables under " << tmp.path();
  const std::string frames_bytes = ReadFile(frames_path);
  auto frames = formats::ParseRegisteredFrames(
      std::span(reinterpret_cast<const uint8_t*>(frames_bytes.data()), frames_bytes.size()),
      frames_path);
  ASSERT_TRUE(frames.ok()) << frames.status().message();
  ASSERT_TRUE(frames->error.ok()) << frames->error.message();

  auto module = CfiModule::Open(linked);
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::map<std::string, testing::ElfFunction> by_name;
  for (const testing::ElfFunction& function : testing::ElfFunctions(linked)) {
    by_name[function.name] = function;
  }
  auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());

  // The registered table whose FDEs describe `address`, read once.
  std::map<const formats::FrameRegistration*, std::unique_ptr<CfiModule>> registered;
  const auto registered_at = [&](uint64_t address) -> CfiModule* {
    for (const formats::FrameRegistration& registration : frames->registrations) {
      for (const formats::CodeRange& range : registration.ranges) {
        if (address < range.begin || address >= range.end) continue;
        auto [it, inserted] = registered.try_emplace(&registration);
        if (inserted) {
          auto read = CfiModule::FromEhFrame(registration.eh_frame, registration.address);
          EXPECT_TRUE(read.ok()) << read.status().message();
          if (read.ok()) it->second = std::move(*read);
        }
        return it->second.get();
      }
    }
    return nullptr;
  };

  testing::RuleAgreement with_object, with_registered;
  size_t in_object = 0, in_registered = 0;
  for (const formats::JitdumpRecord& record : jitdump->records) {
    if (record.kind != formats::JitdumpRecordKind::kCodeLoad || record.code.empty()) continue;
    auto it = by_name.find(std::string(record.name));
    if (it == by_name.end()) continue;
    ASSERT_EQ(record.code.size(), it->second.size) << record.name;
    const testing::RuleAgreement one = testing::CompareWithCfi(
        *decoder, record.code, record.code_addr, **module, it->second.address);
    EXPECT_GT(one.compared, 0u) << record.name << ": " << one.Describe();
    with_object.Add(one);
    ++in_object;
    CfiModule* tables = registered_at(record.code_addr);
    EXPECT_NE(tables, nullptr) << record.name << " is in no registered table";
    if (tables == nullptr) continue;
    const testing::RuleAgreement as_registered =
        testing::CompareWithCfi(*decoder, record.code, record.code_addr, *tables, record.code_addr);
    // The same CFI, read where it ran: the same counts (the details name other addresses).
    const std::string counts = one.Describe().substr(0, one.Describe().find('\n'));
    EXPECT_EQ(as_registered.Describe().substr(0, as_registered.Describe().find('\n')), counts)
        << record.name;
    with_registered.Add(as_registered);
    ++in_registered;
  }
  ExpectAgreement(with_object, in_object);
  ExpectAgreement(with_registered, in_registered);
}

INSTANTIATE_TEST_SUITE_P(
    OptimisationLevels, LlvmCfiTest,
    ::testing::Values(std::vector<std::string>{"-O2", "-fomit-frame-pointer"},
                      std::vector<std::string>{"-O2", "-fno-omit-frame-pointer"},
                      std::vector<std::string>{"-O0"}, std::vector<std::string>{"-Os"},
                      std::vector<std::string>{"-O3", "-mavx2"}),
    [](const ::testing::TestParamInfo<std::vector<std::string>>& info) {
      std::string name;
      for (const std::string& option : info.param) {
        for (char c : option) {
          if (std::isalnum(static_cast<unsigned char>(c))) name += c;
        }
      }
      return name;
    });

}  // namespace
}  // namespace jitscope::unwind
