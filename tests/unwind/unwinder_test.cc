// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Unwinds stacks captured in this very process (chain.c, built without frame pointers) through
// the test's own ELF files and checks the exact chain of function names.
#include "jitscope/unwind/unwinder.h"

#include "jitscope/unwind/call_check.h"

#include <asm/perf_regs.h>
#include <dlfcn.h>
#include <link.h>
#include <linux/perf_event.h>
#include <sys/auxv.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "chain.h"

namespace jitscope::unwind {
namespace {

// The modules of this process, from the dynamic linker's list.
class SelfAddressSpace : public AddressSpace {
 public:
  SelfAddressSpace() {
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
          auto* self = static_cast<SelfAddressSpace*>(data);
          std::string path = info->dlpi_name == nullptr ? "" : info->dlpi_name;
          if (path.empty()) path = "/proc/self/exe";
          if (path.find("linux-vdso") != std::string::npos) return 0;
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& phdr = info->dlpi_phdr[i];
            if (phdr.p_type != PT_LOAD || (phdr.p_flags & PF_X) == 0) continue;
            self->ranges_.push_back({info->dlpi_addr + phdr.p_vaddr,
                                     info->dlpi_addr + phdr.p_vaddr + phdr.p_memsz, path,
                                     info->dlpi_addr});
          }
          return 0;
        },
        this);
  }

  bool Find(uint64_t pc, ModuleAt& found) override {
    for (const Range& range : ranges_) {
      if (pc < range.start || pc >= range.end) continue;
      auto [it, inserted] = modules_.try_emplace(range.path);
      if (inserted) {
        auto module = CfiModule::Open(range.path);
        if (module.ok()) it->second = std::move(*module);
      }
      if (it->second == nullptr) return false;
      found = {it->second.get(), range.bias};
      return true;
    }
    return false;
  }

 private:
  struct Range {
    uint64_t start, end;
    std::string path;
    uint64_t bias;
  };
  std::vector<Range> ranges_;
  std::map<std::string, std::unique_ptr<CfiModule>> modules_;
};

session::UserRegs PerfRegs(const CapturedStack& captured) {
  session::UserRegs regs;
  regs.abi = PERF_SAMPLE_REGS_ABI_64;
  regs.mask = session::kX86_64RegsMask;
  for (int i = 0; i < PERF_REG_X86_64_MAX; ++i) {
    if ((regs.mask >> i) & 1) regs.values[static_cast<size_t>(i)] = captured.regs[i];
  }
  return regs;
}

// The exported symbol (the test is linked with -rdynamic) at a frame's pc, looked up one byte
// back for return addresses.
std::string NameOf(const UnwoundFrame& frame) {
  Dl_info info{};
  const uint64_t address = frame.activation ? frame.pc : frame.pc - 1;
  if (dladdr(reinterpret_cast<void*>(address), &info) == 0) return "?";
  if (info.dli_sname == nullptr) {
    const std::string file = info.dli_fname == nullptr ? "" : info.dli_fname;
    return "[" + file.substr(file.rfind('/') + 1) + "]";
  }
  return info.dli_sname;
}

std::vector<std::string> Names(const UnwindResult& result) {
  std::vector<std::string> names;
  for (const UnwoundFrame& frame : result.frames) names.push_back(NameOf(frame));
  return names;
}

UnwindResult UnwindCaptured(const CapturedStack& captured, size_t stack_bytes,
                            size_t max_frames = 256) {
  SelfAddressSpace space;
  const std::string_view stack(reinterpret_cast<const char*>(captured.stack),
                               std::min(stack_bytes, captured.stack_size));
  UnwindResult result;
  Unwind(RegisterFile::FromPerf(PerfRegs(captured)), StackMemory(captured.stack_start, stack),
         space, {.max_frames = max_frames}, result);
  return result;
}

std::unique_ptr<CapturedStack> CaptureChain() {
  auto captured = std::make_unique<CapturedStack>();
  EXPECT_EQ(chain_outer(captured.get(), 0), (3 + 2) * 3 + 1) << "every call returned";
  return captured;
}

TEST(UnwinderTest, WalksAFramePointerLessChainToTheThreadsEntry) {
  const auto captured = CaptureChain();
  const UnwindResult result = UnwindCaptured(*captured, captured->stack_size);
  const std::vector<std::string> names = Names(result);
  ASSERT_GE(names.size(), 7u) << ::testing::PrintToString(names);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 5),
            (std::vector<std::string>{"chain_capture", "chain_leaf", "chain_inner", "chain_middle",
                                      "chain_outer"}));
  EXPECT_TRUE(result.frames[0].activation);
  EXPECT_FALSE(result.frames[1].activation);
  EXPECT_NE(std::find(names.begin(), names.end(), "main"), names.end())
      << ::testing::PrintToString(names);
  EXPECT_EQ(names.back(), "_start") << ::testing::PrintToString(names);
  EXPECT_EQ(result.reason, StopReason::kOutermost);
}

// call_check.h: every return address of a real walk follows a call in its file's bytes; an
// address no loaded segment holds does not.
TEST(UnwinderTest, ReturnAddressesInElfFilesFollowCalls) {
  const auto captured = CaptureChain();
  const UnwindResult result = UnwindCaptured(*captured, captured->stack_size);
  ASSERT_GE(result.frames.size(), 7u);
  SelfAddressSpace space;
  size_t checked = 0;
  for (size_t i = 1; i < result.frames.size(); ++i) {
    const uint64_t pc = result.frames[i].pc;
    ModuleAt at;
    if (!space.Find(pc - 1, at)) continue;
    EXPECT_TRUE(FollowsCall(*at.module, pc - at.bias)) << NameOf(result.frames[i]);
    ++checked;
  }
  EXPECT_GE(checked, 6u);
  ModuleAt at;
  ASSERT_TRUE(space.Find(result.frames[1].pc - 1, at));
  EXPECT_FALSE(FollowsCall(*at.module, uint64_t{1} << 60));
}

TEST(UnwinderTest, FollowsASignalFrameToTheInterruptedFunctionWithoutStepping1Back) {
  auto captured = std::make_unique<CapturedStack>();
  ASSERT_EQ(chain_signal_outer(captured.get()), 1);
  const UnwindResult result = UnwindCaptured(*captured, captured->stack_size);
  const std::vector<std::string> names = Names(result);
  ASSERT_GE(names.size(), 6u) << ::testing::PrintToString(names);
  EXPECT_EQ(names[0], "chain_capture");
  EXPECT_EQ(names[1], "chain_handler");
  // names[2] is glibc's signal trampoline (__restore_rt, not exported).
  EXPECT_EQ(names[3], "chain_spin") << ::testing::PrintToString(names);
  EXPECT_TRUE(result.frames[3].activation) << "the interrupted pc is exact";
  EXPECT_EQ(names[4], "chain_signal_outer");
  EXPECT_EQ(names.back(), "_start") << ::testing::PrintToString(names);
  EXPECT_EQ(result.reason, StopReason::kOutermost);
}

TEST(UnwinderTest, AShortStackCopyEndsTheWalkAndSaysSo) {
  const auto captured = CaptureChain();
  // Enough for chain_capture's return address and chain_leaf's frame, not for chain_inner's.
  const UnwindResult result = UnwindCaptured(*captured, 16);
  EXPECT_EQ(result.reason, StopReason::kStackCopyTooShort);
  EXPECT_LE(result.frames.size(), 3u);
  EXPECT_EQ(NameOf(result.frames.at(0)), "chain_capture");
}

TEST(UnwinderTest, TheDepthLimitBoundsTheWalk) {
  const auto captured = CaptureChain();
  const UnwindResult result = UnwindCaptured(*captured, captured->stack_size, 3);
  EXPECT_EQ(result.reason, StopReason::kDepthLimit);
  EXPECT_EQ(Names(result),
            (std::vector<std::string>{"chain_capture", "chain_leaf", "chain_inner"}));
}

TEST(UnwinderTest, CodeWithoutCfiHasNoRule) {
  auto captured = CaptureChain();
  captured->regs[PERF_REG_X86_IP] = 0x1000;  // no module there
  const UnwindResult result = UnwindCaptured(*captured, captured->stack_size);
  EXPECT_EQ(result.reason, StopReason::kNoRule);
  EXPECT_EQ(result.frames, (std::vector<UnwoundFrame>{{0x1000, true}}));
}

TEST(UnwinderTest, GarbageStackEndsBoundedNeverCrashes) {
  auto captured = CaptureChain();
  // Every word of the stack points back into chain_leaf, so each step finds a rule.
  for (size_t i = 0; i + 8 <= captured->stack_size; i += 8) {
    const uint64_t value = reinterpret_cast<uint64_t>(&chain_leaf) + 1 + (i % 7);
    memcpy(captured->stack + i, &value, 8);
  }
  const UnwindResult result = UnwindCaptured(*captured, captured->stack_size, 64);
  EXPECT_NE(result.reason, StopReason::kOutermost);
  EXPECT_LE(result.frames.size(), 64u);
}

// The dynamic loader's entry code (ld.so's `_start`: it calls _dl_start, then _dl_init, then jumps
// to the program's entry) has no CFI, and no caller: a walk that reaches it is complete.
TEST(UnwinderTest, TheDynamicLoadersEntryCodeIsTheOutermostFrame) {
  const uint64_t base = getauxval(AT_BASE);  // where the kernel loaded the program interpreter
  ASSERT_NE(base, 0u) << "the test runs through ld.so";
  std::pair<uint64_t, std::string> wanted(base, "");
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* wanted = static_cast<std::pair<uint64_t, std::string>*>(data);
        if (info->dlpi_addr == wanted->first && info->dlpi_name != nullptr) {
          wanted->second = info->dlpi_name;
        }
        return 0;
      },
      &wanted);
  ASSERT_FALSE(wanted.second.empty());
  auto opened = CfiModule::Open(wanted.second);
  ASSERT_TRUE(opened.ok()) << wanted.second;
  CfiModule& loader = **opened;
  ASSERT_TRUE(loader.entry().has_value());
  const uint64_t entry = *loader.entry();
  EXPECT_EQ(loader.Find(entry), nullptr) << "ld.so's entry has no CFI";
  EXPECT_TRUE(InEntryCode(loader, entry));
  ASSERT_TRUE(loader.entry_call_end.has_value());
  const uint64_t end = *loader.entry_call_end;
  ASSERT_GT(end, entry);
  EXPECT_TRUE(FollowsCall(loader, end)) << "the run ends with a call";
  EXPECT_TRUE(InEntryCode(loader, end - 1));
  EXPECT_FALSE(InEntryCode(loader, end));
  EXPECT_FALSE(InEntryCode(loader, entry - 1));

  // A sample taken at the entry: one frame, the end of the stack.
  auto captured = CaptureChain();
  captured->regs[PERF_REG_X86_IP] = base + entry;
  const UnwindResult result = UnwindCaptured(*captured, captured->stack_size);
  EXPECT_EQ(result.reason, StopReason::kOutermost);
  EXPECT_EQ(result.frames, (std::vector<UnwoundFrame>{{base + entry, true}}));
}

TEST(UnwinderTest, SamplesWithoutUserRegistersAreCounted) {
  SelfAddressSpace space;
  UnwindResult result;
  Unwind(RegisterFile::FromPerf(session::UserRegs{}), StackMemory(), space, {}, result);
  EXPECT_EQ(result.reason, StopReason::kNoRegisters);
  EXPECT_TRUE(result.frames.empty());
  UnwindStats stats;
  stats.Count(result.reason);
  EXPECT_EQ(stats.Of(StopReason::kNoRegisters), 1u);
  EXPECT_STREQ(StopReasonName(StopReason::kStackCopyTooShort), "stack copy too short");
}

}  // namespace
}  // namespace jitscope::unwind
