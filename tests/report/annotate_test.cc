// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/annotate.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>
#include <xbyak/xbyak.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/symbolize/index_builder.h"

// A native function of this test program, annotated from the program's own ELF file. Not checked
// by UBSan's -fsanitize=function, which puts its signature, data, at the start of the code (a
// jump over it, then bytes whose decoding depends on where the program's type info lies).
#if defined(__clang__)
#define JITSCOPE_CODE_ONLY __attribute__((no_sanitize("function")))
#else
#define JITSCOPE_CODE_ONLY
#endif
constexpr int kNativeFirstLine = __LINE__;
extern "C" __attribute__((noinline)) JITSCOPE_CODE_ONLY int JitscopeAnnotateTestNative(int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += i * i;
    asm volatile("" : "+r"(sum));
  }
  return sum;
}
constexpr int kNativeLastLine = __LINE__;

namespace jitscope::report {
namespace {

using namespace Xbyak::util;  // NOLINT: register names, as xbyak code is written

constexpr uint64_t kHot = 0x7f0000001000;     // series, first version, and later a re-JIT of it
constexpr uint64_t kCold = 0x7f0000002000;    // series' cold region (the same method)
constexpr uint64_t kDriver = 0x7f0000003000;  // calls series
constexpr uint32_t kPid = 42;
constexpr uint64_t kMs = 1'000'000;  // times are CLOCK_MONOTONIC nanoseconds

std::vector<uint8_t> Bytes(const Xbyak::CodeGenerator& code) {
  return std::vector<uint8_t>(code.getCode(), code.getCode() + code.getSize());
}

// series as first compiled: a loop whose body is square(x) inlined, then a byte of data.
class Series : public Xbyak::CodeGenerator {
 public:
  Series() {
    Xbyak::Label loop;
    push(rbp);                 // 0   hot.jv:30
    mov(rbp, rsp);             // 1
    xor_(eax, eax);            // 4   hot.jv:31
    L(loop);                   //
    vmulsd(xmm0, xmm1, xmm1);  // 6   square, hot.jv:12, inlined at hot.jv:37
    vaddsd(xmm2, xmm2, xmm0);  // 10  hot.jv:37
    add(eax, 1);               // 14
    cmp(eax, 100);             // 17
    jl(loop);                  // 20
    pop(rbp);                  // 22  hot.jv:38
    ret();                     // 23
    db(0x06);                  // 24  data: not an instruction in 64-bit code
  }
};

// series re-JITted at the same address: a different version.
class SeriesAgain : public Xbyak::CodeGenerator {
 public:
  SeriesAgain() {
    mov(eax, 42);  // 0
    ret();         // 5
  }
};

// series' cold region: jumps back into the hot one.
class SeriesCold : public Xbyak::CodeGenerator {
 public:
  SeriesCold() {
    Xbyak::Label self;
    L(self);
    inc(ecx);           // 0
    jz(self);           // 2: a target inside this region
    jmp(ptr[rip + 0]);  // 4: indirect
  }
};

// driver: calls series through a register; its call returns to +6.
class Driver : public Xbyak::CodeGenerator {
 public:
  Driver() {
    sub(rsp, 8);  // 0
    call(rax);    // 4
    add(rsp, 8);  // 6
    ret();        // 10
  }
};

// What every text output starts with.
const std::string kHeader =
    "# jitscope annotate: jitvm hot.jv\n"
    "# 17 samples in the session; an instruction's are those taken on it (the leaf of their "
    "stack)\n"
    "# note: samples land on the instruction after the one that was slow (skid): with cpu-clock, "
    "the\n"
    "#   interrupt is taken once the slow instruction retires, so read a hot instruction as \"the "
    "one\n"
    "#   before it is slow\" (see docs/annotate.md)\n"
    "# '*': an instruction with 5% or more of its version's samples\n";

class AnnotateTest : public ::testing::Test {
 protected:
  AnnotateTest()
      : series_(Bytes(Series())),
        again_(Bytes(SeriesAgain())),
        cold_(Bytes(SeriesCold())),
        driver_(Bytes(Driver())) {
    symbolize::IndexBuilder builder;
    const std::vector<trace::LineEntry> lines = {{4, 30}, {6, 31}, {22, 37}, {25, 38}};
    symbolize::CodeReport hot;
    hot.time = 1000 * kMs;
    hot.method_id = 7;
    hot.address = kHot;
    hot.size = series_.size();
    hot.name = "series";
    hot.source_file = "hot.jv";
    hot.module = "jitvm";
    hot.end_offset_lines = lines;
    builder.AddLoad(hot);
    const std::vector<trace::LineEntry> square_lines = {{4, 12}};
    symbolize::CodeReport square = hot;
    square.method_id = 9;
    square.name = "square";
    square.address = kHot + 6;
    square.size = 4;
    square.end_offset_lines = square_lines;
    builder.AddInlineLoad(square, 7);
    const std::vector<trace::LineEntry> cold_lines = {{10, 40}};
    symbolize::CodeReport cold = hot;
    cold.address = kCold;
    cold.size = cold_.size();
    cold.end_offset_lines = cold_lines;
    builder.AddLoad(cold);
    const std::vector<trace::LineEntry> again_lines = {{6, 36}};
    symbolize::CodeReport again = hot;
    again.time = 2000 * kMs;
    again.method_id = 8;
    again.size = again_.size();
    again.end_offset_lines = again_lines;
    builder.AddLoad(again);
    symbolize::CodeReport driver = hot;
    driver.method_id = 3;
    driver.name = "driver";
    driver.address = kDriver;
    driver.size = driver_.size();
    driver.end_offset_lines = {};
    builder.AddLoad(driver);
    index_ = std::move(builder).Build();
    code_.Add(1000 * kMs, kHot, series_);
    code_.Add(1000 * kMs, kCold, cold_);
    code_.Add(2000 * kMs, kHot, again_);
    code_.Add(1000 * kMs, kDriver, driver_);

    auto at = [this](uint64_t address, uint64_t time, int count,
                     std::vector<walk::StackAddress> callers = {}) {
      for (int i = 0; i < count; ++i) {
        std::vector<walk::StackAddress> stack = {{address, false, false}};
        stack.insert(stack.end(), callers.begin(), callers.end());
        samples_.push_back({time * kMs, std::move(stack)});
      }
    };
    const walk::StackAddress from_driver = {kDriver + 6, false, true};
    at(kHot + 0, 1100, 1);
    at(kHot + 6, 1200, 1);                  // the multiply...
    at(kHot + 10, 1300, 3, {from_driver});  // ...and, by skid, mostly the add after it
    at(kHot + 10, 1300, 1, {from_driver, {0x400000, false, true}, from_driver});  // recursion
    at(kHot + 10, 1300, 2);
    at(kHot + 20, 1400, 2);
    at(kCold + 2, 1500, 2);
    at(kHot + 5, 2500, 3);          // the re-JIT's ret
    at(0x400000, 1600, 1);          // native code in no mapping: not annotated
    at(0, 1700, 1, {from_driver});  // a kernel leaf: no leaf sample, but a call site
    samples_.back().stack[0].kernel = true;
  }

  CodeLocator Locator() const {
    return CodeLocator([this](uint32_t) -> const symbolize::SymbolIndex& { return index_; },
                       [this](uint32_t) -> const symbolize::CodeStore& { return code_; }, false,
                       nullptr, nullptr);
  }
  std::vector<SampledVersion> Versions() const {
    CodeLocator locator = Locator();
    VersionCollector collector(locator);
    for (const TestSample& sample : samples_) collector.Add(kPid, sample.time_ns, sample.stack);
    return std::move(collector).Take();
  }
  Annotation Of(const SampledVersion& v, disasm::Syntax syntax = disasm::Syntax::kAtt) const {
    CodeLocator locator = Locator();
    return Annotate(v, locator, *disasm::Decoder::Create(disasm::Mode::kX86_64), syntax);
  }
  AnnotateOutputOptions Output() const {
    AnnotateOutputOptions options;
    options.total_samples = samples_.size();
    options.start_time_ns = 1100 * kMs;
    options.command = "jitvm hot.jv";
    return options;
  }

  struct TestSample {
    uint64_t time_ns;
    std::vector<walk::StackAddress> stack;  // leaf first
  };
  std::vector<uint8_t> series_, again_, cold_, driver_;
  symbolize::SymbolIndex index_;
  symbolize::CodeStore code_;
  std::vector<TestSample> samples_;
};

TEST_F(AnnotateTest, VersionsAreSeparatedAndHeaviestFirst) {
  const std::vector<SampledVersion> versions = Versions();
  ASSERT_EQ(versions.size(), 4u);
  EXPECT_EQ(versions[0].start, kHot);
  EXPECT_EQ(versions[0].method_id, 7u);
  EXPECT_EQ(versions[0].loaded_ns, 1000 * kMs);
  EXPECT_EQ(versions[0].invalidated_ns, 2000 * kMs);
  EXPECT_EQ(versions[0].samples, 10u);
  EXPECT_EQ(versions[1].start, kHot);
  EXPECT_EQ(versions[1].method_id, 8u);
  EXPECT_EQ(versions[1].loaded_ns, 2000 * kMs);
  EXPECT_EQ(versions[1].invalidated_ns, symbolize::kForever);
  EXPECT_EQ(versions[1].samples, 3u);
  EXPECT_EQ(versions[2].start, kCold);
  EXPECT_EQ(versions[2].method_id, 7u);
  EXPECT_EQ(versions[2].samples, 2u);
  // Only in stacks: no leaf sample, five samples below its call (the recursive one counts once,
  // the one whose leaf is in the kernel counts too).
  EXPECT_EQ(versions[3].name, "driver");
  EXPECT_EQ(versions[3].samples, 0u);
  EXPECT_EQ(versions[3].calls_at, (std::map<uint64_t, uint64_t>{{kDriver + 6, 5}}));
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(versions[i].calls_at.empty()) << i;
}

TEST_F(AnnotateTest, ACallShowsTheSamplesBelowIt) {
  const std::vector<SampledVersion> versions = Versions();
  const Annotation driver = Of(versions[3]);
  ASSERT_EQ(driver.instructions.size(), 4u);
  EXPECT_EQ(driver.instructions[1].text, "call *%rax");
  EXPECT_EQ(driver.instructions[1].inclusive, 5u);
  EXPECT_EQ(driver.instructions[2].inclusive, 0u);
  EXPECT_EQ(RenderAnnotationText({driver}, Output()),
            kHeader +
                "\n"
                "## driver (jitvm), method #3, pid 42\n"
                "## code 0x7f0000003000, 11 bytes, loaded at -0.100 s, never replaced\n"
                "## 0 samples on its own instructions\n"
                "#   Share  Samples    Offset  Address       Instruction\n"
                "                            hot.jv  driver\n"
                "                       +0x0  7f0000003000  sub $0x8,%rsp\n"
                "                       +0x4  7f0000003004  call *%rax\n"
                "                            ^ 5 samples (29.4% of the session) below this call\n"
                "                       +0x6  7f0000003006  add $0x8,%rsp\n"
                "                       +0xa  7f000000300a  ret\n");
  const nlohmann::json root = nlohmann::json::parse(RenderAnnotationJson({driver}, Output()));
  EXPECT_EQ(root["versions"][0]["instructions"][1]["inclusive_samples"], 5);
  EXPECT_EQ(root["versions"][0]["instructions"][0]["inclusive_samples"], 0);
}

TEST_F(AnnotateTest, SelectsByNameIdAndAddress) {
  const std::vector<SampledVersion> versions = Versions();
  auto starts = [&](const std::string& selector) {
    std::vector<std::string> out;
    for (const SampledVersion* v : SelectVersions(versions, selector)) {
      out.push_back(fmt::format("{:x}@{}", v->start, v->loaded_ns / kMs));
    }
    return out;
  };
  EXPECT_EQ(starts("series"), (std::vector<std::string>{"7f0000001000@1000", "7f0000001000@2000",
                                                        "7f0000002000@1000"}));
  EXPECT_EQ(starts("#7"), (std::vector<std::string>{"7f0000001000@1000", "7f0000002000@1000"}));
  EXPECT_EQ(starts("#8"), (std::vector<std::string>{"7f0000001000@2000"}));
  EXPECT_EQ(starts("0x7f0000002004"), (std::vector<std::string>{"7f0000002000@1000"}));
  EXPECT_EQ(starts("0x7f0000001003"),
            (std::vector<std::string>{"7f0000001000@1000", "7f0000001000@2000"}));
  EXPECT_TRUE(starts("square").empty());  // inlined: its code is series'
  EXPECT_TRUE(starts("serie").empty());   // not a word of any name
  EXPECT_TRUE(starts("#x").empty());
  EXPECT_TRUE(starts("0x").empty());
}

// A whole name wins; without one, the names that hold the selector as a word.
TEST(AnnotateSelectTest, ByWordWhenNoNameIsWhole) {
  std::vector<SampledVersion> versions(5);
  versions[0].name = "JS:*mixHot /app/hot.js:4:16";
  versions[1].name = "JS:^mixHot /app/hot.js:4:16";
  versions[2].name = "JS:*mixHotter /app/hot.js:9:1";
  versions[3].name = "ns::Vm::Run(std::span<long>)";
  versions[4].name = "Run";
  auto names = [&](const std::string& selector) {
    std::vector<std::string> out;
    for (const SampledVersion* v : SelectVersions(versions, selector)) out.push_back(v->name);
    return out;
  };
  EXPECT_EQ(names("mixHot"), (std::vector<std::string>{versions[0].name, versions[1].name}));
  EXPECT_EQ(names("Run"), (std::vector<std::string>{"Run"}));
  EXPECT_EQ(names("Vm::Run"), (std::vector<std::string>{versions[3].name}));
  EXPECT_EQ(names("hot.js"),
            (std::vector<std::string>{versions[0].name, versions[1].name, versions[2].name}));
  EXPECT_TRUE(names("mix").empty());
  EXPECT_TRUE(names("").empty());
}

TEST_F(AnnotateTest, TextShowsEachVersionWithItsOwnSamplesAndCode) {
  const std::vector<SampledVersion> versions = Versions();
  std::vector<Annotation> annotations;
  for (size_t i = 0; i < 3; ++i) annotations.push_back(Of(versions[i]));
  EXPECT_EQ(
      RenderAnnotationText(annotations, Output()),
      kHeader +
          "\n"
          "## series (jitvm), method #7, pid 42\n"
          "## code 0x7f0000001000, 25 bytes, loaded at -0.100 s, replaced or unloaded at +0.900 s\n"
          "## 10 samples, 58.8% of the session\n"
          "#   Share  Samples    Offset  Address       Instruction\n"
          "                            hot.jv:30  series\n"
          "*  10.0%        1      +0x0  7f0000001000  push %rbp\n"
          "                       +0x1  7f0000001001  mov %rsp,%rbp\n"
          "                            hot.jv:31  series\n"
          "                       +0x4  7f0000001004  xor %eax,%eax\n"
          "                            hot.jv:12  square, inlined into series at hot.jv:37\n"
          "*  10.0%        1      +0x6  7f0000001006  vmulsd %xmm1,%xmm1,%xmm0\n"
          "                            hot.jv:37  series\n"
          "*  60.0%        6      +0xa  7f000000100a  vaddsd %xmm0,%xmm2,%xmm2\n"
          "                       +0xe  7f000000100e  add $0x1,%eax\n"
          "                      +0x11  7f0000001011  cmp $0x64,%eax\n"
          "*  20.0%        2     +0x14  7f0000001014  jl <+0x6>\n"
          "                            hot.jv:38  series\n"
          "                      +0x16  7f0000001016  pop %rbp\n"
          "                      +0x17  7f0000001017  ret\n"
          "                      +0x18  7f0000001018  (bad) 06\n"
          "\n"
          "## series (jitvm), method #8, pid 42\n"
          "## code 0x7f0000001000, 6 bytes, loaded at +0.900 s, never replaced\n"
          "## 3 samples, 17.6% of the session\n"
          "#   Share  Samples    Offset  Address       Instruction\n"
          "                            hot.jv:36  series\n"
          "                       +0x0  7f0000001000  mov $0x2a,%eax\n"
          "* 100.0%        3      +0x5  7f0000001005  ret\n"
          "\n"
          "## series (jitvm), method #7, pid 42\n"
          "## code 0x7f0000002000, 10 bytes, loaded at -0.100 s, never replaced\n"
          "## 2 samples, 11.8% of the session\n"
          "#   Share  Samples    Offset  Address       Instruction\n"
          "                            hot.jv:40  series\n"
          "                       +0x0  7f0000002000  inc %ecx\n"
          "* 100.0%        2      +0x2  7f0000002002  jz <+0x0>\n"
          "                       +0x4  7f0000002004  jmp *(%rip)\n");
}

TEST_F(AnnotateTest, LineViewAndIntelSyntax) {
  const std::vector<SampledVersion> versions = Versions();
  AnnotateOutputOptions options = Output();
  options.by_line = true;
  EXPECT_EQ(
      RenderAnnotationText({Of(versions[0])}, options),
      kHeader +
          "\n"
          "## series (jitvm), method #7, pid 42\n"
          "## code 0x7f0000001000, 25 bytes, loaded at -0.100 s, replaced or unloaded at +0.900 s\n"
          "## 10 samples, 58.8% of the session\n"
          "#   Share  Samples  Source\n"
          "   80.0%        8  hot.jv:37  series\n"
          "   10.0%        1  hot.jv:30  series\n"
          "   10.0%        1  hot.jv:12  square, inlined into series at hot.jv:37\n"
          "                   hot.jv:31  series\n"
          "                   hot.jv:38  series\n");
  EXPECT_EQ(RenderAnnotationText({Of(versions[2], disasm::Syntax::kIntel)}, Output()),
            kHeader +
                "\n"
                "## series (jitvm), method #7, pid 42\n"
                "## code 0x7f0000002000, 10 bytes, loaded at -0.100 s, never replaced\n"
                "## 2 samples, 11.8% of the session\n"
                "#   Share  Samples    Offset  Address       Instruction\n"
                "                            hot.jv:40  series\n"
                "                       +0x0  7f0000002000  inc ecx\n"
                "* 100.0%        2      +0x2  7f0000002002  jz <+0x0>\n"
                "                       +0x4  7f0000002004  jmp [rip]\n");
}

// On a terminal, hot instructions are also bold red; nothing else changes.
TEST_F(AnnotateTest, ColorMarksHotInstructionsOnly) {
  const std::vector<SampledVersion> versions = Versions();
  AnnotateOutputOptions options = Output();
  options.color = true;
  EXPECT_EQ(RenderAnnotationText({Of(versions[1])}, options),
            kHeader +
                "\n"
                "## series (jitvm), method #8, pid 42\n"
                "## code 0x7f0000001000, 6 bytes, loaded at +0.900 s, never replaced\n"
                "## 3 samples, 17.6% of the session\n"
                "#   Share  Samples    Offset  Address       Instruction\n"
                "                            hot.jv:36  series\n"
                "                       +0x0  7f0000001000  mov $0x2a,%eax\n"
                "\033[1;31m* 100.0%        3      +0x5  7f0000001005  ret\033[0m\n");
}

TEST_F(AnnotateTest, JsonCarriesTheSameNumbers) {
  const std::vector<SampledVersion> versions = Versions();
  const nlohmann::json root =
      nlohmann::json::parse(RenderAnnotationJson({Of(versions[0]), Of(versions[1])}, Output()));
  EXPECT_EQ(root["total_samples"], 17);
  ASSERT_EQ(root["versions"].size(), 2u);
  const nlohmann::json& first = root["versions"][0];
  EXPECT_EQ(first["name"], "series");
  EXPECT_EQ(first["method_id"], 7);
  EXPECT_EQ(first["invalidated_ns"], 2000 * kMs);
  EXPECT_EQ(root["versions"][1]["invalidated_ns"], nullptr);
  EXPECT_EQ(first["samples"], 10);
  EXPECT_EQ(first["instructions"][4]["offset"], 10);
  EXPECT_EQ(first["instructions"][4]["samples"], 6);
  EXPECT_EQ(first["instructions"][4]["text"], "vaddsd %xmm0,%xmm2,%xmm2");
  EXPECT_EQ(first["instructions"][7]["target_offset"], 6);
  EXPECT_EQ(first["instructions"][3]["source"][0]["function"], "square");
  EXPECT_EQ(first["instructions"][3]["source"][0]["inlined"], true);
  EXPECT_EQ(first["instructions"][10]["text"], "(bad)");
  EXPECT_EQ(first["instructions"][10]["bytes"], "06");
}

TEST_F(AnnotateTest, CodeNotRecordedShowsSamplesByOffset) {
  const std::vector<SampledVersion> versions = Versions();
  const symbolize::CodeStore empty;
  CodeLocator locator([this](uint32_t) -> const symbolize::SymbolIndex& { return index_; },
                      [&](uint32_t) -> const symbolize::CodeStore& { return empty; }, false,
                      nullptr, nullptr);
  const Annotation a = Annotate(
      versions[1], locator, *disasm::Decoder::Create(disasm::Mode::kX86_64), disasm::Syntax::kAtt);
  EXPECT_EQ(RenderAnnotationText({a}, Output()),
            kHeader +
                "\n"
                "## series (jitvm), method #8, pid 42\n"
                "## code 0x7f0000001000, 6 bytes, loaded at +0.900 s, never replaced\n"
                "## 3 samples, 17.6% of the session\n"
                "## its code bytes were not recorded (a perf map, or JITSCOPE_CODE_BYTES=0): "
                "samples by offset only\n"
                "#   Share  Samples    Offset  Address       Instruction\n"
                "                            hot.jv:36  series\n"
                "                       +0x0  7f0000001000  (code not recorded: 5 bytes)\n"
                "* 100.0%        3      +0x5  7f0000001005  (code not recorded: 1 byte)\n");
}

// A call or jump to code outside the version is named as objdump names it, by the function at
// the target (and the offset into it); a target no code is at stays an address.
TEST(AnnotateTargetTest, BranchesOutOfTheVersionNameTheirTarget) {
  constexpr uint64_t kCaller = 0x7f0000005000;
  constexpr uint64_t kCallee = 0x7f0000006000;
  auto rel32 = [](uint64_t from_next, uint64_t to) {
    const auto d = static_cast<uint32_t>(static_cast<int32_t>(to - from_next));
    return std::vector<uint8_t>{static_cast<uint8_t>(d), static_cast<uint8_t>(d >> 8),
                                static_cast<uint8_t>(d >> 16), static_cast<uint8_t>(d >> 24)};
  };
  std::vector<uint8_t> caller = {0xE8};  // call kCallee
  for (uint8_t b : rel32(kCaller + 5, kCallee)) caller.push_back(b);
  caller.push_back(0xE9);  // jmp kCallee + 0x10
  for (uint8_t b : rel32(kCaller + 10, kCallee + 0x10)) caller.push_back(b);
  caller.push_back(0xE8);  // call into no code
  for (uint8_t b : rel32(kCaller + 15, 0x7f0000009000)) caller.push_back(b);
  caller.push_back(0xC3);
  const std::vector<uint8_t> callee(0x20, 0x90);
  symbolize::IndexBuilder builder;
  symbolize::CodeReport report;
  report.time = 1 * kMs;
  report.method_id = 1;
  report.address = kCaller;
  report.size = caller.size();
  report.name = "caller";
  builder.AddLoad(report);
  report.method_id = 2;
  report.address = kCallee;
  report.size = callee.size();
  report.name = "callee";
  builder.AddLoad(report);
  const symbolize::SymbolIndex index = std::move(builder).Build();
  symbolize::CodeStore code;
  code.Add(1 * kMs, kCaller, caller);
  code.Add(1 * kMs, kCallee, callee);
  CodeLocator locator([&](uint32_t) -> const symbolize::SymbolIndex& { return index; },
                      [&](uint32_t) -> const symbolize::CodeStore& { return code; }, false, nullptr,
                      nullptr);
  const SampledVersion version = locator.Describe(kPid, kCaller, 2 * kMs);
  const Annotation a = Annotate(version, locator, *disasm::Decoder::Create(disasm::Mode::kX86_64),
                                disasm::Syntax::kAtt);
  ASSERT_EQ(a.instructions.size(), 4u);
  EXPECT_EQ(a.instructions[0].text, "call 0x7f0000006000 <callee>");
  EXPECT_EQ(a.instructions[1].text, "jmp 0x7f0000006010 <callee+0x10>");
  EXPECT_EQ(a.instructions[2].text, "call 0x7f0000009000");
  EXPECT_EQ(a.instructions[3].text, "ret");
}

// The headings name a source file by its base name, unless two of the version's files share it;
// the header gives the whole path of each file it shortened, once.
TEST(AnnotateSourceTest, HeadingsShortenPathsTheHeaderGivesThem) {
  Annotation a;
  a.version.name = "series";
  a.version.pid = kPid;
  a.code_recorded = true;
  const SourceFrame hot{"series", "/src/app/hot.jv", 37, false};
  const SourceFrame other_hot{"square", "/src/lib/hot.jv", 12, true};
  const SourceFrame sq{"sq", "/src/lib/sq.jv", 3, true};
  const SourceFrame relative{"main", "main.jv", 1, false};
  a.instructions.resize(4);
  a.instructions[0].source = {hot};
  a.instructions[1].source = {other_hot, hot};
  a.instructions[2].source = {sq, hot};
  a.instructions[3].source = {relative};
  const SourceNames names(a);
  EXPECT_EQ(names.Heading(a.instructions[0].source), "/src/app/hot.jv:37  series");
  EXPECT_EQ(names.Heading(a.instructions[1].source),
            "/src/lib/hot.jv:12  square, inlined into series at /src/app/hot.jv:37");
  EXPECT_EQ(names.Heading(a.instructions[2].source),
            "sq.jv:3  sq, inlined into series at /src/app/hot.jv:37");
  EXPECT_EQ(names.Heading(a.instructions[3].source), "main.jv:1  main");
  AnnotateOutputOptions options;
  const std::vector<std::string> header = AnnotationHeader(a, options);
  EXPECT_EQ(header.back(), "source: /src/lib/sq.jv");
  EXPECT_EQ(std::count_if(header.begin(), header.end(),
                          [](const std::string& l) { return l.starts_with("source: "); }),
            1);
}

// The mapping of this process that holds `address`, as a session's MMAP record has it.
session::Mapping MappingOf(uint64_t address, uint32_t pid) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    uint64_t start = 0, end = 0, offset = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start,
                    &end, perms, &offset, &path_at) < 4 ||
        address < start || address >= end) {
      continue;
    }
    return {pid, pid, 5, start, end - start, offset, line.substr(static_cast<size_t>(path_at)), ""};
  }
  return {};
}

TEST(AnnotateNativeTest, AFunctionComesFromItsElfFileWithItsLines) {
  const auto address = reinterpret_cast<uint64_t>(&JitscopeAnnotateTestNative);
  const std::vector<session::Mapping> mappings = {MappingOf(address, kPid)};
  const std::vector<session::Task> tasks;
  const session::Mapping& mapping = mappings[0];
  ASSERT_TRUE(mapping.filename.starts_with("/")) << "no file maps this test's code";
  const walk::ProcessMaps maps(mappings, tasks);  // keeps pointers into both
  NativeSymbolizer native;
  const symbolize::SymbolIndex no_jit_code;
  const symbolize::CodeStore no_code;
  CodeLocator locator([&](uint32_t) -> const symbolize::SymbolIndex& { return no_jit_code; },
                      [&](uint32_t) -> const symbolize::CodeStore& { return no_code; }, false,
                      &maps, &native);
  VersionCollector collector(locator);
  const std::vector<walk::StackAddress> leaf = {{address + 1, false, false}};
  collector.Add(kPid, 10, leaf);
  collector.Add(kPid, 11, leaf);
  const std::vector<SampledVersion> versions = std::move(collector).Take();
  ASSERT_EQ(versions.size(), 1u);
  const SampledVersion& v = versions[0];
  EXPECT_TRUE(v.native);
  EXPECT_EQ(v.name, "JitscopeAnnotateTestNative");
  EXPECT_EQ(v.module, mapping.filename);
  EXPECT_EQ(v.start, address);
  EXPECT_EQ(v.file_offset, address - mapping.start + mapping.file_offset);
  EXPECT_EQ(v.loaded_ns, 5u);
  EXPECT_EQ(v.samples, 2u);
  EXPECT_EQ(SelectVersions(versions, "JitscopeAnnotateTestNative").size(), 1u);

  const Annotation a =
      Annotate(v, locator, *disasm::Decoder::Create(disasm::Mode::kX86_64), disasm::Syntax::kAtt);
  ASSERT_TRUE(a.code_recorded);
  // The bytes shown are the ones this process runs, decoded without a bad byte, with the two
  // samples on the instruction that holds address + 1.
  std::vector<uint8_t> shown;
  uint64_t samples = 0;
  for (const AnnotatedInstruction& in : a.instructions) {
    EXPECT_FALSE(in.bad) << "+" << in.offset;
    shown.insert(shown.end(), in.bytes.begin(), in.bytes.end());
    samples += in.samples;
  }
  const auto* code = reinterpret_cast<const uint8_t*>(address);
  EXPECT_EQ(shown, std::vector<uint8_t>(code, code + v.size));
  EXPECT_EQ(samples, 2u);
  const AnnotatedInstruction& holder =
      a.instructions.front().length > 1 ? a.instructions[0] : a.instructions[1];
  EXPECT_EQ(holder.samples, 2u);
  // Its DWARF lines: this file, within the function.
  size_t with_lines = 0;
  for (const AnnotatedInstruction& in : a.instructions) {
    if (in.source.empty() || in.source.front().line == 0) continue;
    ++with_lines;
    EXPECT_TRUE(in.source.front().file.ends_with("annotate_test.cc")) << in.source.front().file;
    EXPECT_GT(in.source.front().line, static_cast<uint32_t>(kNativeFirstLine));
    EXPECT_LT(in.source.front().line, static_cast<uint32_t>(kNativeLastLine));
    EXPECT_EQ(in.source.back().function, "JitscopeAnnotateTestNative");
  }
  EXPECT_GT(with_lines, a.instructions.size() / 2);
  AnnotateOutputOptions options;
  options.total_samples = 2;
  const std::string text = RenderAnnotationText({a}, options);
  EXPECT_NE(text.find(fmt::format("## native code {:#x}, {} bytes at file offset {:#x}, mapped at",
                                  v.start, v.size, v.file_offset)),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace jitscope::report
