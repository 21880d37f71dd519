// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Every report format written from one hand-built profile, asserted exactly.
#include <zlib.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jitscope/report/folded_writer.h"
#include "jitscope/report/pprof_writer.h"
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
  const auto& profile = json["profiles"][0];
  EXPECT_EQ(profile["type"], "sampled");
  EXPECT_EQ(profile["unit"], "nanoseconds");
  EXPECT_EQ(profile["endValue"], 10'000'000);
  EXPECT_EQ(profile["samples"], nlohmann::json::parse("[[2,1,0],[2,3],[2,4,5]]"));
  EXPECT_EQ(profile["weights"], nlohmann::json::parse("[6000000,3000000,1000000]"));
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
  EXPECT_NE(svg.find("<text class=\"warning\" x=\"10\" y=\"40\">warning: the kernel lost 2 "
                     "samples</text>\n<text class=\"warning\" x=\"10\" y=\"55\">warning: the "
                     "collector refused 1 event the JIT reported (null_name: 1); &#39;jitscope "
                     "dump&#39; lists them</text>\n<g id=\"frames\">\n"),
            std::string::npos)
      << svg.substr(0, 2000);
  const std::string one_warning = RenderSvg(SampleProfile());
  EXPECT_EQ(one_warning.find("refused"), std::string::npos);
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
