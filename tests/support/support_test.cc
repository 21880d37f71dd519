// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The tests' toolkit itself: every test's verdict rests on what these say about a run, a
// directory and a trace, so their meanings are pinned here.
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/folded.h"
#include "support/objdump.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/traces.h"
#include "support/v8_names.h"

namespace jitscope::test_support {
namespace {

namespace fs = std::filesystem;

TEST(SupportProcessTest, AnExitIsItsStatusWithItsOutput) {
  const ProcessResult run = RunProgram({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(run.started);
  EXPECT_TRUE(run.exited());
  EXPECT_FALSE(run.ok());
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.signal, 0);
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.out, "out\n");
  EXPECT_EQ(run.err, "err\n");
  EXPECT_EQ(run.Describe(),
            "`/bin/sh -c echo out; echo err >&2; exit 3` exited with 3\n--- stdout:\nout\n\n"
            "--- stderr:\nerr\n");
  EXPECT_TRUE(RunProgram({"/bin/true"}).ok());
}

TEST(SupportProcessTest, ASignalIsNotAnExitStatus) {
  const ProcessResult run = RunProgram({"/bin/sh", "-c", "kill -TERM $$"});
  EXPECT_TRUE(run.started);
  EXPECT_FALSE(run.exited());
  EXPECT_EQ(run.signal, SIGTERM);
  EXPECT_EQ(run.exit_code, -1);
  EXPECT_EQ(run.Describe(),
            "`/bin/sh -c kill -TERM $$` was ended by signal 15 (Terminated)\n--- stdout:\n\n"
            "--- stderr:\n");
}

TEST(SupportProcessTest, AProgramThatCannotStartSaysWhy) {
  const ProcessResult run = RunProgram({"/nonexistent/program"});
  EXPECT_FALSE(run.started);
  EXPECT_FALSE(run.exited());
  EXPECT_EQ(run.exit_code, -1);
  EXPECT_EQ(run.signal, 0);
  EXPECT_EQ(run.err, "cannot run /nonexistent/program: No such file or directory");
  // Without a slash the program is searched in PATH.
  EXPECT_EQ(RunProgram({"sh", "-c", "echo found"}).out, "found\n");
}

TEST(SupportProcessTest, TheEnvironmentIsThisProcessesWithUnsetRemovedAndEnvSetOverIt) {
  ASSERT_EQ(::setenv("JITSCOPE_SUPPORT_A", "inherited", 1), 0);
  ASSERT_EQ(::setenv("JITSCOPE_SUPPORT_B", "inherited", 1), 0);
  ::unsetenv("JITSCOPE_SUPPORT_C");
  const std::string show =
      "echo "
      "\"${JITSCOPE_SUPPORT_A-unset}|${JITSCOPE_SUPPORT_B-unset}|${JITSCOPE_SUPPORT_C-unset}\"";
  EXPECT_EQ(RunProgram({"/bin/sh", "-c", show}).out, "inherited|inherited|unset\n");
  EXPECT_EQ(RunProgram({"/bin/sh", "-c", show}, {{"JITSCOPE_SUPPORT_C", ""}},
                       {.unset = {"JITSCOPE_SUPPORT_B"}})
                .out,
            "inherited|unset|\n");
  EXPECT_EQ(RunProgram({"/bin/sh", "-c", show}, {{"JITSCOPE_SUPPORT_A", "set"}},
                       {.unset = {"JITSCOPE_SUPPORT_A"}})
                .out,
            "set|inherited|unset\n");
  ::unsetenv("JITSCOPE_SUPPORT_A");
  ::unsetenv("JITSCOPE_SUPPORT_B");
}

TEST(SupportProcessTest, RunsInTheDirectoryAskedForWithStdinEmpty) {
  const TempDir dir;
  const ProcessResult pwd = RunProgram({"/bin/pwd", "-P"}, {}, {.cwd = dir.path()});
  EXPECT_EQ(pwd.out, fs::canonical(dir.path()).string() + "\n") << pwd.Describe();
  const ProcessResult cat = RunProgram({"/bin/cat"});
  EXPECT_TRUE(cat.ok()) << cat.Describe();
  EXPECT_EQ(cat.out, "");
}

TEST(SupportProcessTest, AProgramPastItsTimeoutIsKilled) {
  const ProcessResult run =
      RunProgram({"/bin/sleep", "600"}, {}, {.timeout = std::chrono::seconds(1)});
  EXPECT_TRUE(run.timed_out);
  EXPECT_EQ(run.signal, SIGKILL);
  EXPECT_EQ(run.exit_code, -1);
  EXPECT_EQ(run.Describe(),
            "`/bin/sleep 600` ran past its timeout and was killed\n--- stdout:\n\n--- stderr:\n");
}

TEST(SupportProcessTest, StdoutCanBeReadWhileItRuns) {
  Process process({"/bin/sh", "-c", "printf ready; exec /bin/sleep 600"});
  ASSERT_GT(process.pid(), 0);
  char ready[5];
  size_t have = 0;
  while (have < sizeof ready) {
    const ssize_t n = ::read(process.stdout_fd(), ready + have, sizeof ready - have);
    ASSERT_GT(n, 0);
    have += static_cast<size_t>(n);
  }
  EXPECT_EQ(std::string(ready, have), "ready");
  ASSERT_EQ(::kill(process.pid(), SIGKILL), 0);
  const ProcessResult run = process.Wait();
  EXPECT_EQ(run.signal, SIGKILL);
  EXPECT_FALSE(run.timed_out);
  EXPECT_EQ(run.out, "");  // what the test read is not read again
}

TEST(SupportProcessTest, AChildNotWaitedForIsKilledAndReaped) {
  pid_t pid = -1;
  {
    Process process({"/bin/sleep", "600"});
    pid = process.pid();
    ASSERT_GT(pid, 0);
  }
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(SupportProcessTest, CpuTicksAreWhatAProcessHasUsed) {
  // This process: spin until the kernel has counted a tick of it.
  volatile uint64_t spin = 0;
  for (int checks = 0; checks < 100000 && ProcessCpuTicks(::getpid()) == 0; ++checks) {
    for (int i = 0; i < 1000000; ++i) spin = spin + 1;
  }
  EXPECT_GT(ProcessCpuTicks(::getpid()), 0);
  // A process that is gone has none.
  Process process({"/bin/true"});
  const pid_t pid = process.pid();
  ASSERT_TRUE(process.Wait().ok());
  EXPECT_EQ(ProcessCpuTicks(pid), 0);
}

// CPU time of this process's children that were waited for, in seconds.
double ChildrenCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

TEST(SupportCpuTimeTest, SpinUsesTheCpuTimeAskedFor) {
  const double before = ChildrenCpuSeconds();
  ASSERT_TRUE(RunProgram({CPU_TIME, "spin", "0.2"}).ok());
  EXPECT_GE(ChildrenCpuSeconds() - before, 0.2);
}

TEST(SupportCpuTimeTest, WaitEndsOnceTheProcessesUsedTheirTimeOrEnded) {
  Process spinning({CPU_TIME, "spin", "600"});
  Process ended({"/bin/true"});
  const pid_t gone = ended.pid();
  ASSERT_TRUE(ended.Wait().ok());
  const long ticks = ProcessCpuTicks(spinning.pid());
  const ProcessResult wait =
      RunProgram({CPU_TIME, "wait", "0.2", std::to_string(spinning.pid()), std::to_string(gone)});
  EXPECT_TRUE(wait.ok()) << wait.Describe();
  EXPECT_GE(ProcessCpuTicks(spinning.pid()) - ticks, ::sysconf(_SC_CLK_TCK) / 5);
}

TEST(SupportCpuTimeTest, UsageErrorsExit2) {
  for (const std::vector<std::string>& argv : {std::vector<std::string>{CPU_TIME},
                                               {CPU_TIME, "spin", "x"},
                                               {CPU_TIME, "wait", "1"},
                                               {CPU_TIME, "run", "1"},
                                               {CPU_TIME, "spin", "-1"}}) {
    const ProcessResult run = RunProgram(argv);
    EXPECT_EQ(run.exit_code, 2) << run.Describe();
    EXPECT_EQ(run.err, "usage: cpu_time spin SECONDS | cpu_time wait SECONDS PID...\n");
  }
}

TEST(SupportTempDirTest, AFreshDirectoryRemovedWithItsTree) {
  std::string path;
  {
    const TempDir dir;
    path = dir.path();
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_TRUE(fs::is_empty(path));
    EXPECT_EQ(fs::path(path).filename().string().rfind("jitscope-test.", 0), 0u) << path;
    fs::create_directories(path + "/a/b");
    ASSERT_TRUE(WriteFile(path + "/a/b/c", "c"));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(SupportTempDirTest, OnlyTheLastOwnerRemovesIt) {
  TempDir first;
  const std::string path = first.path();
  TempDir second(std::move(first));
  EXPECT_EQ(first.path(), "");  // a moved-from owner holds nothing
  EXPECT_EQ(second.path(), path);
  TempDir third;
  const std::string replaced = third.path();
  third = std::move(second);
  EXPECT_FALSE(fs::exists(replaced));
  EXPECT_EQ(third.path(), path);
  EXPECT_TRUE(fs::is_directory(path));
}

TEST(SupportTracesTest, FindTraceIsTheOneTraceOrSaysWhatIsThere) {
  const TempDir dir;
  const std::string& d = dir.path();
  base::StatusOr<std::string> found = FindTrace(d);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(), "expected one trace jit-*.jsc in " + d + ", which holds []");

  ASSERT_TRUE(WriteFile(d + "/jit-1.jsc", ""));
  ASSERT_TRUE(WriteFile(d + "/jit-1.dump", ""));
  found = FindTrace(d);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(*found, d + "/jit-1.jsc");

  ASSERT_TRUE(WriteFile(d + "/jit-1.1.jsc", ""));
  found = FindTrace(d);
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(), "expected one trace jit-*.jsc in " + d +
                                          ", which holds [jit-1.1.jsc, jit-1.dump, jit-1.jsc]");
  EXPECT_EQ(TracesIn(d), (std::vector<std::string>{d + "/jit-1.1.jsc", d + "/jit-1.jsc"}));

  const TempDir other;
  ASSERT_TRUE(WriteFile(other.path() + "/session.jsc", ""));
  found = FindTrace(other.path());
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(),
            "expected one trace jit-*.jsc in " + other.path() + ", which holds [session.jsc]");

  found = FindTrace(d + "/missing");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().message(), "expected one trace jit-*.jsc in " + d +
                                          "/missing, which cannot be listed: No such file or "
                                          "directory");
  EXPECT_TRUE(TracesIn(d + "/missing").empty());
}

TEST(SupportFilesTest, WholeFilesAsStrings) {
  const TempDir dir;
  const std::string bytes("a\0b\n", 4);
  ASSERT_TRUE(WriteFile(dir.path() + "/f", bytes));
  EXPECT_EQ(ReadFile(dir.path() + "/f"), bytes);
  ASSERT_TRUE(WriteFile(dir.path() + "/f", "c"));
  EXPECT_EQ(ReadFile(dir.path() + "/f"), "c");
  EXPECT_EQ(ReadFile(dir.path() + "/missing"), "");
  EXPECT_FALSE(WriteFile(dir.path() + "/missing/f", "c"));
}

// An instruction longer than objdump's 7 bytes a line is one instruction of its whole length;
// bytes objdump cannot decode are listed too.
TEST(SupportFoldedTest, StacksOutermostFirstWithTheirCounts) {
  const std::vector<FoldedStack> stacks =
      ParseFolded("_start;main;f [optimized]_[j] 3\nleaf 12\nno count here\n\nbad 1x\n");
  ASSERT_EQ(stacks.size(), 2u);
  EXPECT_EQ(stacks[0].frames, (std::vector<std::string>{"_start", "main", "f [optimized]_[j]"}));
  EXPECT_EQ(stacks[0].samples, 3u);
  EXPECT_EQ(stacks[0].Joined(), "_start;main;f [optimized]_[j]");
  EXPECT_EQ(stacks[1].leaf(), "leaf");
  EXPECT_EQ(stacks[1].samples, 12u);
  EXPECT_EQ(SamplesThrough(stacks, "main"), 3u);
  EXPECT_EQ(SamplesThrough(stacks, "leaf"), 12u);
  EXPECT_EQ(SamplesThrough(stacks, "mai"), 0u);

  const std::vector<FoldedStack> walks = ParseFolded(
      "__libc_start_call_main;main;a;b 5\nmain;a;b 3\n__libc_start_call_main;main;x;a;b 2\n"
      "__libc_start_call_main;a 7\n");
  const WalkShare from_entry = ShareWalkedThrough(walks, "b", {"main", "a"}, true);
  EXPECT_EQ(from_entry.total, 10u);
  EXPECT_EQ(from_entry.complete, 5u);
  const WalkShare anywhere = ShareWalkedThrough(walks, "b", {"main", "a", "b"}, false);
  EXPECT_EQ(anywhere.total, 10u);
  EXPECT_EQ(anywhere.complete, 8u);
  EXPECT_TRUE(IsThreadEntryFrame("__libc_start_main@GLIBC_2.2.5"));
  EXPECT_TRUE(IsThreadEntryFrame("start_thread"));
  EXPECT_FALSE(IsThreadEntryFrame("_start"));
}

TEST(SupportObjdumpTest, ListsEachInstructionWithItsWholeLength) {
  // vmovups %zmm7,0x1000(%rdi); movabs $0x1122334455667788,%rax; ret; (bad) 0xff; .byte 0xff
  const uint8_t code[] = {0x62, 0xf1, 0x7c, 0x48, 0x11, 0xbf, 0x00, 0x10, 0x00, 0x00, 0x48, 0xb8,
                          0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0xc3, 0xff, 0xff};
  const auto listing = ObjdumpListing(code);
  ASSERT_TRUE(listing.ok()) << listing.status().message();
  std::string text;
  for (const auto& [offset, instruction] : *listing) {
    EXPECT_EQ(offset, instruction.offset);
    text += std::to_string(offset) + " " + std::to_string(instruction.length) + " " +
            Normalise(instruction.text) + "\n";
  }
  EXPECT_EQ(text,
            "0 10 vmovups %zmm7,0x1000(%rdi)\n"
            "10 10 movabs $0x1122334455667788,%rax\n"
            "20 1 ret\n"
            "21 1 (bad)\n"
            "22 1 .byte 0xff\n");
}

// Form may differ (spelling, spacing, zero padding, comments); length, mnemonic and operands may
// not, and each difference names the offset and both texts.
TEST(SupportObjdumpComparisonTest, OnlyFormMayDiffer) {
  EXPECT_EQ(Normalise("je     0x0000002a <.data+0x2a>"), "je 0x2a");
  EXPECT_EQ(Normalise("vaddps 0x20(%rip),%ymm1,%ymm2        # 0x11d"),
            "vaddps 0x20(%rip),%ymm1,%ymm2");
  EXPECT_EQ(Normalise("rep movsb %ds:(%rsi),%es:(%rdi)"), "rep movsb");
  EXPECT_EQ(Normalise("nopw   0x0(%rax,%rax,1)"), "nopw (%rax,%rax,1)");
  EXPECT_EQ(Normalise("nop %ax,(%rax,%rax,1)"), "nopw (%rax,%rax,1)");
  EXPECT_EQ(Normalise("nop %eax,(%rax)"), "nopl (%rax)");
  EXPECT_EQ(Normalise("xchg   %ax,%ax"), "nop");
  EXPECT_EQ(Normalise("prefetcht0 0x0(%rbp)"), "prefetcht0 (%rbp)");
  EXPECT_EQ(Normalise("mov $0x0,%eax"), "mov $0x0,%eax");
  EXPECT_EQ(Normalise("vcmpnleps 0xc0(%r9),%zmm1,%k1"), "vcmpps $0x6,0xc0(%r9),%zmm1,%k1");
  EXPECT_EQ(Normalise("vcmpneq_oqpd %ymm1,%ymm2,%ymm3"), "vcmppd $0xc,%ymm1,%ymm2,%ymm3");
  EXPECT_EQ(Normalise("cmpltss %xmm1,%xmm2"), "cmpss $0x1,%xmm1,%xmm2");
  EXPECT_EQ(Normalise("cmpsb %es:(%rdi),%ds:(%rsi)"), "cmpsb %es:(%rdi),%ds:(%rsi)");
  EXPECT_TRUE(SameInstruction("jz 0x2a", "je 0x2a"));
  EXPECT_TRUE(SameInstruction("jnle 0x2a", "jg 0x2a"));
  EXPECT_TRUE(SameInstruction("cmovnb %rax,%rbx", "cmovae %rax,%rbx"));
  EXPECT_TRUE(SameInstruction("setnz %al", "setne %al"));
  EXPECT_FALSE(SameInstruction("jnle 0x2a", "jge 0x2a"));
  EXPECT_FALSE(SameInstruction("jmp 0x2a", "jnz 0x2a"));
  EXPECT_TRUE(SameInstruction("vmovupsz 0x40(%rsi),%zmm0", "vmovups 0x40(%rsi),%zmm0"));
  EXPECT_FALSE(SameInstruction("jz 0x2a", "jne 0x2a"));
  EXPECT_FALSE(SameInstruction("vmovups %zmm1,%zmm0", "vmovups %zmm0,%zmm1"));
  EXPECT_FALSE(SameInstruction("vaddps %ymm1,%ymm2,%ymm3", "vaddpd %ymm1,%ymm2,%ymm3"));

  const std::map<uint64_t, ListedInstruction> objdump = {{0, {0, 1, "push   %rbp"}},
                                                         {1, {1, 4, "sub    $0x00000020,%rsp"}},
                                                         {5, {5, 2, "je     0x0000002a"}},
                                                         {7, {7, 3, "mov    (%rax),%rbx"}}};
  const std::vector<ListedInstruction> same = {
      {0, 1, "push %rbp"}, {1, 4, "sub $0x20,%rsp"}, {5, 2, "jz 0x2a"}, {7, 3, "mov (%rax),%rbx"}};
  EXPECT_TRUE(DifferencesFromObjdump(same, objdump).empty());
  const std::vector<ListedInstruction> other = {
      {1, 3, "sub $0x20,%rsp"}, {6, 1, "push %rbx"}, {7, 3, "mov (%rax),%rcx"}};
  EXPECT_EQ(DifferencesFromObjdump(other, objdump),
            (std::vector<std::string>{
                "at 0x1: ours \"sub $0x20,%rsp\" (3 bytes), objdump \"sub $0x20,%rsp\" (4 bytes)",
                "at 0x6: ours \"push %rbx\" (1 bytes), objdump has no instruction there (its \"je "
                "0x2a\" at 0x5 covers it)",
                "at 0x7: ours \"mov (%rax),%rcx\" (3 bytes), objdump \"mov (%rax),%rbx\" (3 "
                "bytes)"}));
}

// Node 20's names and Node 18's, parsed alike; anything else is not one.
TEST(SupportV8NamesTest, BothNodesNamesParse) {
  const auto node20 = ParseV8CodeName("JS:*fibonacciHot /tmp/a b/hot.js:1:22");
  ASSERT_TRUE(node20.has_value());
  EXPECT_EQ(node20->tag, "JS");
  EXPECT_EQ(node20->tier, '*');
  EXPECT_EQ(node20->function, "fibonacciHot");
  EXPECT_EQ(node20->script, "/tmp/a b/hot.js");
  EXPECT_EQ(node20->line, 1u);
  EXPECT_EQ(node20->column, 22u);
  const auto node18 = ParseV8CodeName("LazyCompile:*fibonacciHot /tmp/hot.js:1");
  ASSERT_TRUE(node18.has_value());
  EXPECT_EQ(node18->tag, "LazyCompile");
  EXPECT_EQ(node18->function, "fibonacciHot");
  EXPECT_EQ(node18->script, "/tmp/hot.js");
  EXPECT_EQ(node18->line, 1u);
  EXPECT_FALSE(node18->column.has_value());
  const auto top_level = ParseV8CodeName("JS:^ /tmp/t.js:1:1");
  ASSERT_TRUE(top_level.has_value());
  EXPECT_EQ(top_level->tier, '^');
  EXPECT_EQ(top_level->function, "");

  EXPECT_TRUE(IsV8CodeOf("JS:*f /t.js:3:13", '*', "f", "/t.js", 3, 13));
  EXPECT_TRUE(IsV8CodeOf("LazyCompile:*f /t.js:3", '*', "f", "/t.js", 3, 13));
  EXPECT_FALSE(IsV8CodeOf("JS:*f /t.js:3:14", '*', "f", "/t.js", 3, 13));
  EXPECT_FALSE(IsV8CodeOf("JS:^f /t.js:3:13", '*', "f", "/t.js", 3, 13));
  EXPECT_FALSE(ParseV8CodeName("JS:*f /t.js:3").has_value()) << "V8 11 names have a column";
  EXPECT_FALSE(ParseV8CodeName("fibonacci").has_value());
  EXPECT_FALSE(ParseV8CodeName("Builtin:ArgumentsAdaptorTrampoline").has_value());
  EXPECT_FALSE(ParseV8CodeName("stub 0x1234:5").has_value());
}

}  // namespace
}  // namespace jitscope::test_support
