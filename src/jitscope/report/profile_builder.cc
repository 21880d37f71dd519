// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/profile_builder.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "jitscope/report/jit_advice.h"
#include "jitscope/report/native_symbolizer.h"
#include "jitscope/report/off_cpu_periods.h"
#include "jitscope/report/process_names.h"
#include "jitscope/report/sample_filter.h"
#include "jitscope/report/thread_entry.h"
#include "jitscope/report/timeline_builder.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/symbolize/java_methods.h"
#include "jitscope/symbolize/source_set.h"
#include "jitscope/walk/process_maps.h"
#include "jitscope/walk/recording.h"
#include "jitscope/walk/sample_walker.h"

namespace jitscope::report {
namespace {

struct LocationHash {
  size_t operator()(const Location& l) const {
    std::hash<std::string_view> h;
    return h(l.function) ^ (h(l.module) * 31) ^ (h(l.file) * 131) ^ (size_t{l.line} << 7) ^
           (static_cast<size_t>(l.kind) << 3) ^ (l.inlined ? 1 : 0) ^ (size_t{l.version} << 40);
  }
};

struct StackHash {
  size_t operator()(const std::vector<uint32_t>& frames) const {
    size_t h = frames.size();
    for (uint32_t f : frames) h = h * 1000003u ^ f;
    return h;
  }
};

// What names the code at a user address (Builder::AppendUserFrames): for JIT code, the process,
// the region's start and load time, and the address; for other code, kNotJit, the mapping, 0 and
// the address.
struct AddressKey {
  uint64_t process = 0;
  uint64_t region = 0;
  uint64_t loaded = 0;
  uint64_t address = 0;
  bool operator==(const AddressKey&) const = default;
};
constexpr uint64_t kNotJit = uint64_t{1} << 32;  // above every pid

struct AddressKeyHash {
  size_t operator()(const AddressKey& k) const {
    size_t h = k.address;
    for (uint64_t part : {k.process, k.region, k.loaded}) {
      h = h * 1000003u ^ std::hash<uint64_t>{}(part);
    }
    return h;
  }
};

// With sample_times: each thread's index in first-seen order, and its last sample's time.
using ThreadOrder = std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, uint64_t>>;

class Builder {
 public:
  Builder(const BuildOptions& options, const session::SampleData& data,
          const symbolize::SourceSet& sources, const std::string& vdso_path, bool latest_code,
          bool of_processes, const walk::Recording& recording, TimelineBuilder& timeline,
          uint64_t start_ns)
      : options_(options),
        of_processes_(of_processes),
        latest_code_(latest_code),
        data_(data),
        sources_(sources),
        walker_(data, sources, vdso_path, latest_code),
        names_(data.comms, data.tasks),
        filter_(options.filter, timeline.timeline(), start_ns, names_),
        timeline_(timeline),
        period_ns_(recording.sample_period_ns),
        off_cpu_periods_(OffCpuPeriodsOf(data.switches, data.tasks, LastRecordNs(data))) {
    walk::DescribeSessionFiles(recording, walker_.files());
    native_.SetDebugPath(walker_.files().DebugPath());
  }

  Profile Build() && {
    // One pass over the samples, decoding one at a time (SampleData::ForEachSample): it walks and
    // names each sample's stack and merges it with the identical ones, so nothing per sample is
    // kept, only each distinct stack. Whether stacks get a process root is decided before it.
    const uint64_t total = data_.samples.size();
    std::map<uint32_t, ProcessShare> processes;
    std::map<uint32_t, uint64_t> last_time;  // of each process's last sample
    uint64_t kept = 0;
    const bool roots = options_.process_roots && of_processes_ && WantedProcesses() > 1;
    std::vector<uint32_t> frames;
    const std::function<RootKind(uint32_t)> root_kind = [this](uint32_t location) {
      return RootKindOf(location);
    };
    uint64_t done = 0;
    ThreadOrder threads;
    if (options_.observer != nullptr) {
      options_.observer->Begin(sources_, walker_, latest_code_);
    }
    // Off-CPU samples (record --off-cpu) stand for the time until their thread ran again, in
    // nanoseconds per stack and process, made samples of the sampling period once all are in.
    std::map<std::pair<size_t, uint32_t>, uint64_t> off_cpu_ns;
    uint64_t considered = 0;  // the samples the --off-cpu choice keeps, before the filters
    uint64_t kept_any = 0;    // of those, the samples the filters keep, on a CPU or not
    profile_.off_cpu.choice = options_.off_cpu;
    data_.ForEachSample([&](const session::Sample& sample) {
      if (options_.progress && ++done % 4096 == 0) options_.progress(done, total);
      // Why a thread waited is the timeline's whatever the report keeps of the samples.
      if (sample.off_cpu) timeline_.AddOffCpuReason(sample);
      if (sample.off_cpu ? options_.off_cpu == OffCpuSamples::kExclude
                         : options_.off_cpu == OffCpuSamples::kOnly) {
        ++profile_.off_cpu.left_out;
        return;
      }
      ++considered;
      if (!Wanted(sample)) return;
      if (kept_any++ == 0) profile_.start_time_ns = sample.time_ns;
      profile_.end_time_ns = sample.time_ns;  // samples are in time order
      if (sample.off_cpu) {
        AddOffCpuSample(sample, roots, processes, last_time, off_cpu_ns, threads);
        return;
      }
      ++kept;
      ProcessShare& process = processes[sample.pid];
      process.pid = sample.pid;
      ++process.samples;
      last_time[sample.pid] = sample.time_ns;
      frames.clear();
      const bool guessed = AppendStack(sample, frames);
      if (options_.observer != nullptr) options_.observer->Add(sample, addresses_);
      TrimOutsideThreadEntry(frames, root_kind);
      if (roots) frames.push_back(ProcessRoot(sample));
      auto [it, inserted] = stack_ids_.try_emplace(frames, profile_.stacks.size());
      if (inserted) profile_.stacks.push_back(Stack{frames, 0, sample.time_ns, sample.time_ns});
      Stack& stack = profile_.stacks[it->second];
      ++stack.samples;
      if (guessed) ++stack.guessed_samples;
      stack.last_time_ns = sample.time_ns;  // samples are in time order
      timeline_.AddSample(sample, static_cast<uint32_t>(it->second), period_ns_,
                          options_.timeline_samples);
      KeepTime(sample, static_cast<uint32_t>(it->second), period_ns_, false, threads);
    });
    if (options_.observer != nullptr) options_.observer->End();
    const uint64_t kept_on_cpu = kept;
    kept += WeighOffCpuSamples(off_cpu_ns, processes);
    NameProcesses(processes, last_time);
    if (options_.progress) options_.progress(total, total);
    for (auto& [pid, process] : processes) {
      if (process.samples > 0) profile_.processes.push_back(std::move(process));
    }
    std::stable_sort(
        profile_.processes.begin(), profile_.processes.end(),
        [](const ProcessShare& a, const ProcessShare& b) { return a.samples > b.samples; });
    // Heaviest first; stable, so equal stacks keep the order they were first seen in. The
    // timeline's samples name stacks by where they were before: new_index_ says where they went.
    std::vector<uint32_t> order(profile_.stacks.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
      return profile_.stacks[a].samples > profile_.stacks[b].samples;
    });
    std::vector<Stack> sorted;
    sorted.reserve(order.size());
    new_index_.assign(order.size(), 0);
    for (uint32_t i = 0; i < order.size(); ++i) {
      new_index_[order[i]] = i;
      sorted.push_back(std::move(profile_.stacks[order[i]]));
    }
    profile_.stacks = std::move(sorted);
    // Off-CPU stacks of less than half a sampling period in all weigh nothing: they sorted last.
    // The formats that show each sample at its time keep them, as those samples' stacks.
    if (!options_.sample_times && !options_.timeline_samples) {
      while (!profile_.stacks.empty() && profile_.stacks.back().samples == 0) {
        new_index_[order[profile_.stacks.size() - 1]] = kNoStack;
        profile_.stacks.pop_back();
      }
    }
    if (options_.sample_times) NameThreads(threads, new_index_);
    profile_.total_samples = kept;
    profile_.filtered_out =
        considered - kept_on_cpu - profile_.off_cpu.switches - profile_.off_cpu.without_period;
    if (walker_.unwinding()) {
      profile_.unwind_stops = walker_.unwind_stats().Ends();
      profile_.guessed_walks = walker_.guessed_walks();
      profile_.guesses_marked = options_.mark_guesses;
      profile_.captured_walks = walker_.unwind_stats().walks_on_captured;
    }
    if (std::string note = walk::DescribeArchiveUse(walker_.files()); !note.empty()) {
      profile_.notes.push_back(std::move(note));
    }
    for (const walk::FileIdentity::Replaced& file : walker_.files().refused_copies()) {
      profile_.warnings.push_back(walk::DescribeRefusedCopy(file));
    }
    profile_.interpreter_frames.named = java_named_;
    for (size_t i = 0; i < symbolize::kJavaMissCount; ++i) {
      if (java_unnamed_[i] == 0) continue;
      profile_.interpreter_frames.unnamed.emplace_back(
          symbolize::JavaMissName(static_cast<symbolize::JavaMiss>(i)), java_unnamed_[i]);
    }
    for (const walk::FileIdentity::Replaced& file : walker_.files().replaced()) {
      profile_.warnings.push_back(fmt::format(
          "{}: replaced since the recording (build id {} then, {} now): its frames are left "
          "unnamed",
          file.path, file.recorded, file.now.empty() ? "none" : file.now));
    }
    if (const std::vector<std::string>& unchecked = walker_.files().unchecked();
        !unchecked.empty()) {
      profile_.warnings.push_back(fmt::format(
          "{} native files of processes that ran in a root directory of their own (a container) "
          "were not copied into the session and have no build id in the recording to show that "
          "the file at that path here is the one they ran; their frames are left unnamed "
          "(FILE+0xOFFSET): {}{}",
          unchecked.size(),
          fmt::join(unchecked.begin(), unchecked.begin() + std::min<size_t>(unchecked.size(), 3),
                    ", "),
          unchecked.size() > 3 ? ", ..." : ""));
    }
    for (const std::string& file : native_.unreadable_files()) {
      profile_.warnings.push_back(
          fmt::format("{}: not readable as ELF; its frames are unnamed", file));
    }
    for (const auto& [pid, index] : indexes_) {
      if (index->warning_count() > 0) {
        profile_.warnings.push_back(fmt::format(
            "process {}: {} notes about its JIT reports (see 'jitscope resolve'), first: {}", pid,
            index->warning_count(), index->warnings().front()));
      }
    }
    return std::move(profile_);
  }

  // Where each stack went when they were sorted (Build): new_index()[before] is after.
  const std::vector<uint32_t>& new_index() const { return new_index_; }

 private:
  // The recording's last record of those the switches' periods are cut at: a thread still off
  // the CPU then was off until it.
  static uint64_t LastRecordNs(const session::SampleData& data) {
    uint64_t last = 0;
    if (!data.samples.empty()) last = data.samples.time_ns(data.samples.size() - 1);
    if (!data.switches.empty()) last = std::max(last, data.switches.back().time_ns);
    if (!data.tasks.empty()) last = std::max(last, data.tasks.back().time_ns);
    return last;
  }

  // A sample taken as its thread was switched out (record --off-cpu): its stack under an
  // "[off-cpu: WHY]" leaf (OffCpuWhy), weighing the time until the thread ran again
  // (`off_cpu_ns`, by stack and process). Kernel frames, the scheduler's, are left out.
  void AddOffCpuSample(const session::Sample& sample, bool roots,
                       std::map<uint32_t, ProcessShare>& processes,
                       std::map<uint32_t, uint64_t>& last_time,
                       std::map<std::pair<size_t, uint32_t>, uint64_t>& off_cpu_ns,
                       ThreadOrder& threads) {
    const auto periods = off_cpu_periods_.find({sample.pid, sample.tid});
    const OffCpuPeriod* period = periods == off_cpu_periods_.end()
                                     ? nullptr
                                     : PeriodOfOffCpuSample(periods->second, sample.time_ns);
    if (period == nullptr) {
      ++profile_.off_cpu.without_period;
      return;
    }
    const uint64_t ns = period->end_ns - period->begin_ns;
    ++profile_.off_cpu.switches;
    (period->state == OffCpuState::kPreempted ? profile_.off_cpu.preempted_ns
                                              : profile_.off_cpu.waiting_ns) += ns;
    std::vector<uint32_t> frames = {Intern(Location{
        .function = fmt::format("[off-cpu: {}]", OffCpuWhy(period->state, sample.off_cpu_reason)),
        .module = "",
        .file = "",
        .line = 0,
        .kind = FrameKind::kOffCpu,
        .inlined = false})};
    AppendStack(sample, frames);
    std::erase_if(frames, [this](uint32_t frame) {
      return profile_.locations[frame].kind == FrameKind::kKernel;
    });
    TrimOutsideThreadEntry(frames, [this](uint32_t location) { return RootKindOf(location); });
    if (roots) frames.push_back(ProcessRoot(sample));
    auto [it, inserted] = stack_ids_.try_emplace(frames, profile_.stacks.size());
    if (inserted) profile_.stacks.push_back(Stack{frames, 0, sample.time_ns, sample.time_ns});
    profile_.stacks[it->second].last_time_ns = sample.time_ns;
    off_cpu_ns[{it->second, sample.pid}] += ns;
    processes[sample.pid].pid = sample.pid;
    last_time[sample.pid] = sample.time_ns;
    const auto stack = static_cast<uint32_t>(it->second);
    timeline_.AddOffCpuSample(sample, stack, ns, options_.timeline_samples);
    KeepTime(sample, stack, ns, true, threads);
  }

  // With sample_times, a kept sample at its time (Profile::samples), and its thread's index in
  // first-seen order and last sample's time in `threads`.
  void KeepTime(const session::Sample& sample, uint32_t stack, uint64_t weight_ns, bool off_cpu,
                ThreadOrder& threads) {
    if (!options_.sample_times) return;
    auto [thread, first] =
        threads.try_emplace({sample.pid, sample.tid}, static_cast<uint32_t>(threads.size()), 0);
    thread->second.second = sample.time_ns;
    profile_.samples.push_back({sample.time_ns, thread->second.first, stack, weight_ns, off_cpu});
  }

  // Adds the off-CPU samples' time to their stacks and processes as samples of the sampling
  // period, each stack's rounded to the nearest; returns how many.
  uint64_t WeighOffCpuSamples(const std::map<std::pair<size_t, uint32_t>, uint64_t>& off_cpu_ns,
                              std::map<uint32_t, ProcessShare>& processes) {
    const uint64_t period = period_ns_ == 0 ? 1'000'000 : period_ns_;
    uint64_t samples = 0;
    for (const auto& [key, ns] : off_cpu_ns) {
      const uint64_t weight = (ns + period / 2) / period;
      profile_.stacks[key.first].samples += weight;
      processes[key.second].samples += weight;
      samples += weight;
    }
    profile_.off_cpu.samples = samples;
    return samples;
  }

  // How many processes have samples the report keeps. Without a filter but --pid the samples'
  // processes say (SampleList::pids); with one, whether a sample is kept depends on more (its
  // thread, its time, its names then), so each is looked at.
  size_t WantedProcesses() const {
    std::set<uint32_t> wanted;
    const SampleFilterOptions& filter = options_.filter;
    if (filter.tids.empty() && filter.comms.empty() && filter.tasks.empty() && !filter.time) {
      for (const uint32_t pid : data_.samples.pids()) {
        if (filter.pids.empty() ||
            std::find(filter.pids.begin(), filter.pids.end(), pid) != filter.pids.end()) {
          wanted.insert(pid);
        }
      }
      return wanted.size();
    }
    data_.ForEachSample([&](const session::Sample& sample) {
      if (Wanted(sample)) wanted.insert(sample.pid);
    });
    return wanted.size();
  }

  bool Wanted(const session::Sample& sample) const { return filter_.Wanted(sample); }

  // Each process by its name at its last sample, or if it had none then, at the latest sample
  // at which it had one.
  void NameProcesses(std::map<uint32_t, ProcessShare>& processes,
                     const std::map<uint32_t, uint64_t>& last_time) const {
    std::set<uint32_t> unnamed;
    for (auto& [pid, process] : processes) {
      process.name = names_.NameAt(pid, last_time.at(pid));
      if (process.name.empty()) unnamed.insert(pid);
    }
    if (unnamed.empty()) return;
    // A name is "" only for a process with no COMM before that sample (or an empty one), which
    // is rare: only then are the samples gone through again, the latest name found winning.
    data_.ForEachSample([&](const session::Sample& sample) {
      if (!unnamed.contains(sample.pid) || !Wanted(sample)) return;
      if (std::string name = names_.NameAt(sample.pid, sample.time_ns); !name.empty()) {
        processes[sample.pid].name = std::move(name);
      }
    });
  }

  // Profile::threads by pid and tid, named as of their last samples, and the samples' thread and
  // stack indices made those of the sorted lists (`stack_at`: a stack's index once sorted).
  void NameThreads(const ThreadOrder& threads, const std::vector<uint32_t>& stack_at) {
    std::vector<uint32_t> thread_at(threads.size());
    for (const auto& [ids, seen] : threads) {
      thread_at[seen.first] = static_cast<uint32_t>(profile_.threads.size());
      profile_.threads.push_back(
          {ids.first, ids.second, names_.ThreadNameAt(ids.first, ids.second, seen.second), 0});
    }
    for (TimedSample& sample : profile_.samples) {
      sample.thread = thread_at[sample.thread];
      sample.stack = stack_at[sample.stack];
      ++profile_.threads[sample.thread].samples;
    }
  }

  uint32_t ProcessRoot(const session::Sample& sample) {
    const std::string name = names_.NameAt(sample.pid, sample.time_ns);
    return Intern(
        Location{.function = fmt::format("{} (pid {})", name.empty() ? "?" : name, sample.pid),
                 .module = "",
                 .file = "",
                 .line = 0,
                 .kind = FrameKind::kProcess,
                 .inlined = false});
  }

  // Appends `sample`'s stack, leaf first; returns whether the frame-pointer chain carried its
  // walk on (some of its frames are guesses).
  bool AppendStack(const session::Sample& sample, std::vector<uint32_t>& frames) {
    walker_.Walk(sample, addresses_);
    bool in_kernel = false;
    bool guessing = false;
    for (const walk::StackAddress& address : addresses_) {
      if (address.kernel) {
        if (!in_kernel) {
          frames.push_back(
              MarkerLocation(kernel_location_, "[kernel]", "[kernel]", FrameKind::kKernel));
        }
        in_kernel = true;
        continue;
      }
      in_kernel = false;
      if (address.guessed && !guessing) {
        if (options_.mark_guesses) {
          frames.push_back(
              MarkerLocation(guessed_location_, "[frame-pointer chain]", "", FrameKind::kGuessed));
        }
        guessing = true;
      }
      // A frame whose pc is not a return address is the one that ran (or a signal interrupted).
      if (address.interpreter && !address.guessed &&
          AppendJavaFrame(sample, *address.interpreter, !address.returns, frames)) {
        continue;
      }
      AppendUserFrames(sample.pid, address.Lookup(), sample.time_ns, frames);
    }
    return guessing;
  }

  RootKind RootKindOf(uint32_t location) {
    if (location >= root_kind_.size()) root_kind_.resize(profile_.locations.size());
    std::optional<RootKind>& known = root_kind_[location];
    if (!known) {
      const Location& l = profile_.locations[location];
      known = IsThreadEntry(l)     ? RootKind::kThreadEntry
              : IsUnnamedNative(l) ? RootKind::kUnnamed
                                   : RootKind::kOther;
    }
    return *known;
  }

  // An interpreter frame named by the JVM table: its Java method, file and line. Returns false
  // (the frame is named as the code it ran, `Interpreter`) when the table cannot say, counted.
  bool AppendJavaFrame(const session::Sample& sample, const unwind::InterpreterFrame& slots,
                       bool running, std::vector<uint32_t>& frames) {
    const symbolize::JavaMethods& methods = JavaMethodsFor(sample.pid);
    symbolize::JavaMiss miss = symbolize::JavaMiss::kUnknownMethod;
    const std::optional<symbolize::JavaFrameName> name =
        methods.Name(slots.method, slots.bcp, walker_.JitTime(sample.time_ns), miss);
    if (running) ++profile_.interpreter_frames.running;
    if (!name) {
      ++java_unnamed_[static_cast<size_t>(miss)];
      return false;
    }
    ++java_named_;
    if (running) ++profile_.interpreter_frames.running_named;
    frames.push_back(Intern(Location{.function = std::string(name->name),
                                     .module = "[jit]",
                                     .file = std::string(name->file),
                                     .line = name->line,
                                     .kind = FrameKind::kJit,
                                     .inlined = false}));
    return true;
  }

  const symbolize::JavaMethods& JavaMethodsFor(uint32_t pid) {
    auto [it, inserted] = java_methods_.try_emplace(pid);
    if (inserted) it->second = sources_.JavaMethodsOf(pid);
    return it->second;
  }

  // The one Location of a frame that marks a run of others ([kernel], [frame-pointer chain]),
  // interned into `id` the first time.
  uint32_t MarkerLocation(std::optional<uint32_t>& id, const char* function, const char* module,
                          FrameKind kind) {
    if (!id) id = Intern(Location{function, module, "", 0, kind, false});
    return *id;
  }

  // Appends the frames of the code at user `address`: named the first time, and copied from
  // then on, for every sample of a hot loop is at one of a few addresses and building and
  // interning their Locations again was most of a report's time (its strings hashed and
  // compared). What decides the names is the key: for JIT code, the region of code the address
  // is in (its start and load time: code loaded there later is another key) and the address;
  // for other code, the mapping and the address.
  void AppendUserFrames(uint32_t pid, uint64_t address, uint64_t time,
                        std::vector<uint32_t>& frames) {
    const session::Mapping* mapping = nullptr;
    AddressKey key;
    const bool jit = IndexFor(pid).Resolve(address, walker_.JitTime(time), resolution_);
    if (jit) {
      key = {pid, resolution_.region.start, resolution_.region.loaded, address};
    } else {
      mapping = walker_.maps().Find(pid, address, time);
      // A sample in the kernel's exec, before exec returned to the new image (it maps it, then
      // sets the registers last): the user registers are still the replaced image's, in no
      // recorded mapping. Such a frame says nothing of this process; "[unknown]" would say a
      // step went wrong. Exec has returned once a frame of the process is in its new mappings.
      const uint64_t image_mapped = walker_.maps().ImageMappedTime(pid);
      if (mapping == nullptr && (time < image_mapped || !runs_its_image_.contains(pid))) return;
      if (mapping != nullptr && time >= image_mapped) runs_its_image_.insert(pid);
      key = {kNotJit, reinterpret_cast<uintptr_t>(mapping), 0, address};
    }
    auto [it, inserted] = named_.try_emplace(key);
    if (!inserted) {
      const auto first = named_frames_.begin() + it->second.first;
      frames.insert(frames.end(), first, first + it->second.count);
      return;
    }
    const size_t before = frames.size();
    if (jit) {
      AppendJitFrames(pid, frames);
    } else {
      AppendMappedFrames(mapping, address, frames);
    }
    it->second = {static_cast<uint32_t>(named_frames_.size()),
                  static_cast<uint32_t>(frames.size() - before)};
    named_frames_.insert(named_frames_.end(), frames.begin() + static_cast<ptrdiff_t>(before),
                         frames.end());
  }

  // The frames of the JIT code Resolve just found in process `pid` (resolution_).
  void AppendJitFrames(uint32_t pid, std::vector<uint32_t>& frames) {
    const uint32_t version = options_.jit_versions ? VersionOf(pid) : 0;
    for (const symbolize::Frame& f : resolution_.frames) {
      if (f.inlined && !options_.inline_frames) continue;
      frames.push_back(Intern(Location{
          .function = f.name.empty() ? fmt::format("[jit 0x{:x}]", resolution_.region.start)
                                     : std::string(f.name),
          // A jitdump or perf map names no module: say at least that this is JIT code.
          .module = f.module.empty() ? std::string("[jit]") : std::string(f.module),
          .file = std::string(f.file),
          .line = f.line,
          .kind = FrameKind::kJit,
          .inlined = f.inlined,
          .version = version}));
    }
  }

  // Location::version of the region Resolve just found in process `pid`.
  uint32_t VersionOf(uint32_t pid) {
    const symbolize::MatchedRegion& region = resolution_.region;
    auto [it, inserted] = version_ids_.try_emplace(std::tuple(pid, region.start, region.loaded),
                                                   profile_.jit_versions.size() + 1);
    if (inserted) {
      std::optional<uint64_t> method_id;
      if (!resolution_.frames.empty()) method_id = resolution_.frames.back().method_id;
      profile_.jit_versions.push_back(
          {pid, region.start, region.size, region.loaded, region.invalidated, method_id});
    }
    return it->second;
  }

  // The frames of code that is not JIT code, at `address` in `mapping` (null: in no mapping).
  void AppendMappedFrames(const session::Mapping* mapping, uint64_t address,
                          std::vector<uint32_t>& frames) {
    if (mapping == nullptr) {
      frames.push_back(Intern(Location{"[unknown]", "", "", 0, FrameKind::kUnknown, false}));
      return;
    }
    if (walk::IsAnonymousMemory(mapping->filename)) {
      // Not a file: there are no symbols to read, and nothing to warn about.
      frames.push_back(
          Intern(Location{"[anonymous]", mapping->filename, "", 0, FrameKind::kAnonymous, false}));
      return;
    }
    const std::string* read =
        mapping->filename.starts_with("/") ? walker_.files().FileOf(*mapping) : nullptr;
    if (read != nullptr) {
      const auto& native =
          native_.Symbolize(*read, address - mapping->start + mapping->file_offset);
      bool any = false;
      for (const Location& location : native) {
        if (location.inlined && !options_.inline_frames) continue;
        if (read == &mapping->filename) {
          frames.push_back(Intern(location));
        } else {
          // Read from a copy in the session: named by the file the process mapped.
          Location named = location;
          named.module = mapping->filename;
          frames.push_back(Intern(std::move(named)));
        }
        any = true;
      }
      if (any) return;
    }
    // "[vdso]" names itself. Code of a file that has no symbol there (a stripped program or
    // library) is named by its file offset, what `addr2line -e FILE` takes, so it stays apart
    // from other code of the file and can be looked up; "[unknown]" is kept for addresses in no
    // mapping at all, where it always means a wrong or lost step.
    if (mapping->filename == "[vdso]") {
      frames.push_back(
          Intern(Location{"[vdso]", mapping->filename, "", 0, FrameKind::kNative, false}));
      return;
    }
    const uint64_t offset = address - mapping->start + mapping->file_offset;
    const std::string_view file = mapping->filename;
    const std::string_view base = file.substr(file.rfind('/') + 1);
    frames.push_back(Intern(Location{fmt::format("{}+{:#x}", base, offset), mapping->filename, "",
                                     0, FrameKind::kNative, false}));
  }

  const symbolize::SymbolIndex& IndexFor(uint32_t pid) {
    auto [it, inserted] = indexes_.try_emplace(pid);
    if (inserted) it->second = std::make_unique<symbolize::SymbolIndex>(sources_.BuildIndex(pid));
    return *it->second;
  }

  uint32_t Intern(Location location) {
    auto [it, inserted] = location_ids_.try_emplace(location, profile_.locations.size());
    if (inserted) profile_.locations.push_back(std::move(location));
    return it->second;
  }

  const BuildOptions& options_;
  const bool of_processes_;
  const bool latest_code_;
  const session::SampleData& data_;
  const symbolize::SourceSet& sources_;
  walk::SampleWalker walker_;
  ProcessNames names_;
  SampleFilter filter_;
  TimelineBuilder& timeline_;
  const uint64_t period_ns_;
  const std::map<std::pair<uint32_t, uint32_t>, std::vector<OffCpuPeriod>> off_cpu_periods_;
  std::vector<uint32_t> new_index_;
  std::vector<walk::StackAddress> addresses_;
  NativeSymbolizer native_;
  std::map<uint32_t, std::unique_ptr<symbolize::SymbolIndex>> indexes_;
  std::map<uint32_t, symbolize::JavaMethods> java_methods_;
  uint64_t java_named_ = 0;
  std::array<uint64_t, symbolize::kJavaMissCount> java_unnamed_{};
  symbolize::Resolution resolution_;
  std::unordered_map<Location, uint32_t, LocationHash> location_ids_;
  std::unordered_map<std::vector<uint32_t>, size_t, StackHash> stack_ids_;
  std::map<std::tuple<uint32_t, uint64_t, uint64_t>, uint32_t> version_ids_;  // (pid, start, load)
  std::optional<uint32_t> kernel_location_;
  std::optional<uint32_t> guessed_location_;
  std::vector<std::optional<RootKind>> root_kind_;  // by location, once asked
  // The frames each user address was named with (AppendUserFrames): a run of named_frames_.
  struct Named {
    uint32_t first = 0;
    uint32_t count = 0;
  };
  std::unordered_map<AddressKey, Named, AddressKeyHash> named_;
  std::unordered_set<uint32_t> runs_its_image_;  // processes a frame was found in the image of
  std::vector<uint32_t> named_frames_;
  Profile profile_;
};

// What to do when walks ran out of stack copy: a warning saying how many did and how to record
// more of each stack, or "" when few did (under 2%) or the copies were as large as they can be.
std::string StackCopyAdvice(const Profile& profile, uint64_t stack_size, bool perf_data) {
  uint64_t walks = 0, short_copies = 0;
  for (const auto& [reason, count] : profile.unwind_stops) {
    walks += count;
    if (reason == unwind::StopReasonName(unwind::StopReason::kStackCopyTooShort)) {
      short_copies = count;
    }
  }
  if (short_copies == 0 || short_copies * 50 < walks || stack_size >= session::kMaxStackCopySize) {
    return "";
  }
  // perf keeps every copy whole; jitscope record only those it cannot unwind while it records
  // (walk/recording_unwinder.h), and of those the stack in use.
  const std::string cost =
      perf_data
          ? fmt::format(
                "every sample then takes up to {} times the disk while recording",
                stack_size == 0 ? 1 : (session::kMaxStackCopySize + stack_size - 1) / stack_size)
          : "the samples it cannot unwind while it records keep the stack in use, up to "
            "that size, on disk until it ends";
  return fmt::format(
      "{} of {} walks ({:.1f}%) ran out of the {}-byte stack copies before the thread's entry: "
      "'{} --call-graph dwarf,{}' copies more of each stack ({})",
      short_copies, walks, 100.0 * static_cast<double>(short_copies) / static_cast<double>(walks),
      stack_size, perf_data ? "perf record" : "jitscope record", session::kMaxStackCopySize, cost);
}

base::StatusOr<Profile> Build(walk::Recording recording, const BuildOptions& options) {
  const session::SampleData& data = recording.data;
  ASSIGN_OR_RETURN(symbolize::SourceSet sources,
                   walk::OpenRecordingJitSources(recording, options.jit_sources));

  TimelineBuilder timeline = StartTimeline(recording, sources, options.jit_events);
  const uint64_t start_ns = RecordingStart(recording, timeline);
  timeline.SetStart(start_ns);
  Builder builder(options, data, sources, recording.vdso_path, recording.latest_code,
                  recording.of_processes, recording, timeline, start_ns);
  Profile built = std::move(builder).Build();
  built.timeline = std::move(timeline).Finish(data.comms, data.tasks, builder.new_index());
  uint64_t anonymous = 0;
  for (const Stack& stack : built.stacks) {
    if (!stack.frames.empty() &&
        built.locations[stack.frames.front()].kind == FrameKind::kAnonymous) {
      anonymous += stack.samples;
    }
  }
  if (std::string unnamed =
          DescribeUnnamedJitCode(anonymous, built.total_samples, recording.program, data.mappings,
                                 recording.missing_jit_files);
      !unnamed.empty()) {
    built.warnings.push_back(std::move(unnamed));
  }
  if (std::string advice =
          StackCopyAdvice(built, data.format.stack_size, recording.session_directory.empty());
      !advice.empty()) {
    built.warnings.push_back(std::move(advice));
  }
  built.command = std::move(recording.command);
  if (recording.end == session::RecordingEnd::kCutShort) {
    built.no_samples_reason =
        "jitscope record was killed before its first samples reached the file";
  } else if (recording.end == session::RecordingEnd::kStillRecording) {
    built.no_samples_reason =
        "jitscope record is still recording, and none has reached the file yet";
  }
  built.sample_period_ns = recording.sample_period_ns;
  recording.warnings.insert(recording.warnings.end(), built.warnings.begin(), built.warnings.end());
  built.warnings = std::move(recording.warnings);
  return built;
}

}  // namespace

base::StatusOr<Profile> BuildProfile(const std::string& input, const BuildOptions& options) {
  ASSIGN_OR_RETURN(walk::Recording recording, walk::ReadRecording(input));
  return Build(std::move(recording), options);
}

}  // namespace jitscope::report
