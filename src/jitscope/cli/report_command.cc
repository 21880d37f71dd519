// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/report_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <map>

#include <fmt/format.h>

#include "jitscope/base/files.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/cli/pid_list.h"
#include "jitscope/report/folded_writer.h"
#include "jitscope/report/pprof_writer.h"
#include "jitscope/report/profile_builder.h"
#include "jitscope/report/speedscope_writer.h"
#include "jitscope/report/svg_writer.h"

namespace jitscope::cli {
namespace {

struct Format {
  bool binary;
  base::StatusOr<std::string> (*render)(const report::Profile&, const report::TextOptions&);
};

const std::map<std::string, Format>& Formats() {
  static const std::map<std::string, Format> formats = {
      {"text",
       {false,
        [](const report::Profile& p, const report::TextOptions& o) -> base::StatusOr<std::string> {
          return report::RenderText(p, o);
        }}},
      {"folded",
       {false,
        [](const report::Profile& p, const report::TextOptions&) -> base::StatusOr<std::string> {
          return report::RenderFolded(p);
        }}},
      {"svg",
       {false,
        [](const report::Profile& p, const report::TextOptions&) -> base::StatusOr<std::string> {
          return report::RenderSvg(p);
        }}},
      {"speedscope",
       {false,
        [](const report::Profile& p, const report::TextOptions&) -> base::StatusOr<std::string> {
          return report::RenderSpeedscope(p);
        }}},
      {"pprof",
       {true,
        [](const report::Profile& p, const report::TextOptions&) -> base::StatusOr<std::string> {
          return report::RenderPprof(p);
        }}},
  };
  return formats;
}

// Real command lines, run as printed by a test (tests/cli/help_examples_test.cc) after the
// examples of `jitscope record --help`, which write jitscope.data.
constexpr char kReportExamples[] = R"(Examples:
  jitscope report
  jitscope report jitscope.data --sort line --top 5
  jitscope report --format svg -o flame.svg
  jitscope report --format pprof -o profile.pb.gz
  jitscope report --format folded --no-inline -o stacks.folded
  jitscope report --format speedscope -o profile.speedscope.json
)";

}  // namespace

base::Status WriteReportFile(const std::string& path, const std::string& bytes) {
  base::ScopedFd fd(
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd) return base::Status::Errno(errno, "cannot write %s", path.c_str());
  return base::WriteAll(fd.get(), bytes.data(), bytes.size());
}

void AddReportCommand(CLI::App& app, ReportOptions& options) {
  CLI::App* command = app.add_subcommand(
      "report",
      "Symbolize a session recorded by 'jitscope record', or a perf.data file 'perf record' wrote, "
      "and report it: JIT frames by the time-versioned JIT symbols (with inline frames), native "
      "frames by ELF symbols and DWARF lines, kernel frames as [kernel].");
  command
      ->add_option("INPUT", options.directory,
                   "Session directory, or a perf.data file (perf record's file mode)")
      ->default_val("jitscope.data");
  command->add_option("-i,--input", options.input,
                      "The same as INPUT, in perf's spelling: 'jitscope report -i perf.data'");
  command
      ->add_option("--jit", options.build.jit_sources,
                   "More JIT files, or directories holding them, to name JIT code by: "
                   "collector traces (jit-PID.jsc), jitdumps, perf maps (repeatable; a "
                   "session's own and the jitdumps and /tmp/perf-PID.map its processes used "
                   "are found without it)")
      ->allow_extra_args(false);  // one PATH per --jit: a later word is INPUT
  std::vector<std::string> names;
  for (const auto& [name, format] : Formats()) names.push_back(name);
  command->add_option("--format", options.format, "Output format")
      ->default_val("text")
      ->check(CLI::IsMember(names));
  command->add_option("-o,--output", options.output, "Write to FILE instead of standard output");
  command
      ->add_option("--sort", options.sort,
                   "text: what an entry is — a method, a source line of a method, or a module")
      ->check(CLI::IsMember({"method", "line", "module"}))
      ->default_val("method");
  command->add_option("--top", options.text.top, "text: how many entries (0 = all)")
      ->default_val(25);
  AddPidListOption(command, "--pid", "--pid", options.build.pids,
                   "Only the samples of these processes");
  command
      ->add_option("--comm", options.build.comms,
                   "Only the samples of processes with these command names (COMM, as ps shows "
                   "them)")
      ->delimiter(',')
      ->type_name("COMM[,COMM...]");
  command->add_flag("--inline,!--no-inline", options.inline_frames,
                    "Show inlined functions as frames of their own (default), or fold them into "
                    "the function they were inlined into");
  command->footer(kReportExamples);
}

int RunReport(const ReportOptions& options, std::FILE* out, std::FILE* err) {
  const Format& format = Formats().at(options.format);
  if (format.binary && options.output.empty() && ::isatty(::fileno(out))) {
    fmt::print(err,
               "jitscope report: error: --format {} is binary; write it to a file with -o FILE\n",
               options.format);
    return 2;
  }
  report::TextOptions text = options.text;
  text.sort = options.sort == "line"     ? report::SortKey::kLine
              : options.sort == "module" ? report::SortKey::kModule
                                         : report::SortKey::kMethod;
  report::BuildOptions build = options.build;
  build.inline_frames = options.inline_frames;
  const bool show_progress = ::isatty(::fileno(err)) != 0;
  if (show_progress) {
    build.progress = [err](uint64_t done, uint64_t total) {
      fmt::print(err, "\rjitscope report: symbolizing {} of {} samples", done, total);
      if (done == total) fmt::print(err, "\r\033[K");
      std::fflush(err);
    };
  }
  base::StatusOr<report::Profile> profile =
      report::BuildProfile(options.input.empty() ? options.directory : options.input, build);
  if (!profile.ok()) {
    fmt::print(err, "jitscope report: error: {}\n", profile.status().message());
    return 1;
  }
  base::StatusOr<std::string> bytes = format.render(*profile, text);
  if (!bytes.ok()) {
    fmt::print(err, "jitscope report: error: {}\n", bytes.status().message());
    return 1;
  }
  if (options.output.empty()) {
    std::fwrite(bytes->data(), 1, bytes->size(), out);
    return std::fflush(out) == 0 ? 0 : 1;
  }
  if (base::Status status = WriteReportFile(options.output, *bytes); !status.ok()) {
    fmt::print(err, "jitscope report: error: {}\n", status.message());
    return 1;
  }
  return 0;
}

}  // namespace jitscope::cli
