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
      {"chrome-trace",
       {false,
        [](const report::Profile& p, const report::TextOptions&) -> base::StatusOr<std::string> {
          return report::RenderChromeTrace(p);
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
  // The formats that draw time want every sample at its time.
  build.timeline_samples = options.format == "chrome-trace";
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
