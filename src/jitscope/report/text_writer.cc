// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/text_writer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "jitscope/report/short_name.h"
#include "jitscope/report/utf8.h"
#include "jitscope/unwind/unwinder.h"

namespace jitscope::report {
namespace {

struct Entry {
  std::string function, module, source;
  bool inlined = false;
  uint64_t self = 0, total = 0;
  size_t first_seen = 0;
  bool jit = false;  // JIT code: `jitscope annotate` can show its instructions
};

using Key = std::tuple<std::string, std::string, std::string, uint32_t>;

Key KeyOf(const Location& l, SortKey sort) {
  switch (sort) {
    case SortKey::kMethod:
      return {l.function, l.module, "", 0};
    case SortKey::kLine:
      return {l.function, l.module, l.file, l.line};
    case SortKey::kModule:
      return {"", l.module, "", 0};
  }
  return {};
}

std::string SourceOf(const Location& l, SortKey sort) {
  if (sort == SortKey::kModule || l.file.empty()) return "";
  if (sort == SortKey::kMethod || l.line == 0) return l.file;
  return fmt::format("{}:{}", l.file, l.line);
}

}  // namespace

std::string PercentOf(uint64_t part, uint64_t whole) {
  return whole == 0 ? "-"
                    : fmt::format("{:.1f}%",
                                  100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

namespace {

std::string Seconds(uint64_t ns) { return fmt::format("{:.2f} s", static_cast<double>(ns) / 1e9); }

// The threads with a non-zero `time`, longest first, the first six as "NAME (tid TID) ..." with
// `what` of each, then how many more: "main (tid 10) 1.00 s, worker (tid 11) 0.20 s and 2 more
// threads"; "" when none has any.
std::string LongestThreads(const Timeline& timeline,
                           const std::function<uint64_t(const TimelineThread&)>& time,
                           const std::function<std::string(const TimelineThread&)>& what) {
  std::vector<const TimelineThread*> threads;
  for (const TimelineThread& thread : timeline.threads) {
    if (time(thread) > 0) threads.push_back(&thread);
  }
  std::stable_sort(threads.begin(), threads.end(),
                   [&time](const auto* a, const auto* b) { return time(*a) > time(*b); });
  constexpr size_t kShown = 6;
  std::vector<std::string> parts;
  for (size_t i = 0; i < threads.size() && i < kShown; ++i) {
    const TimelineThread& thread = *threads[i];
    parts.push_back(fmt::format("{} (tid {}) {}", thread.name.empty() ? "?" : thread.name,
                                thread.tid, what(thread)));
  }
  const size_t more = threads.size() - parts.size();
  return fmt::format("{}{}", fmt::join(parts, ", "),
                     more > 0 ? fmt::format(" and {} more threads", more) : "");
}

// "recorded for 2.51 s; CPU time sampled: main (tid 10) 1.00 s, worker (tid 11) 0.20 s": how long
// the recording ran against how much of it each thread was seen on a CPU, so a program that
// mostly waits says so.
std::string DescribeTime(const Profile& profile) {
  const Timeline& timeline = profile.timeline;
  if (timeline.threads.empty()) return "";
  std::string out = fmt::format("recorded for {}", Seconds(timeline.end_ns - timeline.start_ns));
  const std::string sampled = LongestThreads(
      timeline, [](const TimelineThread& t) { return t.samples_on_cpu > 0 ? t.cpu_ns : 0; },
      [](const TimelineThread& t) { return Seconds(t.cpu_ns); });
  if (!sampled.empty()) out += "; CPU time sampled: " + sampled;
  return out;
}

// "off the CPU: main (tid 10) 1.50 s waiting, 0.01 s preempted, ...": with switch records, the
// threads that spent longest off the CPU.
std::string DescribeOffCpu(const Timeline& timeline) {
  const std::string off = LongestThreads(
      timeline, [](const TimelineThread& t) { return t.waiting_ns + t.preempted_ns; },
      [](const TimelineThread& t) {
        return fmt::format("{} waiting, {} preempted", Seconds(t.waiting_ns),
                           Seconds(t.preempted_ns));
      });
  return off.empty() ? "" : "off the CPU: " + off;
}

// "off-CPU samples (record --off-cpu): 120 switches out of a CPU, 1.50 s waiting and 0.02 s
// preempted until their threads ran again, counted as 1520 samples of 1 ms": what the stacks under
// [off-cpu: STATE] leaves stand for, and what --off-cpu only or exclude left out.
std::string DescribeOffCpuSamples(const Profile& profile) {
  const OffCpuSummary& off = profile.off_cpu;
  const uint64_t recorded =
      off.choice == OffCpuSamples::kExclude ? off.left_out : off.switches + off.without_period;
  if (recorded == 0) return "";
  std::string out = "off-CPU samples (record --off-cpu): ";
  if (off.choice == OffCpuSamples::kExclude) {
    return out + fmt::format("{} switches out of a CPU, left out (--off-cpu exclude)", recorded);
  }
  out += fmt::format(
      "{} switches out of a CPU, {} waiting and {} preempted until their threads ran again, "
      "counted as {} samples of {:.3g} ms",
      off.switches, Seconds(off.waiting_ns), Seconds(off.preempted_ns), off.samples,
      static_cast<double>(profile.sample_period_ns) / 1e6);
  if (off.without_period > 0) {
    out +=
        fmt::format("; {} without the switch records that time them, left out", off.without_period);
  }
  if (off.choice == OffCpuSamples::kOnly) {
    out += fmt::format("; the {} samples on a CPU left out (--off-cpu only)", off.left_out);
  }
  return out;
}

// What the ITT calls of the recording meant that was not plain (timeline_builder.h).
std::string DescribeTimelineStats(const TimelineStats& stats) {
  std::vector<std::string> parts;
  auto add = [&parts](uint64_t count, const char* one, const char* many) {
    if (count != 0) parts.push_back(fmt::format("{} {}", count, count == 1 ? one : many));
  };
  add(stats.ends_without_begin, "end without a begin", "ends without a begin");
  add(stats.reused_ids, "id begun again while open", "ids begun again while open");
  add(stats.unended, "task not ended (ended with its thread)",
      "tasks not ended (ended with their threads)");
  add(stats.unnamed, "task without a name", "tasks without a name");
  add(stats.unknown_names, "record naming an unknown string", "records naming unknown strings");
  if (parts.empty()) return "";
  return fmt::format("ITT API calls: {}", fmt::join(parts, ", "));
}

}  // namespace

std::string ModuleDisplayName(const std::string& module) {
  if (!module.starts_with("/")) return module;
  return module.substr(module.rfind('/') + 1);
}

std::vector<std::string> ProfileHeader(const Profile& profile) {
  std::vector<std::string> lines;
  const double seconds = static_cast<double>(profile.end_time_ns - profile.start_time_ns) / 1e9;
  lines.push_back(fmt::format("{} samples over {:.2f} s, one per {:.3g} ms of CPU time per thread",
                              profile.total_samples, seconds,
                              static_cast<double>(profile.sample_period_ns) / 1e6));
  if (std::string time = DescribeTime(profile); !time.empty()) lines.push_back(std::move(time));
  if (std::string off = DescribeOffCpu(profile.timeline); !off.empty()) {
    lines.push_back(std::move(off));
  }
  if (std::string off = DescribeOffCpuSamples(profile); !off.empty()) {
    lines.push_back(std::move(off));
  }
  if (profile.filtered_out > 0) {
    lines.push_back(fmt::format("{} samples left out (--pid, --tid, --comm, --time, --task)",
                                profile.filtered_out));
  }
  if (std::string itt = DescribeTimelineStats(profile.timeline.stats); !itt.empty()) {
    lines.push_back(std::move(itt));
  }
  if (profile.processes.size() > 1) {
    // The busiest processes of a recording of several (record -p, -a, a command's children).
    constexpr size_t kShown = 5;
    std::vector<std::string> parts;
    for (size_t i = 0; i < profile.processes.size() && i < kShown; ++i) {
      const ProcessShare& p = profile.processes[i];
      parts.push_back(fmt::format("{} (pid {}) {}", p.name.empty() ? "?" : p.name, p.pid,
                                  PercentOf(p.samples, profile.total_samples)));
    }
    const size_t more = profile.processes.size() - parts.size();
    lines.push_back(fmt::format("{} processes, the busiest: {}{}", profile.processes.size(),
                                fmt::join(parts, ", "),
                                more > 0 ? fmt::format(" and {} more", more) : ""));
  }
  if (!profile.unwind_stops.empty()) {
    lines.push_back(
        fmt::format("stacks unwound from DWARF call-frame information, walks ending in: {}",
                    unwind::DescribeCounts(profile.unwind_stops)));
    if (profile.captured_walks > 0) {
      lines.push_back(fmt::format(
          "{} walks rest on code read from the running process while recording (code a perf "
          "map names, whose bytes no file holds)",
          profile.captured_walks));
    }
    if (profile.guessed_walks > 0) {
      lines.push_back(fmt::format(
          "{} walks that stopped carried on by the frame-pointer chain: {}", profile.guessed_walks,
          profile.guesses_marked ? "the frames outside [frame-pointer chain] are guesses"
                                 : "their callers beyond where they stopped are guesses "
                                   "(--mark-guesses shows where)"));
    }
  }
  for (const std::string& note : profile.notes) lines.push_back(note);
  if (const Profile::JavaFrames& java = profile.interpreter_frames;
      java.named > 0 || !java.unnamed.empty()) {
    lines.push_back(fmt::format(
        "Java interpreter frames: {} named from the JVM table{}{}; {} of {} samples running in "
        "the interpreter name their method",
        java.named, java.unnamed.empty() ? "" : ", left as Interpreter: ",
        unwind::DescribeCounts(java.unnamed), java.running_named, java.running));
  }
  return lines;
}

std::string RenderText(const Profile& profile, const TextOptions& options) {
  std::map<Key, Entry> entries;
  size_t seen = 0;
  std::set<Key> on_stack;
  for (const Stack& stack : profile.stacks) {
    on_stack.clear();
    for (size_t i = 0; i < stack.frames.size(); ++i) {
      const Location& location = profile.locations[stack.frames[i]];
      // A process root or the mark of a guessed walk is no module's code.
      if (options.sort == SortKey::kModule &&
          (location.kind == FrameKind::kProcess || location.kind == FrameKind::kGuessed)) {
        continue;
      }
      const Key key = KeyOf(location, options.sort);
      auto [it, inserted] = entries.try_emplace(key);
      Entry& entry = it->second;
      if (inserted) {
        entry.function = options.sort == SortKey::kModule ? "" : location.function;
        entry.inlined = location.inlined && options.sort != SortKey::kModule;
        entry.module = ModuleDisplayName(location.module);
        // Code in no mapping has no module to name.
        if (options.sort == SortKey::kModule && entry.module.empty()) entry.module = "[unknown]";
        entry.source = SourceOf(location, options.sort);
        entry.first_seen = seen++;
        entry.jit = location.kind == FrameKind::kJit;
      }
      if (i == 0) entry.self += stack.samples;
      if (on_stack.insert(key).second) entry.total += stack.samples;
    }
  }
  std::vector<const Entry*> sorted;
  for (const auto& [key, entry] : entries) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) {
    return std::tie(b->self, b->total, a->first_seen) < std::tie(a->self, a->total, b->first_seen);
  });
  if (options.top != 0 && sorted.size() > options.top) sorted.resize(options.top);

  std::string out;
  if (!profile.command.empty()) out += fmt::format("# jitscope report: {}\n", profile.command);
  for (const std::string& line : ProfileHeader(profile)) out += "# " + line + "\n";
  for (const std::string& warning : profile.warnings)
    out += fmt::format("# warning: {}\n", warning);
  if (profile.total_samples == 0 && profile.filtered_out > 0) {
    out += "# no samples pass the filters\n";
    return out;
  }
  if (profile.total_samples == 0) {
    out += fmt::format("# no samples: {}\n",
                       profile.no_samples_reason.empty()
                           ? "the command ended before the first one, or sampling was not allowed"
                           : profile.no_samples_reason);
    return out;
  }

  const bool modules = options.sort == SortKey::kModule;
  // Each name as the column shows it, " (inlined)" kept whole after a shortened name.
  std::vector<std::string> names;
  for (const Entry* e : sorted) {
    constexpr std::string_view kInlined = " (inlined)";
    const size_t room =
        options.name_width == 0 ? 0
        : e->inlined ? std::max<size_t>(options.name_width, kInlined.size() + 8) - kInlined.size()
                     : options.name_width;
    names.push_back(ShortName(e->function, room) + (e->inlined ? std::string(kInlined) : ""));
  }
  size_t name_width = modules ? 0 : 8, module_width = 6;
  for (size_t i = 0; i < sorted.size(); ++i) {
    name_width = std::max(name_width, names[i].size());
    module_width = std::max(module_width, std::min<size_t>(sorted[i]->module.size(), 32));
  }
  out += fmt::format("#\n{:>7} {:>7} {:>8}  ", "Self", "Total", "Samples");
  if (!modules) out += fmt::format("{:<{}}  ", "Function", name_width);
  out += fmt::format("{:<{}}", "Module", module_width);
  if (!modules) out += "  Source";
  while (out.back() == ' ') out.pop_back();
  out += "\n";
  for (size_t i = 0; i < sorted.size(); ++i) {
    const Entry* e = sorted[i];
    std::string line = fmt::format("{:>7} {:>7} {:>8}  ", PercentOf(e->self, profile.total_samples),
                                   PercentOf(e->total, profile.total_samples), e->self);
    if (!modules) line += fmt::format("{:<{}}  ", names[i], name_width);
    line +=
        fmt::format("{:<{}}", FitToWidth(e->module.empty() ? "-" : e->module, 32), module_width);
    if (!modules && !e->source.empty()) line += "  " + e->source;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  // Where hot code is JIT code, the next question is which of its instructions: say where to look.
  if (std::any_of(sorted.begin(), sorted.end(), [](const Entry* e) { return e->jit && e->self; })) {
    out +=
        "#\n# the hot instructions of JIT code, beside its source lines: jitscope annotate [DIR] "
        "[FUNCTION]\n";
  }
  return out;
}

}  // namespace jitscope::report
