// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/cli/report_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>

#include <fmt/format.h>

#include "jitscope/base/files.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/report/chrome_trace_writer.h"
#include "jitscope/report/diff_writer.h"
#include "jitscope/report/folded_writer.h"
#include "jitscope/report/html_writer.h"
#include "jitscope/report/pprof_writer.h"
#include "jitscope/report/profile_builder.h"
#include "jitscope/report/profile_diff.h"
#include "jitscope/report/sampled_code.h"
#include "jitscope/report/speedscope_writer.h"
#include "jitscope/report/svg_writer.h"

namespace jitscope::cli {
namespace {

// What a format is written from: the profile, and what some formats need besides.
struct RenderInput {
  const report::Profile& profile;
  const report::TextOptions& text;
  report::HtmlCode& code;  // html: the annotated code versions
};

struct Format {
  bool binary;
  // The profile keeps each sample's time, thread and stack, and JIT versions apart, and the
  // code of the hottest versions is annotated (BuildOptions::sample_times, jit_versions).
  bool timed;
  base::StatusOr<std::string> (*render)(const RenderInput&);
};

const std::map<std::string, Format>& Formats() {
  static const std::map<std::string, Format> formats = {
      {"text",
       {false, false,
        [](const RenderInput& in) -> base::StatusOr<std::string> {
          return report::RenderText(in.profile, in.text);
        }}},
      {"chrome-trace",
       {false, false,
        [](const RenderInput& in) -> base::StatusOr<std::string> {
          return report::RenderChromeTrace(in.profile);
        }}},
      {"folded",
       {false, false,
        [](const RenderInput& in) -> base::StatusOr<std::string> {
          return report::RenderFolded(in.profile);
        }}},
      {"svg",
       {false, false,
        [](const RenderInput& in) -> base::StatusOr<std::string> {
          return report::RenderSvg(in.profile);
        }}},
      {"speedscope",
       {false, true,
        [](const RenderInput& in) -> base::StatusOr<std::string> {
          return report::RenderSpeedscope(in.profile);
        }}},
      {"pprof",
       {true, false,
        [](const RenderInput& in) -> base::StatusOr<std::string> {
          return report::RenderPprof(in.profile);
        }}},
      {"html",
       {false, true,
        [](const RenderInput& in) -> base::StatusOr<std::string> {
          return report::RenderHtml(in.profile, in.code);
        }}},
  };
  return formats;
}

// The HTML report annotates the versions with this share of the samples or more, until this
// many instructions are: a few megabytes of the file at most.
constexpr double kAnnotatedShare = 0.001;
constexpr size_t kAnnotatedInstructions = 150'000;

}  // namespace

std::vector<std::string> ReportFormatNames() {
  std::vector<std::string> names;
  for (const auto& [name, format] : Formats()) names.push_back(name);
  return names;
}

base::Status WriteReportFile(const std::string& path, const std::string& bytes) {
  // A FIFO would block the open until a reader comes, and the report with it: refused, like a
  // link. O_NONBLOCK makes opening one fail or return at once; the check after it refuses one
  // that had a reader. Devices (/dev/null) are written.
  base::ScopedFd fd(::open(
      path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644));
  if (!fd && errno == ENXIO)
    return base::Status::Error("%s is a FIFO; not writing to it", path.c_str());
  if (!fd) return base::Status::Errno(errno, "cannot write %s", path.c_str());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return base::Status::Errno(errno, "cannot write %s", path.c_str());
  if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
    return base::Status::Error(S_ISFIFO(st.st_mode) ? "%s is a FIFO; not writing to it"
                                                    : "%s is not a regular file; not writing to it",
                               path.c_str());
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return base::Status::Errno(errno, "cannot write %s", path.c_str());
  }
  return base::WriteAll(fd.get(), bytes.data(), bytes.size());
}

namespace {

// Writes `bytes` where the options say: standard output, or -o FILE.
int Emit(const ReportOptions& options, const std::string& bytes, std::FILE* out, std::FILE* err) {
  if (options.output.empty()) {
    std::fwrite(bytes.data(), 1, bytes.size(), out);
    return std::fflush(out) == 0 ? 0 : 1;
  }
  if (base::Status status = WriteReportFile(options.output, bytes); !status.ok()) {
    fmt::print(err, "jitscope report: error: {}\n", status.message());
    return 1;
  }
  return 0;
}

// --diff-base OLD: the recording INPUT against OLD, each built as `build` says.
int RunDiff(const ReportOptions& options, const report::BuildOptions& build,
            const report::TextOptions& text, std::FILE* out, std::FILE* err) {
  if (options.format != "text" && options.format != "folded" && options.format != "html") {
    fmt::print(err,
               "jitscope report: error: --diff-base writes --format text, folded or html, not "
               "{}\n",
               options.format);
    return 2;
  }
  base::StatusOr<report::Profile> old_run = report::BuildProfile(options.diff_base, build);
  if (!old_run.ok()) {
    fmt::print(err, "jitscope report: error: --diff-base: {}\n", old_run.status().message());
    return 1;
  }
  base::StatusOr<report::Profile> new_run =
      report::BuildProfile(options.input.empty() ? options.directory : options.input, build);
  if (!new_run.ok()) {
    fmt::print(err, "jitscope report: error: {}\n", new_run.status().message());
    return 1;
  }
  const report::ProfileDiff diff = report::DiffProfiles(*old_run, *new_run);
  const std::string bytes = options.format == "text"     ? report::RenderDiffText(diff, text)
                            : options.format == "folded" ? report::RenderDiffFolded(diff)
                                                         : report::RenderHtmlDiff(diff);
  return Emit(options, bytes, out, err);
}

}  // namespace

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
  // The formats that draw time want every sample at its time, and the JIT engine's events.
  build.timeline_samples = options.format == "chrome-trace";
  build.jit_events = options.format == "chrome-trace" || options.format == "html";
  report::CodeAnnotator annotator(kAnnotatedShare, kAnnotatedInstructions);
  if (format.timed && options.diff_base.empty()) {
    build.sample_times = true;
    build.jit_versions = options.format == "html";
    if (options.format == "html") build.observer = &annotator;
  }
  const bool show_progress = ::isatty(::fileno(err)) != 0;
  if (show_progress) {
    build.progress = [err](uint64_t done, uint64_t total) {
      fmt::print(err, "\rjitscope report: symbolizing {} of {} samples", done, total);
      if (done == total) fmt::print(err, "\r\033[K");
      std::fflush(err);
    };
  }
  if (!options.diff_base.empty()) return RunDiff(options, build, text, out, err);
  base::StatusOr<report::Profile> profile =
      report::BuildProfile(options.input.empty() ? options.directory : options.input, build);
  if (!profile.ok()) {
    fmt::print(err, "jitscope report: error: {}\n", profile.status().message());
    return 1;
  }
  report::HtmlCode code;
  code.annotations = annotator.TakeAnnotations();
  code.note = annotator.note();
  code.output.total_samples = profile->total_samples;
  code.output.start_time_ns = profile->start_time_ns;
  code.output.command = profile->command;
  base::StatusOr<std::string> bytes = format.render({*profile, text, code});
  if (!bytes.ok()) {
    fmt::print(err, "jitscope report: error: {}\n", bytes.status().message());
    return 1;
  }
  return Emit(options, *bytes, out, err);
}

}  // namespace jitscope::cli
