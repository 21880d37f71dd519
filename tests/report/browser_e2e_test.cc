// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End to end, in a real browser: `jitscope report --format html` of the example JIT's hotspot.jv
// (recorded once per CTest run by the report_sessions fixture), opened from its file in Debian's
// Chromium, headless, driven by playwright-core (tests/browser/report_page.mjs), and used as a
// person uses it: look, search, click, drag across the timeline, open the callers of a function
// and its code. What the page shows is compared with what `jitscope report --format folded` and
// `jitscope annotate --format json` say of the same session. Every test also checks that the
// page raised no error, logged nothing and fetched nothing but its own file. The speedscope
// output is opened in the speedscope app the same way (tests/browser/speedscope_app.mjs).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jitscope/report/frame_style.h"
#include "source_lines.h"
#include "support/files.h"
#include "support/folded.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::report {
namespace {

using nlohmann::json;
using test_support::FoldedStack;
using test_support::ParseFolded;
using test_support::RunProgram;
using test_support::TempDir;

// "rgb(86,226,68)" as a canvas gives its fillStyle back: "#56e244".
std::string CanvasColour(const std::string& rgb) {
  int r = 0, g = 0, b = 0;
  EXPECT_EQ(std::sscanf(rgb.c_str(), "rgb(%d,%d,%d)", &r, &g, &b), 3) << rgb;
  return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

class HtmlReportTest : public ::testing::Test {
 protected:
  static std::string Hotspot() { return REPORT_SESSIONS "/hotspot"; }

  static void SetUpTestSuite() {
    tmp_ = new TempDir();
    page_ = tmp_->path() + "/hotspot.html";
    auto report = RunProgram({JITSCOPE_CLI, "report", Hotspot(), "--format", "html", "-o", page_});
    ASSERT_EQ(report.exit_code, 0) << report.Describe();
    auto folded = RunProgram({JITSCOPE_CLI, "report", Hotspot(), "--format", "folded"});
    ASSERT_EQ(folded.exit_code, 0) << folded.Describe();
    stacks_ = new std::vector<FoldedStack>(ParseFolded(folded.out));
  }
  static void TearDownTestSuite() {
    delete stacks_;
    delete tmp_;
  }

  // What the page shows after `action` (report_page.mjs), with no error, no log, no request.
  static json Do(const std::string& action, const std::string& name, std::string page = "") {
    if (page.empty()) page = page_;
    auto run = RunProgram({NODE_PROGRAM, BROWSER_TESTS "/report_page.mjs", "--chromium", CHROMIUM,
                           "--page", page, "--do", action, "--name", name},
                          {{"HOME", tmp_->path()}}, {.timeout = std::chrono::seconds(240)});
    EXPECT_EQ(run.exit_code, 0) << run.Describe();
    json answer = json::parse(run.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(answer.is_discarded()) << run.Describe();
    if (answer.is_discarded() || answer.contains("failure")) {
      ADD_FAILURE() << run.out;
      return json::object();
    }
    EXPECT_EQ(answer["errors"], json::array()) << action;
    EXPECT_EQ(answer["console"], json::array()) << action;
    EXPECT_EQ(answer["requests"], json::array({"file://" + page})) << action;
    return answer;
  }

  static uint64_t Total() {
    uint64_t total = 0;
    for (const FoldedStack& s : *stacks_) total += s.samples;
    return total;
  }

  // The folded name of a label the page shows ("series [baseline]" → "series [baseline]_[j]").
  static std::string Folded(const std::string& label) {
    for (const FoldedStack& s : *stacks_) {
      for (const std::string& frame : s.frames) {
        if (frame.starts_with(label + "_[") || frame == label) return frame;
      }
    }
    ADD_FAILURE() << label << " is in no folded stack";
    return label;
  }

  // The tier of series with the most samples, as the flame graph labels it.
  static std::string HotSeries() {
    const uint64_t baseline = test_support::SamplesThrough(*stacks_, "series [baseline]_[j]");
    const uint64_t optimized = test_support::SamplesThrough(*stacks_, "series [optimized]_[j]");
    return baseline >= optimized ? "series [baseline]" : "series [optimized]";
  }

  // The boxes drawn with `label`.
  static std::vector<json> Boxes(const json& answer, const std::string& label) {
    std::vector<json> found;
    for (const json& box : answer["boxes"]) {
      if (box["label"] == label) found.push_back(box);
    }
    return found;
  }

  static double Width(const json& answer) {
    const std::vector<json> root = Boxes(answer, fmt::format("all ({} samples)", Total()));
    return root.empty() ? 0.0 : root.front()["w"].get<double>() + 0.5;
  }

  static inline TempDir* tmp_ = nullptr;
  static inline std::string page_;
  static inline std::vector<FoldedStack>* stacks_ = nullptr;
};

// The hot JIT function's box is drawn with its name, on the first screen, as wide as its share of
// the samples and in the SVG flame graph's colour for JIT code of that name.
TEST_F(HtmlReportTest, TheHotJitFunctionIsDrawnWithItsName) {
  const std::string series = HotSeries();
  const json answer = Do("look", series);
  EXPECT_EQ(answer["flameTotal"], fmt::format("{} samples", Total()));
  EXPECT_EQ(answer["selection"], fmt::format("all {} samples", Total()));
  const std::vector<json> boxes = Boxes(answer, series);
  ASSERT_EQ(boxes.size(), 1u) << answer["boxes"].dump();
  const double width = Width(answer);
  ASSERT_GT(width, 1000) << "the root box";
  const uint64_t samples = test_support::SamplesThrough(*stacks_, Folded(series));
  EXPECT_NEAR(boxes[0]["w"].get<double>() + 0.5, width * static_cast<double>(samples) / Total(), 1);
  Location jit_series;
  jit_series.function = "series";
  jit_series.kind = FrameKind::kJit;
  EXPECT_EQ(boxes[0]["colour"], CanvasColour(FrameColour(jit_series)));
  ASSERT_TRUE(answer["named"].is_object());
  EXPECT_TRUE(answer["named"]["visible"]) << "the name is not on the first screen";
}

// Typing a name into Search paints every box of it magenta and says how many samples it holds.
TEST_F(HtmlReportTest, SearchHighlightsTheMatchingFrames) {
  const json answer = Do("search", "series");
  uint64_t matched = 0;
  for (const FoldedStack& s : *stacks_) {
    if (std::any_of(s.frames.begin(), s.frames.end(),
                    [](const std::string& f) { return f.find("series") != std::string::npos; })) {
      matched += s.samples;
    }
  }
  EXPECT_EQ(answer["matched"],
            fmt::format("matched: {} samples ({:.2f}%)", matched, 100.0 * matched / Total()));
  int highlighted = 0;
  for (const json& box : answer["boxes"]) {
    const std::string label = box["label"];
    if (label.empty()) continue;
    const bool hit = label.find("series") != std::string::npos;
    EXPECT_EQ(box["colour"] == "#e600e6", hit) << label;
    highlighted += hit;
  }
  EXPECT_GE(highlighted, 1);
}

// Clicking a box zooms into it: it fills the width, and the graph says what it is zoomed into.
TEST_F(HtmlReportTest, ClickingABoxZoomsIntoIt) {
  const std::string series = HotSeries();
  const json answer = Do("zoom", series);
  const std::vector<json> boxes = Boxes(answer, series);
  ASSERT_EQ(boxes.size(), 1u) << answer["boxes"].dump();
  EXPECT_EQ(boxes[0]["x"], 0);
  EXPECT_NEAR(boxes[0]["w"].get<double>() + 0.5, Width(answer), 0.01);
  const uint64_t samples = test_support::SamplesThrough(*stacks_, Folded(series));
  EXPECT_EQ(answer["flameTotal"],
            fmt::format("{} samples; zoomed into {}: {}", Total(), series, samples));
}

// Dragging across the first half of the timeline makes the flame graph count that range alone.
TEST_F(HtmlReportTest, BrushingTheTimelineChangesTheFlameGraphsTotals) {
  const json answer = Do("brush", "");
  EXPECT_EQ(answer["before"]["flameTotal"], fmt::format("{} samples", Total()));
  const std::string selection = answer["selection"];
  double from = 0, to = 0;
  unsigned long long selected = 0;
  ASSERT_EQ(std::sscanf(selection.c_str(), "+%lf s to +%lf s: %llu samples", &from, &to, &selected),
            3)
      << selection;
  EXPECT_LT(from, to);
  EXPECT_GT(selected, 0u);
  EXPECT_LT(selected, Total());
  EXPECT_EQ(answer["flameTotal"], fmt::format("{} samples in the selection", selected));
  EXPECT_EQ(Boxes(answer, fmt::format("all ({} samples)", selected)).size(), 1u)
      << answer["boxes"].dump();
}

// The process's row of the timeline marks where each version of JIT code the samples ran was
// loaded (green) and, when that was before the last sample, replaced (red). Pointing at a mark
// names the versions there as `jitscope annotate` knows them: address, size, and the times of
// their load and end from the first sample. Marks stand in the order of their times.
TEST_F(HtmlReportTest, TheTimelineMarksTheJitEvents) {
  const json answer = Do("events", "");
  ASSERT_FALSE(answer["marks"].empty()) << answer.dump();
  // One event a tooltip names: "loaded: series [optimized]" and "  pid 42, 0x7f00, 310 bytes,
  // loaded at +0.012 s, replaced at +0.250 s, method #3" (or "never replaced").
  struct Event {
    std::string what, name;
    uint32_t pid = 0;
    uint64_t start = 0, size = 0;
    double loaded_s = 0, replaced_s = -1;
  };
  std::vector<Event> events;
  std::vector<std::pair<double, double>> lone_marks;  // x, time: marks that name one event
  for (const json& mark : answer["marks"]) {
    const std::string tooltip = mark["tooltip"];
    std::vector<std::string> lines;
    for (size_t at = 0; at <= tooltip.size();) {
      const size_t end = std::min(tooltip.find('\n', at), tooltip.size());
      lines.push_back(tooltip.substr(at, end - at));
      at = end + 1;
    }
    ASSERT_EQ(lines.size() % 2, 0u) << tooltip;
    bool names_its_own = false;
    for (size_t i = 0; i < lines.size(); i += 2) {
      const size_t colon = lines[i].find(": ");
      ASSERT_NE(colon, std::string::npos) << tooltip;
      Event e{lines[i].substr(0, colon), lines[i].substr(colon + 2)};
      unsigned long long start = 0, size = 0;
      ASSERT_EQ(std::sscanf(lines[i + 1].c_str(), "  pid %u, 0x%llx, %llu bytes, loaded at %lf s",
                            &e.pid, &start, &size, &e.loaded_s),
                4)
          << lines[i + 1];
      e.start = start;
      e.size = size;
      if (const size_t at = lines[i + 1].find("replaced at "); at != std::string::npos) {
        ASSERT_EQ(std::sscanf(lines[i + 1].c_str() + at, "replaced at %lf s", &e.replaced_s), 1);
      }
      names_its_own |= e.what == mark["what"];
      events.push_back(e);
    }
    EXPECT_TRUE(names_its_own) << mark["what"] << " mark whose tooltip says " << tooltip;
    if (lines.size() == 2) {
      lone_marks.emplace_back(mark["x"], events.back().what == "loaded" ? events.back().loaded_s
                                                                        : events.back().replaced_s);
    }
  }
  std::sort(lone_marks.begin(), lone_marks.end());
  for (size_t i = 1; i < lone_marks.size(); ++i) {
    EXPECT_LE(lone_marks[i - 1].second, lone_marks[i].second)
        << "the mark at x " << lone_marks[i].first;
  }

  // annotate's versions of every function named, and the hot one's hottest version.
  std::map<std::string, json> annotated;
  for (const Event& e : events) {
    const std::string function = e.name.substr(0, e.name.find(" ["));
    if (annotated.contains(function)) continue;
    auto annotate = RunProgram({JITSCOPE_CLI, "annotate", Hotspot(), function, "--format", "json"});
    ASSERT_EQ(annotate.exit_code, 0) << annotate.Describe();
    annotated[function] = json::parse(annotate.out)["versions"];
  }
  ASSERT_TRUE(annotated.contains("series")) << answer.dump();
  json hottest;
  for (const json& v : annotated["series"]) {
    if (hottest.is_null() || hottest["samples"] < v["samples"]) hottest = v;
  }
  ASSERT_FALSE(hottest.is_null());
  // The first sample's time, from the page's time of the hottest version's load (to the ms).
  double first_sample_s = -1;
  for (const Event& e : events) {
    if (e.what == "loaded" && e.pid == hottest["pid"] && e.start == hottest["start"] &&
        e.size == hottest["size"]) {
      first_sample_s = static_cast<double>(hottest["loaded_ns"].get<uint64_t>()) / 1e9 - e.loaded_s;
    }
  }
  ASSERT_GE(first_sample_s, 0) << "no mark of the load of " << hottest.dump();
  for (const Event& e : events) {
    const std::string function = e.name.substr(0, e.name.find(" ["));
    bool known = false;
    for (const json& v : annotated[function]) {
      const double loaded_s = static_cast<double>(v["loaded_ns"].get<uint64_t>()) / 1e9;
      const double replaced_s =
          v["invalidated_ns"].is_null()
              ? -1
              : static_cast<double>(v["invalidated_ns"].get<uint64_t>()) / 1e9;
      known |= v["pid"] == e.pid && v["start"] == e.start && v["size"] == e.size &&
               std::abs(loaded_s - first_sample_s - e.loaded_s) < 0.002 &&
               (e.replaced_s < 0 ? replaced_s < 0
                                 : std::abs(replaced_s - first_sample_s - e.replaced_s) < 0.002);
    }
    EXPECT_TRUE(known) << e.what << ": " << e.name << " at " << e.start << " loaded at +"
                       << e.loaded_s << " s is no version annotate knows";
  }
}

// A tooltip's number after `prefix` ("+0.125" of "... +0.125 s"), or NAN when it has no `prefix`.
double NumberAfter(const std::string& text, const std::string& prefix) {
  const size_t at = text.find(prefix);
  double value = NAN;
  if (at == std::string::npos ||
      std::sscanf(text.c_str() + at + prefix.size(), "%lf", &value) != 1) {
    return NAN;
  }
  return value;
}

// The timeline of a program that makes ITT calls and sleeps (itt_client timeline, recorded with
// --off-cpu), as a person sees it: its task "compute" a slice on its thread's track with its name
// drawn in it, and its marker "halfway" a mark inside it; the task "wait" after it, and in that
// the thread's 80 ms off the CPU, a band whose tooltip says it slept and where; the counter
// "timeline/queue" a row of its process whose steps say 3, 7 and 0. The flame graph counts the
// time asleep under "[off-cpu: sleeping]".
TEST_F(HtmlReportTest, TheTimelineDrawsTasksMarkersCountersAndTimeOffTheCpu) {
  const std::string session = tmp_->path() + "/itt-timeline";
  const std::string page = tmp_->path() + "/itt-timeline.html";
  auto record = RunProgram(
      {JITSCOPE_CLI, "record", "--off-cpu", "-o", session, "--", ITT_CLIENT, "timeline"});
  ASSERT_EQ(record.exit_code, 0) << record.Describe();
  auto report = RunProgram({JITSCOPE_CLI, "report", session, "--format", "html", "-o", page});
  ASSERT_EQ(report.exit_code, 0) << report.Describe();
  const json answer = Do("timeline", "", page);
  ASSERT_TRUE(answer.contains("shapes")) << answer.dump();
  // Each slice's begin and length from its tooltip ("task compute: +0.012 s for 121.3 ms"), and
  // whether its name is drawn inside it.
  struct Slice {
    double at = NAN, ms = NAN;
    bool named = false;
  };
  std::map<std::string, Slice> slices;
  std::vector<double> markers;
  std::vector<std::pair<double, std::string>> counter_steps;  // x, tooltip
  std::vector<std::string> sleeps;
  for (const json& shape : answer["shapes"]) {
    const std::string tooltip = shape.value("tooltip", "");
    if (shape["kind"] == "slice") {
      for (const std::string name : {"compute", "wait"}) {
        const std::string prefix = "task " + name + ": ";
        if (!tooltip.starts_with(prefix)) continue;
        Slice& slice = slices[name];
        slice.at = NumberAfter(tooltip, prefix);
        slice.ms = NumberAfter(tooltip, " s for ");
        for (const json& text : answer["texts"]) {
          slice.named |= text["text"] == name && text["x"] >= shape["x"] &&
                         text["x"] <= shape["x"].get<double>() + shape["w"].get<double>() &&
                         text["y"] >= shape["y"] &&
                         text["y"] <= shape["y"].get<double>() + shape["h"].get<double>();
        }
      }
    } else if (shape["kind"] == "marker") {
      markers.push_back(NumberAfter(tooltip, "marker halfway: "));
    } else if (shape["kind"] == "counter") {
      counter_steps.emplace_back(shape["x"], tooltip);
    } else if (shape["kind"] == "off-cpu sleeping") {
      sleeps.push_back(tooltip);
    }
  }
  ASSERT_TRUE(slices.contains("compute")) << answer.dump();
  ASSERT_TRUE(slices.contains("wait")) << answer.dump();
  const Slice& compute = slices["compute"];
  const Slice& wait = slices["wait"];
  EXPECT_TRUE(compute.named);
  EXPECT_GE(compute.ms, 119.0);
  EXPECT_GE(wait.ms, 79.0);
  EXPECT_GE(wait.at, compute.at + compute.ms / 1000 - 0.001);
  ASSERT_EQ(markers.size(), 1u) << answer.dump();
  EXPECT_GT(markers[0], compute.at);
  EXPECT_LT(markers[0], compute.at + compute.ms / 1000);
  // The sleep: within the task "wait", as long, in the function that slept.
  bool slept = false;
  for (const std::string& tooltip : sleeps) {
    const double at = NumberAfter(tooltip, "off the CPU: sleeping, ");
    const double ms = NumberAfter(tooltip, " s for ");
    if (ms < 79.0) continue;
    slept = true;
    EXPECT_GE(at, wait.at - 0.001) << tooltip;
    EXPECT_LE(at + ms / 1000, wait.at + wait.ms / 1000 + 0.001) << tooltip;
    EXPECT_NE(tooltip.find("\n  in "), std::string::npos) << tooltip;
  }
  EXPECT_TRUE(slept) << "no band of 80 ms asleep among " << json(sleeps).dump();
  std::sort(counter_steps.begin(), counter_steps.end());
  std::vector<std::string> values;
  for (const auto& [x, tooltip] : counter_steps) {
    values.push_back(tooltip.substr(0, tooltip.find(" at ")));
  }
  EXPECT_EQ(values,
            (std::vector<std::string>{"counter timeline/queue = 3", "counter timeline/queue = 7",
                                      "counter timeline/queue = 0"}));
  bool counter_named = false;
  for (const json& text : answer["texts"]) counter_named |= text["text"] == "  timeline/queue";
  EXPECT_TRUE(counter_named);

  const json look = Do("look", "[off-cpu: sleeping]", page);
  const std::vector<json> asleep = Boxes(look, "[off-cpu: sleeping]");
  ASSERT_FALSE(asleep.empty()) << look.dump();
  EXPECT_GT(asleep.front()["w"].get<double>(), 10.0);
}

// Every JIT code event of the recording is a mark on the track of the thread that reported it,
// sampled or not: the marks' tooltips name the same events (kind and method) as the chrome trace
// of the session does, and each mark's tooltip names an event of its own kind.
TEST_F(HtmlReportTest, EveryJitEventIsMarkedOnItsThread) {
  auto trace = RunProgram({JITSCOPE_CLI, "report", Hotspot(), "--format", "chrome-trace"});
  ASSERT_EQ(trace.exit_code, 0) << trace.Describe();
  const json events = json::parse(trace.out)["traceEvents"];
  std::set<std::string> traced;
  for (const json& event : events) {
    if (event.value("cat", "") != "jit") continue;
    const std::string name = event["name"];  // "load: f"
    traced.insert("JIT " + name);
  }
  ASSERT_FALSE(traced.empty());
  const json answer = Do("jit", "");
  ASSERT_TRUE(answer.contains("marks")) << answer.dump();
  std::set<std::string> shown;
  for (const json& mark : answer["marks"]) {
    const std::string tooltip = mark["tooltip"];
    bool own_kind = false;
    for (size_t at = 0; at < tooltip.size();) {
      const size_t end = std::min(tooltip.find('\n', at), tooltip.size());
      const std::string line = tooltip.substr(at, end - at);
      at = end + 1;
      if (!line.starts_with("JIT ")) continue;
      own_kind |= line.starts_with("JIT " + mark["what"].get<std::string>() + ": ");
      // "JIT load: f (version 2), 0x7f00, 64 bytes, +0.012 s" → "JIT load: f"
      const size_t cut = std::min(line.find(" (version "), line.find(", 0x"));
      shown.insert(line.substr(0, cut));
    }
    EXPECT_TRUE(own_kind) << mark["what"] << " mark whose tooltip says " << tooltip;
  }
  EXPECT_EQ(shown, traced);
}

// The callers view of the hot function lists the functions that call it, with the samples of
// each call, and what it calls: the folded stacks' frames next to it.
TEST_F(HtmlReportTest, TheCallersViewListsTheRealCallers) {
  const std::string series = HotSeries();
  const std::string folded = Folded(series);
  std::map<std::string, uint64_t> callers, callees;
  uint64_t through = 0;
  for (const FoldedStack& s : *stacks_) {
    const auto at = std::find(s.frames.begin(), s.frames.end(), folded);
    if (at == s.frames.end()) continue;
    through += s.samples;
    if (at != s.frames.begin()) callers[*std::prev(at)] += s.samples;
    if (std::next(at) != s.frames.end()) callees[*std::next(at)] += s.samples;
  }
  const json answer = Do("callers", series);
  EXPECT_EQ(answer["function"], series);
  auto listed = [](const json& rows) {
    std::map<std::string, uint64_t> out;
    for (const json& row : rows) {
      const std::string name = row["name"];
      if (name.empty()) continue;  // "none: ...", where there are none
      out[name] = std::stoull(row["cells"].at(1).get<std::string>());
    }
    return out;
  };
  // The folded names carry "_[j]"-style marks; the page shows the names.
  auto unmarked = [](const std::map<std::string, uint64_t>& in) {
    std::map<std::string, uint64_t> out;
    for (const auto& [name, n] : in) {
      const size_t mark = name.rfind("_[");
      out[mark != std::string::npos && name.ends_with("]") ? name.substr(0, mark) : name] += n;
    }
    return out;
  };
  EXPECT_EQ(listed(answer["callers"]), unmarked(callers));
  EXPECT_EQ(listed(answer["callees"]), unmarked(callees));
  EXPECT_TRUE(answer["summary"].get<std::string>().starts_with(
      fmt::format("{} samples with it on the stack", through)))
      << answer["summary"];
}

// The Code view shows a version's instructions with the samples on each, as `jitscope annotate`
// counts them, under the source lines they came from.
TEST_F(HtmlReportTest, TheCodeViewShowsTheInstructionsWithTheirCounts) {
  auto annotate = RunProgram({JITSCOPE_CLI, "annotate", Hotspot(), "series", "--format", "json"});
  ASSERT_EQ(annotate.exit_code, 0) << annotate.Describe();
  const json versions = json::parse(annotate.out)["versions"];
  const json answer = Do("code", "series");
  // The page lists the hottest version first; find it among annotate's by its heading.
  const std::string heading = answer["heading"];
  const json* shown = nullptr;
  for (const json& v : versions) {
    const std::string title =
        fmt::format("series ({}), method #{}, pid {}", v["module"].get<std::string>(),
                    v["method_id"].get<uint64_t>(), v["pid"].get<uint32_t>());
    if (title == heading && (shown == nullptr || (*shown)["samples"] < v["samples"])) shown = &v;
  }
  ASSERT_NE(shown, nullptr) << heading;
  std::vector<std::vector<std::string>> expected, seen;
  for (const json& in : (*shown)["instructions"]) {
    const uint64_t n = in["samples"];
    expected.push_back({n ? std::to_string(n) : "",
                        fmt::format("+{:#x}", in["offset"].get<uint64_t>()), in["text"]});
  }
  std::set<std::string> sources;
  for (const json& row : answer["rows"]) {
    const std::vector<std::string> cells = row["cells"];
    if (row["kind"] == "source") {
      sources.insert(cells[0]);
    } else if (row["kind"] == "instruction" || row["kind"] == "hot") {
      seen.push_back({cells[1], cells[3], cells[5]});
    }
  }
  EXPECT_EQ(seen, expected);
  const std::string hot =
      fmt::format("hotspot.jv:{}  series", LineWith(JITVM_PROGRAMS "/hotspot.jv", "# HOT"));
  EXPECT_TRUE(sources.contains(hot)) << hot << " in " << json(sources).dump();
  EXPECT_EQ(answer["header"].back(), "source: " JITVM_PROGRAMS "/hotspot.jv");
}

// The difference of the run of hotspot_changed.jv (checksum doing 300 times the work) against
// hotspot.jv's, its JIT versions merged (when each tier took over differs from run to run):
// checksum's boxes are drawn red (a larger share), series' blue, and the table of changes gives
// checksum's total share a rise and series' self share a fall.
TEST_F(HtmlReportTest, TheDiffMarksTheChangedFunction) {
  const std::string page = tmp_->path() + "/diff.html";
  auto report = RunProgram({JITSCOPE_CLI, "report", "--diff-base", Hotspot(),
                            REPORT_SESSIONS "/changed", "--format", "html", "-o", page});
  ASSERT_EQ(report.exit_code, 0) << report.Describe();
  const json answer = Do("diff", "", page);
  EXPECT_EQ(answer["legend"], "red: a larger share than in the base run, blue: a smaller one");
  auto channels = [](const std::string& hex) {
    unsigned r = 0, g = 0, b = 0;
    EXPECT_EQ(std::sscanf(hex.c_str(), "#%02x%02x%02x", &r, &g, &b), 3) << hex;
    return std::tuple(r, g, b);
  };
  auto widest = [&](const std::string& prefix) {
    const json* best = nullptr;
    for (const json& box : answer["boxes"]) {
      if (box["label"].get<std::string>().starts_with(prefix) &&
          (best == nullptr || (*best)["w"] < box["w"])) {
        best = &box;
      }
    }
    return best;
  };
  const json* checksum = widest("checksum");
  ASSERT_NE(checksum, nullptr) << answer["boxes"].dump();
  const auto [cr, cg, cb] = channels((*checksum)["colour"]);
  EXPECT_EQ(cr, 240u);
  EXPECT_LT(cg, 200u) << "a strong red";
  EXPECT_EQ(cg, cb);
  const json* series = widest("series");
  ASSERT_NE(series, nullptr);
  const auto [sr, sg, sb] = channels((*series)["colour"]);
  EXPECT_EQ(sb, 240u);
  EXPECT_LT(sr, 235u) << "blue";
  // The table: Self base, new, change, Total base, new, change, Function, Module.
  double checksum_total = -100, series_self = 100;
  for (const json& row : answer["rows"]) {
    if (row.size() != 8 || row[0] == "Self base") continue;
    const std::string name = row[6];
    if (name.starts_with("checksum")) {
      checksum_total = std::max(checksum_total, std::stod(row[5].get<std::string>()));
    }
    if (name.starts_with("series")) {
      series_self = std::min(series_self, std::stod(row[2].get<std::string>()));
    }
  }
  EXPECT_GT(checksum_total, 5.0) << answer["rows"].dump();
  EXPECT_LT(series_self, -5.0) << answer["rows"].dump();
}

// "153.00ms (65%)" → 153.
double Milliseconds(const std::string& cell) {
  double value = 0;
  char unit[3] = {};
  if (std::sscanf(cell.c_str(), "%lf%2s", &value, unit) != 2) return -1;
  return std::string(unit) == "ms" ? value : std::string(unit) == "ns" ? value / 1e6 : value * 1e3;
}

// The speedscope file, opened in the speedscope app: it names the busiest thread's profile, and
// its Sandwich view lists each function's self time as the folded stacks count its samples (one
// sample is 1 ms at record's 1000 Hz).
TEST_F(HtmlReportTest, SpeedscopeOutputOpensInTheSpeedscopeApp) {
  const std::string file = tmp_->path() + "/hotspot.speedscope.json";
  auto report =
      RunProgram({JITSCOPE_CLI, "report", Hotspot(), "--format", "speedscope", "-o", file});
  ASSERT_EQ(report.exit_code, 0) << report.Describe();
  const json written = json::parse(test_support::ReadFile(file));
  const std::string thread =
      written["profiles"][written["activeProfileIndex"].get<size_t>()]["name"];
  auto run = RunProgram({NODE_PROGRAM, BROWSER_TESTS "/speedscope_app.mjs", "--chromium", CHROMIUM,
                         "--profile", file},
                        {{"HOME", tmp_->path()}}, {.timeout = std::chrono::seconds(240)});
  ASSERT_EQ(run.exit_code, 0) << run.Describe();
  const json answer = json::parse(run.out);
  EXPECT_EQ(answer["errors"], json::array());
  EXPECT_EQ(answer["console"], json::array());
  EXPECT_EQ(answer["requests"], json::array());
  const std::vector<std::string> toolbar = answer["toolbar"];
  EXPECT_TRUE(
      std::any_of(toolbar.begin(), toolbar.end(),
                  [&](const std::string& line) { return line.find(thread) != std::string::npos; }))
      << thread << " in " << answer["toolbar"].dump();
  // Self time per name (speedscope keeps a function's lines apart; the folded stacks do not).
  std::map<std::string, double> self_ms;
  for (const json& row : answer["rows"]) {
    if (row.size() != 3 || row[0] == "Total") continue;
    self_ms[row[2]] += Milliseconds(row[1]);
  }
  std::map<std::string, uint64_t> self_samples;
  for (const FoldedStack& s : *stacks_) {
    std::string leaf = s.leaf();
    if (const size_t mark = leaf.rfind("_["); mark != std::string::npos && leaf.ends_with("]")) {
      const std::string kind = leaf.substr(mark);
      leaf = leaf.substr(0, mark) + (kind == "_[i]" ? " (inlined)" : "");
    }
    self_samples[leaf] += s.samples;
  }
  ASSERT_FALSE(answer["rows"].size() < 2) << answer.dump();
  EXPECT_EQ(answer["rows"][1][2], HotSeries()) << "the first row is the most self time";
  for (const auto& [name, samples] : self_samples) {
    EXPECT_NEAR(self_ms[name], static_cast<double>(samples), 0.01) << name;
  }
}

}  // namespace
}  // namespace jitscope::report
