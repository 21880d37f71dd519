// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Every report format written from one hand-built profile, asserted exactly.
#include <zlib.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jitscope/report/folded_writer.h"
#include "jitscope/report/frame_style.h"
#include "jitscope/report/html_writer.h"
#include "jitscope/report/pprof_writer.h"
#include "jitscope/report/short_name.h"
#include "jitscope/report/speedscope_writer.h"
#include "jitscope/report/svg_writer.h"
#include "jitscope/report/text_writer.h"
#include "jitscope/report/utf8.h"
#include "pprof_profile.pb.h"
#include "sample_profile.h"

namespace jitscope::report {
namespace {

TEST(TextWriterTest, MethodsBySelfSamples) {
  EXPECT_EQ(RenderText(SampleProfile(), {}),
            "# jitscope report: jitvm hot.jv\n"
            "# 10 samples over 0.01 s, one per 1 ms of CPU time per thread\n"
            "# warning: the kernel lost 2 samples\n"
            "#\n"
            "   Self   Total  Samples  Function        Module      Source\n"
            "  60.0%   60.0%        6  work (inlined)  jitvm-opt   hot.jv\n"
            "  30.0%   30.0%        3  hot             jitvm-base  hot.jv\n"
            "  10.0%   10.0%        1  [kernel]        [kernel]\n"
            "   0.0%  100.0%        0  main            app         main.cc\n"
            "   0.0%   60.0%        0  hot             jitvm-opt   hot.jv\n"
            "   0.0%   10.0%        0  write<a;b>      libc.so.6\n"
            "#\n"
            "# the hot instructions of JIT code, beside its source lines: jitscope annotate [DIR] "
            "[FUNCTION]\n");
}

TEST(TextWriterTest, LinesModulesAndTop) {
  EXPECT_EQ(RenderText(SampleProfile(), {.sort = SortKey::kLine, .top = 2}),
            "# jitscope report: jitvm hot.jv\n"
            "# 10 samples over 0.01 s, one per 1 ms of CPU time per thread\n"
            "# warning: the kernel lost 2 samples\n"
            "#\n"
            "   Self   Total  Samples  Function        Module      Source\n"
            "  60.0%   60.0%        6  work (inlined)  jitvm-opt   hot.jv:3\n"
            "  30.0%   30.0%        3  hot             jitvm-base  hot.jv:7\n"
            "#\n"
            "# the hot instructions of JIT code, beside its source lines: jitscope annotate [DIR] "
            "[FUNCTION]\n");
  EXPECT_EQ(RenderText(SampleProfile(), {.sort = SortKey::kModule}),
            "# jitscope report: jitvm hot.jv\n"
            "# 10 samples over 0.01 s, one per 1 ms of CPU time per thread\n"
            "# warning: the kernel lost 2 samples\n"
            "#\n"
            "   Self   Total  Samples  Module\n"
            "  60.0%   60.0%        6  jitvm-opt\n"
            "  30.0%   30.0%        3  jitvm-base\n"
            "  10.0%   10.0%        1  [kernel]\n"
            "   0.0%  100.0%        0  app\n"
            "   0.0%   10.0%        0  libc.so.6\n"
            "#\n"
            "# the hot instructions of JIT code, beside its source lines: jitscope annotate [DIR] "
            "[FUNCTION]\n");
}

// A module entry is of code: process roots and the mark of a guessed walk are none, and code in
// no mapping is "[unknown]".
TEST(TextWriterTest, ModulesAreOfCodeOnly) {
  Profile profile = SampleProfile();
  profile.warnings.clear();
  profile.locations.push_back({"jitvm (pid 7)", "", "", 0, FrameKind::kProcess, false});  // 6
  profile.locations.push_back({"[frame-pointer chain]", "", "", 0, FrameKind::kGuessed, false});
  profile.locations.push_back({"[unknown]", "", "", 0, FrameKind::kUnknown, false});  // 8
  for (Stack& stack : profile.stacks) stack.frames.push_back(6);
  profile.stacks.push_back({{8, 7, 2, 6}, 2, 0, 0});
  profile.total_samples = 12;
  const std::string text = RenderText(profile, {.sort = SortKey::kModule});
  EXPECT_EQ(text.substr(text.find("   Self")),
            "   Self   Total  Samples  Module\n"
            "  50.0%   50.0%        6  jitvm-opt\n"
            "  25.0%   25.0%        3  jitvm-base\n"
            "  16.7%   16.7%        2  [unknown]\n"
            "   8.3%    8.3%        1  [kernel]\n"
            "   0.0%  100.0%        0  app\n"
            "   0.0%    8.3%        0  libc.so.6\n"
            "#\n"
            "# the hot instructions of JIT code, beside its source lines: jitscope annotate [DIR] "
            "[FUNCTION]\n");
}

// Long C++ names keep their function: the column shortens them from the inside, and
// --name-width widens it (0: whole names).
TEST(TextWriterTest, LongNamesKeepTheirFunction) {
  Profile profile = SampleProfile();
  profile.warnings.clear();
  profile.locations[2].function =
      "jitscope::jitvm::Vm::Run(std::span<long const, 18446744073709551615ul>)";
  profile.locations[0].function = "std::vector<int, std::allocator<int> >::push_back(int const&)";
  const std::string text = RenderText(profile, {.name_width = 45});
  EXPECT_NE(text.find("  std::vector<...>::push_back(...) (inlined)  jitvm-opt "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  jitscope::jitvm::Vm::Run(...)  "), std::string::npos) << text;
  const std::string narrow = RenderText(profile, {.name_width = 20});
  EXPECT_NE(narrow.find("  ...::Vm::Run(...)  "), std::string::npos) << narrow;
  const std::string whole = RenderText(profile, {.name_width = 0});
  EXPECT_NE(
      whole.find("  jitscope::jitvm::Vm::Run(std::span<long const, 18446744073709551615ul>)  app"),
      std::string::npos)
      << whole;
}

struct ShortNameCase {
  const char* name;
  size_t width;
  const char* expected;
};

TEST(ShortNameTest, CxxNamesLoseParametersTemplatesAndScopesFirst) {
  const ShortNameCase cases[] = {
      {"main", 60, "main"},
      {"jitscope::jitvm::Vm::Run(std::span<long const, 18446744073709551615ul>)", 60,
       "jitscope::jitvm::Vm::Run(...)"},
      {"jitscope::jitvm::Vm::Run(std::span<long const, 18446744073709551615ul>)", 20,
       "...::Vm::Run(...)"},
      {"std::vector<int, std::allocator<int> >::push_back(int const&)", 40,
       "std::vector<...>::push_back(...)"},
      {"jitscope::jitvm::(anonymous namespace)::Main(int, char**)", 30, "...::Main(...)"},
      {"bool std::operator< <char>(std::basic_string<char> const&, std::basic_string<char> "
       "const&)",
       40, "bool std::operator< <char>(...)"},
      {"Foo::operator()(int, int) const", 30, "Foo::operator()(...) const"},
      {"JS:*mixHot /home/me/app.js:4:16", 20, "JS:*mixHot /home/..."},
      {"a::b::cccccccccccccccccccccccccccccc(int)", 12, "...cccc(...)"},
      {"unbalanced<(x", 8, "...ed<(x"},
  };
  for (const ShortNameCase& c : cases) {
    EXPECT_EQ(ShortName(c.name, c.width), c.expected) << c.name << " in " << c.width;
  }
}

TEST(TextWriterTest, NoSamplesSaysSo) {
  Profile empty;
  empty.sample_period_ns = 1'000'000;
  EXPECT_EQ(RenderText(empty, {}),
            "# 0 samples over 0.00 s, one per 1 ms of CPU time per thread\n"
            "# no samples: the command ended before the first one, or sampling was not allowed\n");
}

// A recording whose recorder was killed before any sample reached the file says so, not that the
// command ended early.
TEST(TextWriterTest, NoSamplesOfARecordingCutShortSaysWhy) {
  Profile empty;
  empty.sample_period_ns = 1'000'000;
  empty.no_samples_reason = "jitscope record was killed before its first samples reached the file";
  EXPECT_EQ(RenderText(empty, {}),
            "# 0 samples over 0.00 s, one per 1 ms of CPU time per thread\n"
            "# no samples: jitscope record was killed before its first samples reached the file\n");
}

// How long the recording ran against the CPU time sampled per thread, the time off the CPU per
// thread (record --switch-events), and what the ITT calls meant that was not plain.
TEST(TextWriterTest, HeaderSaysWallTimeCpuTimeAndTimeOffTheCpu) {
  Profile profile = SampleProfile();
  profile.warnings.clear();
  Timeline& timeline = profile.timeline;
  timeline.start_ns = 1'000'000'000;
  timeline.end_ns = 3'500'000'000;
  TimelineThread main_thread;
  main_thread.pid = 5;
  main_thread.tid = 5;
  main_thread.name = "app";
  main_thread.samples_on_cpu = 800;
  main_thread.cpu_ns = 800'000'000;
  main_thread.waiting_ns = 1'500'000'000;
  main_thread.preempted_ns = 20'000'000;
  TimelineThread worker;
  worker.pid = 5;
  worker.tid = 6;
  worker.name = "worker";
  worker.samples_on_cpu = 2000;
  worker.cpu_ns = 2'000'000'000;
  TimelineThread idle;
  idle.pid = 5;
  idle.tid = 7;
  timeline.threads = {main_thread, worker, idle};
  timeline.stats.ends_without_begin = 1;
  timeline.stats.unended = 2;
  const std::string text = RenderText(profile, {.sort = SortKey::kMethod, .top = 1});
  EXPECT_EQ(
      text.substr(0, text.find("#\n")),
      "# jitscope report: jitvm hot.jv\n"
      "# 10 samples over 0.01 s, one per 1 ms of CPU time per thread\n"
      "# recorded for 2.50 s; CPU time sampled: worker (tid 6) 2.00 s, app (tid 5) 0.80 s\n"
      "# off the CPU: app (tid 5) 1.50 s waiting, 0.02 s preempted\n"
      "# ITT API calls: 1 end without a begin, 2 tasks not ended (ended with their threads)\n");
}

// record --off-cpu: what the off-CPU stacks stand for, and what --off-cpu only or exclude left out.
TEST(TextWriterTest, HeaderSaysWhatTheOffCpuSamplesStandFor) {
  Profile profile = SampleProfile();
  profile.warnings.clear();
  profile.off_cpu = {.choice = OffCpuSamples::kInclude,
                     .switches = 120,
                     .waiting_ns = 1'500'000'000,
                     .preempted_ns = 20'000'000,
                     .samples = 1520,
                     .without_period = 0,
                     .left_out = 0};
  const auto header_line = [&profile](size_t n) {
    const std::string text = RenderText(profile, {.sort = SortKey::kMethod, .top = 1});
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) at = text.find('\n', at) + 1;
    return text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_EQ(header_line(2),
            "# off-CPU samples (record --off-cpu): 120 switches out of a CPU, 1.50 s waiting and "
            "0.02 s preempted until their threads ran again, counted as 1520 samples of 1 ms");
  profile.off_cpu.choice = OffCpuSamples::kOnly;
  profile.off_cpu.without_period = 2;
  profile.off_cpu.left_out = 10;
  EXPECT_EQ(header_line(2),
            "# off-CPU samples (record --off-cpu): 120 switches out of a CPU, 1.50 s waiting and "
            "0.02 s preempted until their threads ran again, counted as 1520 samples of 1 ms; 2 "
            "without the switch records that time them, left out; the 10 samples on a CPU left "
            "out (--off-cpu only)");
  profile.off_cpu = {};
  profile.off_cpu.choice = OffCpuSamples::kExclude;
  profile.off_cpu.left_out = 122;
  EXPECT_EQ(header_line(2),
            "# off-CPU samples (record --off-cpu): 122 switches out of a CPU, left out (--off-cpu "
            "exclude)");
  profile.off_cpu = {};
  EXPECT_EQ(header_line(2).find("off-CPU"), std::string::npos);
}

// A recording of several processes: the busiest five in the header, with what the --pid and
// --comm filters left out; and a filter that left nothing.
TEST(TextWriterTest, SeveralProcessesAndFilters) {
  Profile profile = SampleProfile();
  profile.warnings.clear();
  profile.processes = {{7, "jitvm", 4}, {3, "node", 2}, {9, "", 1},
                       {1, "a", 1},     {2, "b", 1},    {4, "c", 1}};
  profile.filtered_out = 5;
  const std::string text = RenderText(profile, {.sort = SortKey::kMethod, .top = 1});
  EXPECT_EQ(text.substr(0, text.find("#\n")),
            "# jitscope report: jitvm hot.jv\n"
            "# 10 samples over 0.01 s, one per 1 ms of CPU time per thread\n"
            "# 5 samples left out (--pid, --tid, --comm, --time, --task)\n"
            "# 6 processes, the busiest: jitvm (pid 7) 40.0%, node (pid 3) 20.0%, ? (pid 9) 10.0%, "
            "a (pid 1) 10.0%, b (pid 2) 10.0% and 1 more\n");
  Profile none;
  none.sample_period_ns = 1'000'000;
  none.filtered_out = 3;
  EXPECT_EQ(RenderText(none, {}),
            "# 0 samples over 0.00 s, one per 1 ms of CPU time per thread\n"
            "# 3 samples left out (--pid, --tid, --comm, --time, --task)\n"
            "# no samples pass the filters\n");
}

// The walks' ends, and those the frame-pointer chain carried on: where the guesses are marked in
// the stacks, and where they are not (the same frames as the walks by rule).
TEST(TextWriterTest, WalksCarriedOnByTheFramePointerChain) {
  Profile profile = SampleProfile();
  profile.warnings.clear();
  profile.unwind_stops = {{"end of stack", 7}, {"no rule", 3}};
  profile.guessed_walks = 3;
  auto header = [](const Profile& p) {
    const std::string text = RenderText(p, {.sort = SortKey::kMethod, .top = 1});
    return text.substr(0, text.find("#\n"));
  };
  EXPECT_EQ(header(profile),
            "# jitscope report: jitvm hot.jv\n"
            "# 10 samples over 0.01 s, one per 1 ms of CPU time per thread\n"
            "# stacks unwound from DWARF call-frame information, walks ending in: 7 end of stack, "
            "3 no rule\n"
            "# 3 walks that stopped carried on by the frame-pointer chain: their callers beyond "
            "where they stopped are guesses (--mark-guesses shows where)\n");
  profile.guesses_marked = true;
  EXPECT_EQ(header(profile),
            "# jitscope report: jitvm hot.jv\n"
            "# 10 samples over 0.01 s, one per 1 ms of CPU time per thread\n"
            "# stacks unwound from DWARF call-frame information, walks ending in: 7 end of stack, "
            "3 no rule\n"
            "# 3 walks that stopped carried on by the frame-pointer chain: the frames outside "
            "[frame-pointer chain] are guesses\n");
}

// `hot` stands for two code objects under `main` (the optimized and the baseline tier, in the
// modules jitvm-opt and jitvm-base): each frame says which, in every flame-graph format.
TEST(FoldedWriterTest, RootFirstWithFlamegraphAnnotations) {
  EXPECT_EQ(RenderFolded(SampleProfile()),
            "main;hot [opt]_[j];work_[i] 6\n"
            "main;hot [base]_[j] 3\n"
            "main;write<a:b>;[kernel]_[k] 1\n");
}

TEST(SpeedscopeWriterTest, SampledProfileWithSharedFrames) {
  const auto json = nlohmann::json::parse(RenderSpeedscope(SampleProfile()));
  EXPECT_EQ(json["$schema"], "https://www.speedscope.app/file-format-schema.json");
  const auto& frames = json["shared"]["frames"];
  ASSERT_EQ(frames.size(), 6u);
  EXPECT_EQ(frames[0],
            nlohmann::json({{"name", "work (inlined)"}, {"file", "hot.jv"}, {"line", 3}}));
  EXPECT_EQ(frames[5], nlohmann::json({{"name", "[kernel]"}}));
  EXPECT_EQ(frames[1]["name"], "hot [opt]");
  EXPECT_EQ(frames[3]["name"], "hot [base]");
  EXPECT_EQ(frames[2]["name"], "main");
  // Without the samples' times: the distinct stacks by weight, and the name says so.
  ASSERT_EQ(json["profiles"].size(), 1u);
  const auto& profile = json["profiles"][0];
  EXPECT_EQ(profile["type"], "sampled");
  EXPECT_EQ(profile["name"], "jitvm hot.jv (stacks by weight, not in time order)");
  EXPECT_EQ(profile["unit"], "nanoseconds");
  EXPECT_EQ(profile["endValue"], 10'000'000);
  EXPECT_EQ(profile["samples"], nlohmann::json::parse("[[2,1,0],[2,3],[2,4,5]]"));
  EXPECT_EQ(profile["weights"], nlohmann::json::parse("[6000000,3000000,1000000]"));
}

// With them: a profile per thread, its samples in the order they were taken, each weighing one
// sampling period; the busiest thread is the one speedscope opens.
TEST(SpeedscopeWriterTest, EachThreadsSamplesInTimeOrder) {
  const auto json = nlohmann::json::parse(RenderSpeedscope(TimedSampleProfile()));
  ASSERT_EQ(json["profiles"].size(), 2u);
  EXPECT_EQ(json["activeProfileIndex"], 0);
  const auto& jitvm = json["profiles"][0];
  EXPECT_EQ(jitvm["name"], "jitvm tid 7 (pid 7)");
  EXPECT_EQ(jitvm["startValue"], 0);
  EXPECT_EQ(jitvm["endValue"], 7'000'000);
  EXPECT_EQ(jitvm["samples"],
            nlohmann::json::parse("[[2,1,0],[2,1,0],[2,1,0],[2,4,5],[2,1,0],[2,1,0],[2,1,0]]"));
  EXPECT_EQ(jitvm["weights"], nlohmann::json(std::vector<uint64_t>(7, 1'000'000)));
  const auto& worker = json["profiles"][1];
  EXPECT_EQ(worker["name"], "worker tid 8 (pid 7)");
  EXPECT_EQ(worker["endValue"], 3'000'000);
  EXPECT_EQ(worker["samples"], nlohmann::json::parse("[[2,3],[2,3],[2,3]]"));
}

// Off-CPU samples (record --off-cpu) at their times among the others, each weighing the time its
// thread was off the CPU, under its "[off-cpu: WHY]" leaf: thread 8 slept 25 ms after its first
// sample and waited for a lock 0.4 ms (a stack of less than half a sampling period in all, which
// the profile keeps for them) after its second.
TEST(SpeedscopeWriterTest, OffCpuSamplesWeighTheTimeOffTheCpuInTimeOrder) {
  Profile p = TimedSampleProfile();
  p.locations.push_back({"[off-cpu: sleeping]", "", "", 0, FrameKind::kOffCpu, false});  // 6
  p.locations.push_back({"[off-cpu: lock]", "", "", 0, FrameKind::kOffCpu, false});      // 7
  p.stacks.push_back({{6, 3, 2}, 25, 2'500'000, 2'500'000});
  p.stacks.push_back({{7, 3, 2}, 0, 5'500'000, 5'500'000});
  p.samples.insert(p.samples.begin() + 2, {2'500'000, 1, 3, 25'000'000, true});
  p.samples.insert(p.samples.begin() + 6, {5'500'000, 1, 4, 400'000, true});
  const auto json = nlohmann::json::parse(RenderSpeedscope(p));
  EXPECT_EQ(json["shared"]["frames"][6], nlohmann::json({{"name", "[off-cpu: sleeping]"}}));
  EXPECT_EQ(json["shared"]["frames"][7], nlohmann::json({{"name", "[off-cpu: lock]"}}));
  ASSERT_EQ(json["profiles"].size(), 2u);
  // The worker's 3 ms on a CPU and 25.4 ms off it make it the busiest.
  EXPECT_EQ(json["activeProfileIndex"], 1);
  const auto& worker = json["profiles"][1];
  EXPECT_EQ(worker["name"], "worker tid 8 (pid 7)");
  EXPECT_EQ(worker["endValue"], 28'400'000);
  EXPECT_EQ(worker["samples"], nlohmann::json::parse("[[2,3],[2,3,6],[2,3],[2,3,7],[2,3]]"));
  EXPECT_EQ(worker["weights"], nlohmann::json::parse("[1000000,25000000,1000000,400000,1000000]"));
  const auto& jitvm = json["profiles"][0];
  EXPECT_EQ(jitvm["endValue"], 7'000'000);
  EXPECT_EQ(jitvm["weights"], nlohmann::json(std::vector<uint64_t>(7, 1'000'000)));
}

std::string Gunzip(const std::string& bytes) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

TEST(PprofWriterTest, InlineRunsAreOneLocationWithSeveralLines) {
  base::StatusOr<std::string> gz = RenderPprof(SampleProfile());
  ASSERT_TRUE(gz.ok());
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(Gunzip(*gz)));
  auto str = [&p](int64_t i) { return p.string_table(static_cast<int>(i)); };
  ASSERT_GE(p.string_table_size(), 1);
  EXPECT_EQ(p.string_table(0), "");
  ASSERT_EQ(p.sample_type_size(), 2);
  EXPECT_EQ(str(p.sample_type(0).type()) + "/" + str(p.sample_type(0).unit()), "samples/count");
  EXPECT_EQ(str(p.sample_type(1).type()) + "/" + str(p.sample_type(1).unit()), "cpu/nanoseconds");
  EXPECT_EQ(p.period(), 1'000'000);
  ASSERT_EQ(p.sample_size(), 3);
  // Stack 0: work inlined into hot (one location), then main.
  ASSERT_EQ(p.sample(0).location_id_size(), 2);
  EXPECT_EQ(p.sample(0).value(0), 6);
  EXPECT_EQ(p.sample(0).value(1), 6'000'000);
  const auto& inline_run = p.location(static_cast<int>(p.sample(0).location_id(0) - 1));
  ASSERT_EQ(inline_run.line_size(), 2);
  auto function_name = [&](uint64_t id) {
    return str(p.function(static_cast<int>(id - 1)).name());
  };
  EXPECT_EQ(function_name(inline_run.line(0).function_id()), "work");
  EXPECT_EQ(inline_run.line(0).line(), 3);
  EXPECT_EQ(function_name(inline_run.line(1).function_id()), "hot");
  EXPECT_EQ(inline_run.line(1).line(), 5);
  EXPECT_EQ(str(p.mapping(static_cast<int>(inline_run.mapping_id() - 1)).filename()), "jitvm-opt");
  // Stack 1: hot of the baseline tier is a different function location of its own mapping.
  const auto& baseline = p.location(static_cast<int>(p.sample(1).location_id(0) - 1));
  ASSERT_EQ(baseline.line_size(), 1);
  EXPECT_EQ(str(p.mapping(static_cast<int>(baseline.mapping_id() - 1)).filename()), "jitvm-base");
  // Two functions named hot, the name as the JIT gave it, told apart by their mappings.
  EXPECT_EQ(function_name(baseline.line(0).function_id()), "hot");
  EXPECT_NE(baseline.line(0).function_id(), inline_run.line(1).function_id());
  EXPECT_EQ(p.comment_size(), 2);
}

// A stack some of whose samples' callers the frame-pointer chain guessed is two samples of the
// same locations, the guessed ones labelled.
TEST(PprofWriterTest, GuessedSamplesAreLabelledSamplesOfTheSameStack) {
  Profile profile = SampleProfile();
  profile.stacks[1].guessed_samples = 2;  // of its 3
  profile.stacks[2].guessed_samples = 1;  // all of its 1
  base::StatusOr<std::string> gz = RenderPprof(profile);
  ASSERT_TRUE(gz.ok());
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(Gunzip(*gz)));
  auto str = [&p](int64_t i) { return p.string_table(static_cast<int>(i)); };
  ASSERT_EQ(p.sample_size(), 4);
  std::vector<std::string> samples;
  for (const auto& sample : p.sample()) {
    std::string text = std::to_string(sample.value(0)) + " at";
    for (uint64_t id : sample.location_id()) text += " " + std::to_string(id);
    for (const auto& label : sample.label())
      text += " " + str(label.key()) + "=" + str(label.str());
    samples.push_back(text);
  }
  EXPECT_EQ(samples, (std::vector<std::string>{"6 at 1 2", "1 at 3 2",
                                               "2 at 3 2 unwinding=frame-pointer chain",
                                               "1 at 4 5 2 unwinding=frame-pointer chain"}));
}

TEST(SvgWriterTest, FramesAreEscapedSizedAndMarked) {
  const std::string svg = RenderSvg(SampleProfile());
  EXPECT_TRUE(svg.starts_with("<?xml version=\"1.0\" standalone=\"no\"?>\n<svg "));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  // The hostile name is escaped in the data attribute and the tooltip, never raw.
  EXPECT_NE(svg.find("data-n=\"write&lt;a;b&gt;\""), std::string::npos);
  EXPECT_EQ(svg.find("write<a;b>"), std::string::npos);
  // `main` spans all 10 samples: the full width.
  EXPECT_NE(svg.find("data-x=\"0.00\" data-w=\"1200.00\" data-d=\"1\" data-n=\"main\""),
            std::string::npos);
  // The two versions of hot under main say which is which; the tooltip keeps the plain name.
  EXPECT_NE(svg.find("data-n=\"hot [opt]\"><title>hot — JIT jitvm-opt, hot.jv:5"),
            std::string::npos);
  EXPECT_NE(svg.find("data-n=\"hot [base]\"><title>hot — JIT jitvm-base, hot.jv:7"),
            std::string::npos);
  // The inlined frame is marked, and its tooltip says where it is.
  EXPECT_NE(svg.find("<g class=\"f inl\" data-x=\"0.00\" data-w=\"720.00\" data-d=\"3\" "
                     "data-n=\"work\"><title>work (inlined) — inlined jitvm-opt, hot.jv:3 — 6 "
                     "samples, 60.00%</title>"),
            std::string::npos);
}

// The SVG's title area says what the text header says: every warning, one line each, above the
// frames (which move down to make room).
TEST(SvgWriterTest, WarningsAreUnderTheTitle) {
  Profile profile = SampleProfile();
  profile.warnings.push_back(
      "the collector refused 1 event the JIT reported (null_name: 1); "
      "'jitscope dump' lists them");
  const std::string svg = RenderSvg(profile);
  EXPECT_NE(svg.find("<text class=\"warning\" x=\"10\" y=\"48\">warning: the kernel lost 2 "
                     "samples</text>\n<text class=\"warning\" x=\"10\" y=\"63\">warning: the "
                     "collector refused 1 event the JIT reported (null_name: 1); &#39;jitscope "
                     "dump&#39; lists them</text>\n<g id=\"frames\">\n"),
            std::string::npos)
      << svg.substr(0, 2000);
  const std::string one_warning = RenderSvg(SampleProfile());
  EXPECT_EQ(one_warning.find("refused"), std::string::npos);
}

// The root is at the top, under the title and the warnings, so the first screen shows it; a
// tower of boxes too thin to draw takes no room.
TEST(SvgWriterTest, RootAtTheTopAndThinTowersTakeNoRoom) {
  Profile profile = SampleProfile();
  profile.warnings.clear();
  std::vector<uint32_t> tower(500, 2);  // main called from main ... 500 deep, in one sample
  profile.stacks.push_back({tower, 1, 0, 0});
  profile.stacks[0].samples = 100'000;  // the tower is 1200 / 100'005 px wide: not drawn
  const std::string svg = RenderSvg(profile);
  // Three rows of boxes (all, main, hot, work): 48 + 4 * 16 + 10.
  EXPECT_NE(svg.find("<svg version=\"1.1\" width=\"1200\" height=\"122\""), std::string::npos)
      << svg.substr(0, 300);
  EXPECT_NE(svg.find("data-d=\"0\" data-n=\"all\"><title>all: 100005 samples</title><rect "
                     "x=\"0.00\" y=\"48.0\""),
            std::string::npos)
      << svg;
}

// The data the HTML page reads, from its #profile-data element.
nlohmann::json PageData(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"profile-data\">";
  const size_t begin = html.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t end = html.find("</script>", begin);
  return nlohmann::json::parse(html.substr(begin + open.size(), end - begin - open.size()));
}

// One file: the page, its style and script and the data inline; the browser is told to fetch
// nothing. The data is the frames, the tree of stacks, and each thread's samples as differences
// of microseconds and tree nodes.
TEST(HtmlWriterTest, OneFileWithTheFramesTheStackTreeAndEachThreadsSamples) {
  const std::string html = RenderHtml(TimedSampleProfile(), {});
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>\n")) << html.substr(0, 100);
  EXPECT_NE(html.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">"),
            std::string::npos);
  EXPECT_NE(html.find("<title>jitscope: jitvm hot.jv</title>"), std::string::npos);
  EXPECT_EQ(html.find("@JITSCOPE_"), std::string::npos) << "a marker left in the page";
  const nlohmann::json data = PageData(html);
  const std::vector<std::string> strings = data["strings"];
  auto names = [&](const nlohmann::json& indices) {
    std::vector<std::string> out;
    for (int64_t i : indices) out.push_back(i < 0 ? "" : strings[static_cast<size_t>(i)]);
    return out;
  };
  EXPECT_EQ(data["title"], "jitvm hot.jv");
  EXPECT_EQ(data["total"], 10);
  EXPECT_EQ(data["duration_us"], 10'000);
  EXPECT_EQ(data["summary"], "10 samples over 0.01 s, one per 1 ms of CPU time per thread");
  EXPECT_EQ(data["warnings"], nlohmann::json({"the kernel lost 2 samples"}));
  const nlohmann::json& frames = data["frames"];
  EXPECT_EQ(names(frames["label"]),
            (std::vector<std::string>{"work (inlined)", "hot [opt]", "main", "hot [base]",
                                      "write<a;b>", "[kernel]"}));
  EXPECT_EQ(names(frames["kind"]),
            (std::vector<std::string>{"inlined", "JIT", "native", "JIT", "native", "kernel"}));
  EXPECT_EQ(frames["jit"], nlohmann::json({1, 1, 0, 1, 0, 0}));
  EXPECT_EQ(frames["version"], nlohmann::json({-1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(names(frames["colour"])[1], FrameColour(SampleProfile().locations[1]));
  // root; main; hot [opt]; work; hot [base]; write; [kernel]
  EXPECT_EQ(data["nodes"]["parent"], nlohmann::json({-1, 0, 1, 2, 1, 1, 5}));
  EXPECT_EQ(data["nodes"]["frame"], nlohmann::json({-1, 2, 1, 0, 3, 4, 5}));
  const nlohmann::json& threads = data["threads"];
  EXPECT_EQ(threads["tid"], nlohmann::json({7, 8}));
  EXPECT_EQ(names(threads["name"]), (std::vector<std::string>{"jitvm", "worker"}));
  // Thread 7's samples at 0, 2, 3, 5, 6, 8, 9 ms after the first; thread 8's at 1, 4, 7 ms.
  EXPECT_EQ(threads["times"], nlohmann::json::parse("[[0,2000,1000,2000,1000,2000,1000],"
                                                    "[1000,3000,3000]]"));
  EXPECT_EQ(threads["nodes"], nlohmann::json::parse("[[3,3,3,6,3,3,3],[4,4,4]]"));
}

// The timeline beside the samples: per thread its periods off the CPU (when, how long, why, and
// the stack tree's node of the off-CPU sample the report kept, whose time is written there alone),
// its ITT slices in lanes (a task's depth, then one lane for regions and the like), its
// markers and its JIT code events; a thread with none of its samples kept but a task is a thread of
// the page; and the counters, named by domain, at their times. Times are microseconds from the
// first sample.
TEST(HtmlWriterTest, TheTimelinesPeriodsOffTheCpuSlicesMarkersAndCounters) {
  Profile profile = TimedSampleProfile();
  profile.locations.push_back({"[off-cpu: sleeping]", "", "", 0, FrameKind::kOffCpu, false});
  profile.stacks.push_back({{6, 3, 2}, 2, 2'500'000, 2'500'000});
  profile.samples.insert(profile.samples.begin() + 2, {2'500'000, 1, 3, 2'000'000, true});
  Timeline& timeline = profile.timeline;
  timeline.strings = {"", "conv", "inner", "r", "m", "task", "queue", "d", "f"};
  auto thread = [](uint32_t tid, const char* name) {
    TimelineThread t;
    t.pid = 7;
    t.tid = tid;
    t.name = name;
    return t;
  };
  TimelineThread worker = thread(8, "worker");
  worker.off_cpu = {{.begin_ns = 2'500'000,
                     .end_ns = 4'500'000,
                     .reason = session::OffCpuReason::kSleep,
                     .stack = 3},
                    {.begin_ns = 6'000'000, .end_ns = 6'300'000, .state = OffCpuState::kPreempted}};
  worker.slices = {{.begin_ns = 1'500'000, .end_ns = 3'000'000, .name = 1, .domain = 7},
                   {.begin_ns = 2'000'000, .end_ns = 2'500'000, .name = 2, .domain = 7, .depth = 1},
                   {.begin_ns = 1'000'000,
                    .end_ns = 1'200'000,
                    .name = 3,
                    .domain = 7,
                    .kind = trace::IttKind::kRegion}};
  worker.instants = {{.time_ns = 2'000'000, .kind = InstantKind::kMarker, .name = 4, .domain = 7},
                     {.time_ns = 2'200'000,
                      .kind = InstantKind::kJitNewVersion,
                      .name = 8,
                      .address = 0x7f00,
                      .size = 64,
                      .version = 2}};
  TimelineThread tbb = thread(9, "tbb");
  tbb.slices = {{.begin_ns = 4'000'000, .end_ns = 5'000'000, .name = 5, .domain = 7}};
  timeline.threads = {thread(7, "jitvm"), worker, tbb};
  timeline.counters = {
      {.pid = 7, .name = 6, .domain = 7, .values = {{500'000, 1.0}, {3'000'000, 2.5}}}};
  const nlohmann::json data = PageData(RenderHtml(profile, {}));
  const std::vector<std::string> strings = data["strings"];
  auto names = [&](const nlohmann::json& lists) {
    std::vector<std::vector<std::string>> out;
    for (const nlohmann::json& list : lists) {
      out.emplace_back();
      for (int64_t i : list) out.back().push_back(strings[static_cast<size_t>(i)]);
    }
    return out;
  };
  using Names = std::vector<std::vector<std::string>>;
  const nlohmann::json& threads = data["threads"];
  EXPECT_EQ(threads["tid"], nlohmann::json({7, 8, 9}));
  EXPECT_EQ(names(nlohmann::json::array({threads["name"]})), (Names{{"jitvm", "worker", "tbb"}}));
  EXPECT_EQ(threads["times"], nlohmann::json::parse("[[0,2000,1000,2000,1000,2000,1000],"
                                                    "[1000,3000,3000],[]]"));
  EXPECT_EQ(threads["off_at"], nlohmann::json::parse("[[],[1500,5000],[]]"));
  EXPECT_EQ(threads["off_us"], nlohmann::json::parse("[[],[2000,300],[]]"));
  EXPECT_EQ(names(threads["off_why"]), (Names{{}, {"sleeping", "preempted"}, {}}));
  // root; main; hot [opt]; work; hot [base]; write; [kernel]; [off-cpu: sleeping] under hot [base]
  EXPECT_EQ(data["nodes"]["parent"], nlohmann::json({-1, 0, 1, 2, 1, 1, 5, 4}));
  EXPECT_EQ(threads["off_node"], nlohmann::json::parse("[[],[7,-1],[]]"));
  EXPECT_EQ(threads["slice_at"], nlohmann::json::parse("[[],[500,1000,0],[3000]]"));
  EXPECT_EQ(threads["slice_us"], nlohmann::json::parse("[[],[1500,500,200],[1000]]"));
  EXPECT_EQ(names(threads["slice_name"]), (Names{{}, {"conv", "inner", "r"}, {"task"}}));
  EXPECT_EQ(threads["slice_lane"], nlohmann::json::parse("[[],[0,1,2],[0]]"));
  EXPECT_EQ(threads["mark_at"], nlohmann::json::parse("[[],[1000],[]]"));
  EXPECT_EQ(names(threads["mark_name"]), (Names{{}, {"m"}, {}}));
  EXPECT_EQ(threads["jit_at"], nlohmann::json::parse("[[],[1200],[]]"));
  EXPECT_EQ(names(threads["jit_event"]), (Names{{}, {"new version"}, {}}));
  EXPECT_EQ(names(threads["jit_name"]), (Names{{}, {"f"}, {}}));
  EXPECT_EQ(threads["jit_version"], nlohmann::json::parse("[[],[2],[]]"));
  EXPECT_EQ(threads["jit_address"], nlohmann::json::parse("[[],[32512],[]]"));
  EXPECT_EQ(threads["jit_size"], nlohmann::json::parse("[[],[64],[]]"));
  ASSERT_EQ(data["counters"].size(), 1u);
  const nlohmann::json& counter = data["counters"][0];
  EXPECT_EQ(counter["pid"], 7);
  EXPECT_EQ(strings[counter["name"].get<size_t>()], "d/queue");
  EXPECT_EQ(counter["at"], nlohmann::json({-500, 2000}));
  EXPECT_EQ(counter["values"], nlohmann::json({1, 2.5}));
}

// The time axis is the recording's, not only its samples': it begins where the timeline does (the
// session's start, before the first sample) and ends at its last record, so a task that began at
// start-up and ran past the last sample is drawn whole, and every time counts from that start.
TEST(HtmlWriterTest, TheTimeAxisIsTheRecordingsNotOnlyItsSamples) {
  Profile profile = TimedSampleProfile();  // samples from 1 ms to 10 ms
  Timeline& timeline = profile.timeline;
  timeline.start_ns = 600'000;
  timeline.end_ns = 13'000'000;
  timeline.strings = {"", "startup"};
  TimelineThread worker;
  worker.pid = 7;
  worker.tid = 8;
  worker.name = "worker";
  worker.slices = {{.begin_ns = 600'000, .end_ns = 12'500'000, .name = 1}};
  timeline.threads = {worker};
  timeline.counters = {{.pid = 7, .name = 1, .values = {{700'000, 1.0}, {12'900'000, 2.0}}}};
  const nlohmann::json data = PageData(RenderHtml(profile, {}));
  EXPECT_EQ(data["duration_us"], 12'400);
  const nlohmann::json& threads = data["threads"];
  EXPECT_EQ(threads["times"],
            nlohmann::json::parse("[[400,2000,1000,2000,1000,2000,1000],[1400,3000,3000]]"));
  EXPECT_EQ(threads["slice_at"], nlohmann::json::parse("[[],[0]]"));
  EXPECT_EQ(threads["slice_us"], nlohmann::json::parse("[[],[11900]]"));
  EXPECT_EQ(data["counters"][0]["at"], nlohmann::json({100, 12'300}));
}

// A name is only ever data: one that would close the script element is written escaped.
TEST(HtmlWriterTest, HostileNamesCannotLeaveTheData) {
  Profile profile = TimedSampleProfile();
  profile.locations[4].function = "</script><script>alert(1)</script>";
  profile.command = "<b>jitvm</b>";
  const std::string html = RenderHtml(profile, {});
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("<title>jitscope: &lt;b&gt;jitvm&lt;/b&gt;</title>"), std::string::npos);
  const nlohmann::json data = PageData(html);
  const std::vector<std::string> strings = data["strings"];
  EXPECT_NE(std::find(strings.begin(), strings.end(), "</script><script>alert(1)</script>"),
            strings.end());
}

// Names are the JIT's bytes; the formats that require UTF-8 get U+FFFD for what is not.
TEST(Utf8Test, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(ValidUtf8("plain ascii"), "plain ascii");
  EXPECT_EQ(ValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x94\xA5"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x94\xA5");
  EXPECT_EQ(ValidUtf8("a\xFF"
                      "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80").size(), 12u);                          // above U+10FFFF
  EXPECT_EQ(ValidUtf8("end\xC3"), "end\xEF\xBF\xBD");  // truncated sequence
}

TEST(SvgWriterTest, NamesThatAreNotUtf8StayValidXml) {
  Profile profile = SampleProfile();
  profile.locations[1].function = "h\xFFot";
  const std::string svg = RenderSvg(profile);
  EXPECT_EQ(svg.find('\xFF'), std::string::npos);
  EXPECT_NE(svg.find("data-n=\"h\xEF\xBF\xBDot\""), std::string::npos);
  EXPECT_EQ(ValidUtf8(svg), svg);
}

TEST(PprofWriterTest, NamesThatAreNotUtf8AreValidProtobufStrings) {
  Profile profile = SampleProfile();
  profile.locations[1].function = "h\xFFot";
  base::StatusOr<std::string> gz = RenderPprof(profile);
  ASSERT_TRUE(gz.ok());
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(Gunzip(*gz)));
  bool found = false;
  for (const std::string& s : p.string_table()) {
    EXPECT_EQ(ValidUtf8(s), s);
    found |= s == "h\xEF\xBF\xBDot";
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace jitscope::report
