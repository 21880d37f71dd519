// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/chrome_trace_writer.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "jitscope/report/utf8.h"
#include "jitscope/trace/event.h"

namespace jitscope::report {
namespace {

// A JSON string of `text`: valid UTF-8, and without control characters, which Perfetto's
// importer rejects even escaped.
std::string Quoted(std::string_view text) {
  std::string clean = ValidUtf8(text);
  for (char& c : clean) {
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  }
  return nlohmann::json(clean).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Microseconds from the recording's start, to the nanosecond.
std::string Micros(uint64_t time_ns, uint64_t start_ns) {
  const uint64_t ns = time_ns > start_ns ? time_ns - start_ns : 0;
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

std::string Hex(uint64_t value) { return fmt::format("\"{:#x}\"", value); }

std::string Id(const trace::IttId& id) { return fmt::format("\"{:#x}:{:#x}\"", id.d1, id.d2); }

// The ITT scope of a marker as an instant's scope: global, process (a track group's) or thread.
const char* InstantScope(uint32_t itt_scope) {
  switch (itt_scope) {
    case 1:
      return "g";
    case 2:
      return "p";
    default:
      return "t";
  }
}

class Writer {
 public:
  explicit Writer(const Profile& profile)
      : profile_(profile), timeline_(profile.timeline), start_(timeline_.start_ns) {}

  std::string Render() && {
    out_ = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    NameProcessesAndThreads();
    for (const TimelineThread& thread : timeline_.threads) WriteThread(thread);
    for (const TimelineCounter& counter : timeline_.counters) WriteCounter(counter);
    // The last event ends without a comma.
    if (out_.ends_with(",\n")) out_.erase(out_.size() - 2, 1);
    out_ += "],\n";
    out_ += fmt::format(
        "\"otherData\":{{\"command\":{},\"recording_start_monotonic_ns\":{},"
        "\"recording_end_monotonic_ns\":{},\"sample_period_ns\":{}}},\n",
        Quoted(profile_.command), timeline_.start_ns, timeline_.end_ns, profile_.sample_period_ns);
    WriteSamples();
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  void Event(std::string_view fields) {
    out_ += '{';
    out_ += fields;
    out_ += "},\n";
  }

  void NameProcessesAndThreads() {
    std::map<uint32_t, std::string> processes;
    for (const ProcessShare& process : profile_.processes) processes[process.pid] = process.name;
    for (const TimelineThread& thread : timeline_.threads) {
      // A process without samples is named by its main thread, if the timeline has it.
      if (thread.tid == thread.pid && !processes.contains(thread.pid)) {
        processes[thread.pid] = thread.name;
      } else {
        processes.try_emplace(thread.pid, "");
      }
    }
    for (const auto& [pid, name] : processes) {
      Event(fmt::format(R"("ph":"M","pid":{},"tid":{},"name":"process_name","args":{{"name":{}}})",
                        pid, pid, Quoted(name.empty() ? fmt::format("pid {}", pid) : name)));
    }
    for (const TimelineThread& thread : timeline_.threads) {
      Event(fmt::format(
          R"("ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":{}}})", thread.pid,
          thread.tid,
          Quoted(thread.name.empty() ? fmt::format("tid {}", thread.tid) : thread.name)));
    }
  }

  std::string SliceArgs(const TimelineSlice& slice) const {
    std::string args = fmt::format(R"("kind":"{}","domain":{})", trace::IttKindName(slice.kind),
                                   Quoted(timeline_.String(slice.domain)));
    if (slice.id.d1 != 0 || slice.id.d2 != 0) args += fmt::format(R"(,"id":{})", Id(slice.id));
    if (slice.parent.d1 != 0 || slice.parent.d2 != 0) {
      args += fmt::format(R"(,"parent":{})", Id(slice.parent));
    }
    if (slice.parent_name != kNoString) {
      args += fmt::format(R"(,"parent_name":{})", Quoted(timeline_.String(slice.parent_name)));
    }
    if (!slice.ended) args += R"(,"ended":false)";
    return args;
  }

  void WriteThread(const TimelineThread& thread) {
    for (const TimelineSlice& slice : thread.slices) {
      const std::string name = Quoted(timeline_.String(slice.name));
      const std::string cat = Quoted(timeline_.String(slice.domain));
      if (slice.kind == trace::IttKind::kTask) {
        Event(fmt::format(R"("ph":"X","ts":{},"dur":{},"pid":{},"tid":{},"name":{},"cat":{},)"
                          R"("args":{{{}}})",
                          Micros(slice.begin_ns, start_), Micros(slice.end_ns, slice.begin_ns),
                          thread.pid, thread.tid, name, cat, SliceArgs(slice)));
        continue;
      }
      // Async: matched by category and id, which the kind and the ITT id make unique.
      const std::string id = fmt::format("\"{}:{:#x}:{:#x}\"", trace::IttKindName(slice.kind),
                                         slice.id.d1, slice.id.d2);
      Event(fmt::format(R"("ph":"b","ts":{},"pid":{},"tid":{},"name":{},"cat":{},"id":{},)"
                        R"("args":{{{}}})",
                        Micros(slice.begin_ns, start_), thread.pid, thread.tid, name, cat, id,
                        SliceArgs(slice)));
      Event(fmt::format(R"("ph":"e","ts":{},"pid":{},"tid":{},"name":{},"cat":{},"id":{})",
                        Micros(slice.end_ns, start_), thread.pid, thread.tid, name, cat, id));
    }
    // A period's off-CPU sample, if the report kept it, is the period's stack.
    for (const OffCpuPeriod& period : thread.off_cpu) {
      Event(fmt::format(
          R"("ph":"X","ts":{},"dur":{},"pid":{},"tid":{},"name":"[off-cpu: {}]","cat":"off-cpu"{})",
          Micros(period.begin_ns, start_), Micros(period.end_ns, period.begin_ns), thread.pid,
          thread.tid, OffCpuWhy(period),
          period.stack < profile_.stacks.size()
              ? fmt::format(R"(,"args":{{"stack":{}}})", Quoted(StackText(period.stack)))
              : ""));
    }
    for (const TimelineInstant& instant : thread.instants) WriteInstant(thread, instant);
    for (const TimelineSample& sample : thread.samples) {
      if (sample.off_cpu) continue;
      Event(fmt::format(R"("ph":"i","ts":{},"pid":{},"tid":{},"s":"t","name":{},"cat":"sample",)"
                        R"("args":{{"stack":{}}})",
                        Micros(sample.time_ns, start_), thread.pid, thread.tid,
                        Quoted(LeafName(sample.stack)), Quoted(StackText(sample.stack))));
    }
  }

  void WriteInstant(const TimelineThread& thread, const TimelineInstant& instant) {
    const std::string& name = timeline_.String(instant.name);
    if (instant.kind == InstantKind::kMarker) {
      Event(fmt::format(R"("ph":"i","ts":{},"pid":{},"tid":{},"s":"{}","name":{},"cat":{})",
                        Micros(instant.time_ns, start_), thread.pid, thread.tid,
                        InstantScope(instant.scope), Quoted(name),
                        Quoted(timeline_.String(instant.domain))));
      return;
    }
    std::string args =
        fmt::format(R"("event":"{}","address":{},"size":{})", InstantKindName(instant.kind),
                    Hex(instant.address), instant.size);
    if (instant.method_id != 0) args += fmt::format(R"(,"method_id":{})", instant.method_id);
    if (instant.domain != kNoString) {
      args += fmt::format(R"(,"module":{})", Quoted(timeline_.String(instant.domain)));
    }
    if (instant.version != 0) args += fmt::format(R"(,"version":{})", instant.version);
    Event(fmt::format(R"("ph":"i","ts":{},"pid":{},"tid":{},"s":"t","name":{},"cat":"jit",)"
                      R"("args":{{{}}})",
                      Micros(instant.time_ns, start_), thread.pid, thread.tid,
                      Quoted(fmt::format("{}: {}", InstantKindName(instant.kind), name)), args));
  }

  void WriteCounter(const TimelineCounter& counter) {
    const std::string& domain = timeline_.String(counter.domain);
    const std::string name = domain.empty()
                                 ? timeline_.String(counter.name)
                                 : fmt::format("{}/{}", domain, timeline_.String(counter.name));
    for (const TimelineCounter::Value& value : counter.values) {
      Event(fmt::format(R"("ph":"C","ts":{},"pid":{},"name":{},"args":{{"value":{}}})",
                        Micros(value.time_ns, start_), counter.pid, Quoted(name), value.value));
    }
  }

  const std::string& LeafName(uint32_t stack) const {
    static const std::string kNone = "[no stack]";
    if (stack >= profile_.stacks.size() || profile_.stacks[stack].frames.empty()) return kNone;
    return profile_.locations[profile_.stacks[stack].frames.front()].function;
  }

  // A stack as one string, leaf first: "leaf <- caller <- ... <- root".
  std::string StackText(uint32_t stack) const {
    if (stack >= profile_.stacks.size()) return "";
    std::string text;
    for (const uint32_t frame : profile_.stacks[stack].frames) {
      if (!text.empty()) text += " <- ";
      text += profile_.locations[frame].function;
    }
    return text;
  }

  // The spec's sample form: every frame of every sampled stack a node of a tree ("stackFrames",
  // its id's parent the caller's node), and each sample naming its leaf's node.
  void WriteSamples() {
    std::map<std::pair<uint64_t, uint32_t>, uint64_t> nodes;  // (parent node, location) → node
    std::vector<std::pair<uint64_t, uint32_t>> node_list;     // node - 1 → (parent, location)
    std::vector<uint64_t> leaf_of(profile_.stacks.size(), 0);
    for (const TimelineThread& thread : timeline_.threads) {
      for (const TimelineSample& sample : thread.samples) {
        if (sample.stack >= leaf_of.size() || leaf_of[sample.stack] != 0) continue;
        uint64_t node = 0;
        const std::vector<uint32_t>& frames = profile_.stacks[sample.stack].frames;
        for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame) {
          auto [it, inserted] = nodes.try_emplace({node, *frame}, node_list.size() + 1);
          if (inserted) node_list.emplace_back(node, *frame);
          node = it->second;
        }
        leaf_of[sample.stack] = node;
      }
    }
    out_ += "\"stackFrames\":{";
    for (size_t i = 0; i < node_list.size(); ++i) {
      const Location& location = profile_.locations[node_list[i].second];
      out_ += fmt::format("{}\n\"{}\":{{\"name\":{},\"category\":{}{}}}", i == 0 ? "" : ",", i + 1,
                          Quoted(location.function), Quoted(location.module),
                          node_list[i].first == 0
                              ? std::string()
                              : fmt::format(",\"parent\":\"{}\"", node_list[i].first));
    }
    out_ += "},\n\"samples\":[";
    bool first = true;
    for (const TimelineThread& thread : timeline_.threads) {
      for (const TimelineSample& sample : thread.samples) {
        if (sample.stack >= leaf_of.size() || leaf_of[sample.stack] == 0) continue;
        out_ += fmt::format(
            "{}\n{{\"ts\":{},\"pid\":{},\"tid\":{},\"name\":\"{}\",\"sf\":\"{}\","
            "\"weight\":{}}}",
            first ? "" : ",", Micros(sample.time_ns, start_), thread.pid, thread.tid,
            sample.off_cpu ? "off-cpu" : "cpu-clock", leaf_of[sample.stack], sample.weight_ns);
        first = false;
      }
    }
    out_ += "]\n";
  }

  const Profile& profile_;
  const Timeline& timeline_;
  const uint64_t start_;
  std::string out_;
};

}  // namespace

base::StatusOr<std::string> RenderChromeTrace(const Profile& profile) {
  return Writer(profile).Render();
}

}  // namespace jitscope::report
