// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/annotate_command.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "jitscope/cli/report_command.h"
#include "jitscope/report/annotate.h"
#include "jitscope/report/process_names.h"
#include "jitscope/report/sample_filter.h"
#include "jitscope/report/sampled_code.h"
#include "jitscope/report/timeline_builder.h"
#include "jitscope/session/perf_data_reader.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/session/session_info.h"
#include "jitscope/walk/recording.h"

namespace jitscope::cli {
namespace {

std::string Describe(const report::SampledVersion& v) {
  return fmt::format("{}{} at 0x{:x} ({} bytes, pid {}, {} samples)", v.name,
                     v.method_id ? fmt::format(" #{}", *v.method_id) : "", v.start, v.size, v.pid,
                     v.samples);
}

}  // namespace

int RunAnnotate(const AnnotateOptions& options, std::FILE* out, std::FILE* err) {
  std::string input = "jitscope.data";
  std::vector<std::string> selectors = options.arguments;
  std::error_code ec;
  if (!selectors.empty() && (std::filesystem::is_directory(selectors.front(), ec) ||
                             session::LooksLikePerfData(selectors.front()))) {
    input = selectors.front();
    selectors.erase(selectors.begin());
  }
  auto fail = [&](const std::string& message) {
    fmt::print(err, "jitscope annotate: error: {}\n", message);
    return 1;
  };
  base::StatusOr<walk::Recording> recording = walk::ReadRecording(input);
  if (!recording.ok()) return fail(recording.status().message());
  base::StatusOr<symbolize::SourceSet> sources = walk::OpenRecordingJitSources(*recording, {});
  if (!sources.ok()) return fail(sources.status().message());
  const session::SampleData& data = recording->data;
  report::AnnotateOutputOptions output;
  output.command = recording->command;

  // Each sample's stack, walked as report walks it, counts for the version of its leaf and for
  // the call sites of its return addresses.
  walk::SampleWalker walker(data, *sources, recording->vdso_path, recording->latest_code);
  walk::DescribeSessionFiles(*recording, walker.files());
  report::SampledCode code(*sources, walker, recording->latest_code);
  // The samples the filters keep (report/sample_filter.h), as report keeps them. The filters read
  // the ITT tasks and the threads' times, not the JIT engine's events.
  const report::TimelineBuilder timeline =
      report::StartTimeline(*recording, *sources, /*jit_events=*/false);
  const report::ProcessNames names(data.comms, data.tasks);
  const report::SampleFilter filter(options.filter, timeline.timeline(),
                                    report::RecordingStart(*recording, timeline), names);
  uint64_t kept = 0;
  uint64_t on_cpu = 0;
  std::vector<walk::StackAddress> stack;
  data.ForEachSample([&](const session::Sample& sample) {
    // A sample taken as its thread left the CPU (record --off-cpu) ran no instruction.
    if (sample.off_cpu) return;
    ++on_cpu;
    if (!filter.Wanted(sample)) return;
    ++kept;
    walker.Walk(sample, stack);
    code.Add(sample.pid, sample.time_ns, stack);
  });
  const std::vector<report::SampledVersion> versions = code.TakeVersions();
  if (std::string note = walk::DescribeArchiveUse(walker.files()); !note.empty()) {
    output.notes.push_back(std::move(note));
  }

  output.by_line = options.sort == "line";
  output.color = options.format == "text" && options.output.empty() && ::isatty(::fileno(out)) != 0;
  output.total_samples = kept;
  if (kept < on_cpu) {
    output.notes.push_back(
        fmt::format("{} of the {} samples left out (--pid, --tid, --comm, --time, --task)",
                    on_cpu - kept, on_cpu));
  }
  if (!data.samples.empty()) output.start_time_ns = data.samples.time_ns(0);
  for (const std::string& warning : recording->warnings) {
    output.notes.push_back("warning: " + warning);
  }

  std::vector<const report::SampledVersion*> chosen;
  if (selectors.empty()) {
    // The hottest JIT code; native functions when named.
    uint64_t native_samples = 0;
    for (const report::SampledVersion& v : versions) {
      if (v.native) {
        native_samples += v.samples;
      } else if (v.samples > 0 && (options.top == 0 || chosen.size() < options.top)) {
        chosen.push_back(&v);
      }
    }
    if (chosen.empty()) output.notes.push_back("no sample landed in JIT code");
    if (native_samples > 0) {
      output.notes.push_back(fmt::format(
          "{} samples landed in native functions; name one to annotate it", native_samples));
    }
  }
  std::set<const report::SampledVersion*> seen;
  for (const std::string& selector : selectors) {
    const std::vector<const report::SampledVersion*> matches =
        report::SelectVersions(versions, selector);
    if (matches.empty()) {
      return fail(fmt::format("no sampled code (JIT or native) matches {} (a name, #ID or 0xADDR)",
                              selector));
    }
    if (matches.size() > 1) {
      output.notes.push_back(fmt::format(
          "{} matches {} versions, each annotated below; choose one by #ID or 0xADDR:", selector,
          matches.size()));
      for (const report::SampledVersion* v : matches) output.notes.push_back("  " + Describe(*v));
    }
    for (const report::SampledVersion* v : matches) {
      if (seen.insert(v).second) chosen.push_back(v);
    }
  }

  const disasm::Syntax syntax =
      options.syntax == "intel" ? disasm::Syntax::kIntel : disasm::Syntax::kAtt;
  std::vector<report::Annotation> annotations;
  for (const report::SampledVersion* v : chosen) {
    std::optional<report::Annotation> annotation = code.Annotate(*v, syntax);
    if (!annotation) return fail("the disassembler could not be set up");
    annotations.push_back(std::move(*annotation));
  }
  const std::string bytes = options.format == "json"
                                ? report::RenderAnnotationJson(annotations, output)
                                : report::RenderAnnotationText(annotations, output);
  if (options.output.empty()) {
    std::fwrite(bytes.data(), 1, bytes.size(), out);
    return std::fflush(out) == 0 ? 0 : 1;
  }
  if (base::Status status = WriteReportFile(options.output, bytes); !status.ok()) {
    return fail(status.message());
  }
  return 0;
}

}  // namespace jitscope::cli
