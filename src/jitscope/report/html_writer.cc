// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/html_writer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "html_page.h"  // generated from html/ (CMakeLists.txt)
#include "jitscope/report/frame_labels.h"
#include "jitscope/report/frame_style.h"
#include "jitscope/report/page_data.h"
#include "jitscope/report/text_writer.h"
#include "jitscope/report/utf8.h"
#include "jitscope/symbolize/symbol_index.h"

namespace jitscope::report {
namespace {

// Microseconds from `origin_ns` (negative before it).
int64_t MicrosecondsFrom(uint64_t time_ns, uint64_t origin_ns) {
  return time_ns >= origin_ns ? static_cast<int64_t>((time_ns - origin_ns) / 1000)
                              : -static_cast<int64_t>((origin_ns - time_ns) / 1000);
}

// The page's time axis: the recording's, from the timeline's start (the session's) to its last
// record, which hold every task, period, marker, counter value and JIT event the page draws, and
// the samples' times; the samples' alone without a timeline. A task begun before the first
// sample or a counter set after the last is drawn where it was, not cut off at the samples.
// Times on the page are microseconds from the axis's start.
struct TimeAxis {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

TimeAxis AxisOf(const Profile& profile) {
  const TimeAxis samples{profile.start_time_ns, profile.end_time_ns};
  const Timeline& timeline = profile.timeline;
  if (timeline.end_ns == 0) return samples;
  if (samples.end_ns == 0) return {timeline.start_ns, timeline.end_ns};
  return {std::min(samples.start_ns, timeline.start_ns), std::max(samples.end_ns, timeline.end_ns)};
}

// The annotations, as the page's Code view reads them.
void WriteCode(const Profile& profile, const HtmlCode& code, PageData& page) {
  std::map<std::tuple<uint32_t, uint64_t, uint64_t>, size_t> version_index;
  for (size_t i = 0; i < profile.jit_versions.size(); ++i) {
    const JitVersion& v = profile.jit_versions[i];
    version_index.emplace(std::tuple(v.pid, v.start, v.loaded_ns), i);
  }
  std::string& out = page.out();
  out += ",\"code\":[";
  for (size_t i = 0; i < code.annotations.size(); ++i) {
    const Annotation& a = code.annotations[i];
    const SampledVersion& v = a.version;
    int64_t version = -1;
    if (auto it = version_index.find(std::tuple(v.pid, v.start, v.loaded_ns));
        !v.native && it != version_index.end()) {
      version = static_cast<int64_t>(it->second);
    }
    const SourceNames names(a);
    std::vector<int64_t> offsets, samples, below, sources;
    std::vector<std::string> texts;
    for (const AnnotatedInstruction& in : a.instructions) {
      offsets.push_back(static_cast<int64_t>(in.offset));
      samples.push_back(static_cast<int64_t>(in.samples));
      below.push_back(static_cast<int64_t>(in.inclusive));
      sources.push_back(in.source.empty() ? -1 : page.Intern(names.Heading(in.source)));
      texts.push_back(InstructionText(in));
    }
    if (i > 0) out += ',';
    out += fmt::format("{{\"name\":{},\"module\":{},\"pid\":{},\"native\":{},\"version\":{},",
                       page.Intern(v.name), page.Intern(v.module), v.pid, v.native, version);
    out += fmt::format("\"samples\":{},\"start\":{},\"title\":{},\"header\":", v.samples, v.start,
                       page.Intern(VersionTitle(v)));
    std::vector<int64_t> header;
    for (const std::string& line : AnnotationHeader(a, code.output))
      header.push_back(page.Intern(line));
    page.Numbers(header);
    page.OpenTable(
        "instructions",
        {{"offset", &offsets}, {"samples", &samples}, {"below", &below}, {"source", &sources}});
    out += ",\"text\":";
    page.Strings(texts);
    page.CloseTable();
    out += '}';
  }
  out += ']';
  page.Field("code_note", code.note);
}

// The page's threads, by pid then tid: those with samples and those the timeline has anything of
// (tasks, periods off the CPU, markers). Per thread, its samples on a CPU as differences of
// microseconds and tree nodes; its periods off the CPU (when, how long, why, and the tree node of
// the off-CPU sample the report kept, else -1), which the page weighs by their time; its ITT
// slices (when, how long, name, lane: a task's depth, the lane below them for overlapped tasks,
// regions and frames); its markers; the JIT engine's code events it reported, every one (when,
// which: load, new version, update, unload, move; the method, the version of its name, address
// and size). Times are microseconds from the axis's start.
void WriteThreads(const Profile& profile, const StackTree& tree, TimeAxis axis, PageData& page) {
  const Timeline& timeline = profile.timeline;
  std::map<std::pair<uint32_t, uint32_t>, size_t> index;
  for (const ThreadShare& t : profile.threads) index.try_emplace({t.pid, t.tid}, 0);
  for (const TimelineThread& t : timeline.threads) {
    if (!t.slices.empty() || !t.off_cpu.empty() || !t.instants.empty()) {
      index.try_emplace({t.pid, t.tid}, 0);
    }
  }
  size_t n = 0;
  for (auto& [ids, i] : index) i = n++;
  std::vector<std::vector<int64_t>> times(n), nodes(n), off_at(n), off_us(n), off_why(n),
      off_node(n), slice_at(n), slice_us(n), slice_name(n), slice_lane(n), mark_at(n), mark_name(n),
      jit_at(n), jit_event(n), jit_name(n), jit_version(n), jit_address(n), jit_size(n);
  std::vector<int64_t> last(n, 0), pid(n), tid(n), name(n, page.Intern(""));
  for (const TimedSample& sample : profile.samples) {
    // An off-CPU sample is its period's (below): its time is written once.
    if (sample.off_cpu) continue;
    const ThreadShare& t = profile.threads[sample.thread];
    const size_t i = index.at({t.pid, t.tid});
    const int64_t at = MicrosecondsFrom(sample.time_ns, axis.start_ns);
    times[i].push_back(at - last[i]);
    last[i] = at;
    nodes[i].push_back(tree.leaf[sample.stack]);
  }
  for (const TimelineThread& t : timeline.threads) {
    auto it = index.find({t.pid, t.tid});
    if (it == index.end()) continue;
    const size_t i = it->second;
    name[i] = page.Intern(t.name);
    for (const OffCpuPeriod& period : t.off_cpu) {
      off_at[i].push_back(MicrosecondsFrom(period.begin_ns, axis.start_ns));
      off_us[i].push_back(MicrosecondsFrom(period.end_ns, period.begin_ns));
      off_why[i].push_back(page.Intern(OffCpuWhy(period)));
      off_node[i].push_back(period.stack < tree.leaf.size()
                                ? static_cast<int64_t>(tree.leaf[period.stack])
                                : int64_t{-1});
    }
    uint32_t task_lanes = 0;
    for (const TimelineSlice& slice : t.slices) {
      if (slice.kind == trace::IttKind::kTask) task_lanes = std::max(task_lanes, slice.depth + 1);
    }
    for (const TimelineSlice& slice : t.slices) {
      slice_at[i].push_back(MicrosecondsFrom(slice.begin_ns, axis.start_ns));
      slice_us[i].push_back(MicrosecondsFrom(slice.end_ns, slice.begin_ns));
      slice_name[i].push_back(page.Intern(timeline.String(slice.name)));
      slice_lane[i].push_back(slice.kind == trace::IttKind::kTask ? slice.depth : task_lanes);
    }
    for (const TimelineInstant& instant : t.instants) {
      const int64_t at = MicrosecondsFrom(instant.time_ns, axis.start_ns);
      if (instant.kind == InstantKind::kMarker) {
        mark_at[i].push_back(at);
        mark_name[i].push_back(page.Intern(timeline.String(instant.name)));
        continue;
      }
      jit_at[i].push_back(at);
      jit_event[i].push_back(page.Intern(InstantKindName(instant.kind)));
      jit_name[i].push_back(page.Intern(timeline.String(instant.name)));
      jit_version[i].push_back(instant.version);
      jit_address[i].push_back(static_cast<int64_t>(instant.address));
      jit_size[i].push_back(static_cast<int64_t>(instant.size));
    }
  }
  for (const ThreadShare& t : profile.threads) name[index.at({t.pid, t.tid})] = page.Intern(t.name);
  for (const auto& [ids, i] : index) {
    pid[i] = ids.first;
    tid[i] = ids.second;
  }
  page.OpenTable("threads", {{"pid", &pid}, {"tid", &tid}, {"name", &name}});
  const std::pair<const char*, const std::vector<std::vector<int64_t>>*> lists[] = {
      {"times", &times},
      {"nodes", &nodes},
      {"off_at", &off_at},
      {"off_us", &off_us},
      {"off_why", &off_why},
      {"off_node", &off_node},
      {"slice_at", &slice_at},
      {"slice_us", &slice_us},
      {"slice_name", &slice_name},
      {"slice_lane", &slice_lane},
      {"mark_at", &mark_at},
      {"mark_name", &mark_name},
      {"jit_at", &jit_at},
      {"jit_event", &jit_event},
      {"jit_name", &jit_name},
      {"jit_version", &jit_version},
      {"jit_address", &jit_address},
      {"jit_size", &jit_size}};
  for (const auto& [field, values] : lists) {
    page.out() += fmt::format(",\"{}\":", field);
    page.NumberLists(*values);
  }
  page.CloseTable();
}

// The ITT counters, each with its process, its name ("DOMAIN/NAME") and its values at their
// times (microseconds from the axis's start).
void WriteCounters(const Profile& profile, TimeAxis axis, PageData& page) {
  std::string& out = page.out();
  out += ",\"counters\":[";
  const Timeline& timeline = profile.timeline;
  for (size_t i = 0; i < timeline.counters.size(); ++i) {
    const TimelineCounter& counter = timeline.counters[i];
    const std::string& domain = timeline.String(counter.domain);
    const std::string& name = timeline.String(counter.name);
    std::vector<int64_t> at;
    std::vector<std::string> values;
    for (const TimelineCounter::Value& value : counter.values) {
      at.push_back(MicrosecondsFrom(value.time_ns, axis.start_ns));
      values.push_back(fmt::format("{}", std::isfinite(value.value) ? value.value : 0.0));
    }
    out += fmt::format("{}{{\"pid\":{},\"name\":{},\"at\":", i > 0 ? "," : "", counter.pid,
                       page.Intern(domain.empty() ? name : domain + "/" + name));
    page.Numbers(at);
    out += fmt::format(",\"values\":[{}]}}", fmt::join(values, ","));
  }
  out += ']';
}

}  // namespace

std::string HtmlPage(const std::string& title, std::string data) {
  // Inside <script>, "</script" or "<!--" would end or change the element: JSON allows "<" to be
  // written as \u003c, and it occurs only inside strings.
  std::string safe;
  safe.reserve(data.size());
  for (char c : data) {
    if (c == '<') {
      safe += "\\u003c";
    } else {
      safe += c;
    }
  }
  std::string page;
  page.reserve(safe.size() + html_page::kPage.size() + html_page::kStyle.size() +
               html_page::kScript.size() + title.size() * 2);
  // Each marker once, in the page's own text (never in what was inserted before it).
  const std::pair<std::string_view, std::string_view> parts[] = {
      {"@JITSCOPE_TITLE@", {}},
      {"@JITSCOPE_STYLE@", html_page::kStyle},
      {"@JITSCOPE_DATA@", safe},
      {"@JITSCOPE_SCRIPT@", html_page::kScript},
  };
  std::string_view rest = html_page::kPage;
  for (const auto& [marker, content] : parts) {
    const size_t at = rest.find(marker);
    page.append(rest.substr(0, at));
    if (marker == "@JITSCOPE_TITLE@") {
      page += EscapeMarkup(title);
    } else {
      page.append(content);
    }
    rest = rest.substr(at + marker.size());
  }
  page.append(rest);
  return page;
}

std::string RenderHtml(const Profile& profile, const HtmlCode& code) {
  PageData page;
  const TimeAxis axis = AxisOf(profile);
  std::string& out = page.out();
  out += "{\"format\":1";
  page.Field("title", profile.command.empty() ? "jitscope report" : profile.command);
  page.Field("command", profile.command);
  page.Field("summary", fmt::format("{}", fmt::join(ProfileHeader(profile), "; ")));
  out += ",\"warnings\":";
  page.Strings(profile.warnings);
  out += fmt::format(",\"total\":{},\"period_ns\":{},\"duration_us\":{}", profile.total_samples,
                     profile.sample_period_ns, MicrosecondsFrom(axis.end_ns, axis.start_ns));
  page.Frames(profile.locations, FrameLabels(profile));

  // Versions of JIT code.
  {
    std::vector<int64_t> pid, start, size, loaded, invalidated, method;
    for (const JitVersion& v : profile.jit_versions) {
      pid.push_back(v.pid);
      start.push_back(static_cast<int64_t>(v.start));
      size.push_back(static_cast<int64_t>(v.size));
      loaded.push_back(MicrosecondsFrom(v.loaded_ns, axis.start_ns));
      invalidated.push_back(v.invalidated_ns == symbolize::kForever
                                ? -1
                                : MicrosecondsFrom(v.invalidated_ns, axis.start_ns));
      method.push_back(v.method_id ? static_cast<int64_t>(*v.method_id) : -1);
    }
    page.Table("versions", {{"pid", &pid},
                            {"start", &start},
                            {"size", &size},
                            {"loaded_us", &loaded},
                            {"invalidated_us", &invalidated},
                            {"method", &method}});
  }

  // The tree of distinct stacks, and each stack's leaf node.
  const StackTree tree = StackTree::Of(profile.stacks);
  page.Nodes(tree);

  // Processes, and per thread its samples.
  {
    std::vector<int64_t> pid;
    std::vector<int64_t> name;
    for (const ProcessShare& p : profile.processes) {
      pid.push_back(p.pid);
      name.push_back(page.Intern(p.name));
    }
    page.Table("processes", {{"pid", &pid}, {"name", &name}});
  }
  WriteThreads(profile, tree, axis, page);
  WriteCounters(profile, axis, page);
  WriteCode(profile, code, page);
  return HtmlPage(profile.command.empty() ? "jitscope report" : "jitscope: " + profile.command,
                  std::move(page).Finish());
}

std::string RenderHtmlDiff(const ProfileDiff& diff) {
  PageData page;
  std::string& out = page.out();
  out += "{\"format\":1";
  const std::string title =
      fmt::format("difference: {} against {}", diff.new_command.empty() ? "?" : diff.new_command,
                  diff.base_command.empty() ? "?" : diff.base_command);
  page.Field("title", title);
  page.Field("command", diff.new_command);
  page.Field("summary",
             fmt::format("base run: {} samples of {}; new run: {} samples of {}; "
                         "shares are of each run's own samples",
                         diff.base_total, diff.base_command, diff.new_total, diff.new_command));
  out += ",\"warnings\":";
  page.Strings(diff.warnings);
  out += fmt::format(",\"total\":{},\"period_ns\":{},\"duration_us\":0", diff.new_total,
                     diff.sample_period_ns);
  page.Frames(diff.functions, diff.labels);
  std::vector<Stack> stacks;
  stacks.reserve(diff.stacks.size());
  for (const StackChange& s : diff.stacks) stacks.push_back({s.frames, s.now, 0, 0});
  const StackTree tree = StackTree::Of(stacks);
  page.Nodes(tree);
  std::vector<int64_t> now(tree.parent.size(), 0), base(tree.parent.size(), 0);
  for (size_t i = 0; i < diff.stacks.size(); ++i) {
    now[tree.leaf[i]] += static_cast<int64_t>(diff.stacks[i].now);
    base[tree.leaf[i]] += static_cast<int64_t>(diff.stacks[i].base);
  }
  out += fmt::format(",\"diff\":{{\"new_total\":{},\"base_total\":{},\"new_self\":", diff.new_total,
                     diff.base_total);
  page.Numbers(now);
  out += ",\"base_self\":";
  page.Numbers(base);
  // The table of changes by function, in the text report's order.
  std::vector<int64_t> name, module;
  std::vector<std::string> self_base, self_new, total_base, total_new;
  auto share = [](uint64_t part, uint64_t whole) {
    return fmt::format("{:.6f}",
                       whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole));
  };
  for (const FunctionChange& c : diff.changes) {
    const Location& l = diff.functions[c.function];
    if (l.kind == FrameKind::kProcess || l.kind == FrameKind::kGuessed) continue;
    name.push_back(page.Intern(diff.labels[c.function] + (l.inlined ? " (inlined)" : "")));
    module.push_back(page.Intern(l.module));
    self_base.push_back(share(c.self_base, diff.base_total));
    self_new.push_back(share(c.self_new, diff.new_total));
    total_base.push_back(share(c.total_base, diff.base_total));
    total_new.push_back(share(c.total_new, diff.new_total));
  }
  page.OpenTable("functions", {{"name", &name}, {"module", &module}});
  const std::pair<const char*, const std::vector<std::string>*> shares[] = {
      {"self_base", &self_base},
      {"self_new", &self_new},
      {"total_base", &total_base},
      {"total_new", &total_new}};
  for (const auto& [field, values] : shares) {
    out += fmt::format(",\"{}\":[{}]", field, fmt::join(*values, ","));
  }
  page.CloseTable();
  out += '}';
  return HtmlPage("jitscope: " + title, std::move(page).Finish());
}

}  // namespace jitscope::report
