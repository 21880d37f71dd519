// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The `jitscope` command. Exceptions from argument parsing stop here: every failure becomes one
// clear line on stderr and a non-zero exit code.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "jitscope/cli/annotate_command.h"
#include "jitscope/cli/clean_command.h"
#include "jitscope/cli/dump_command.h"
#include "jitscope/cli/record_command.h"
#include "jitscope/cli/report_command.h"
#include "jitscope/cli/resolve_command.h"

int main(int argc, char** argv) {
  CLI::App app{"jitscope: see and profile code generated at run time (JIT code)", "jitscope"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "jitscope 0.1.0");

  jitscope::cli::DumpOptions dump;
  jitscope::cli::AddDumpCommand(app, dump);
  jitscope::cli::CleanOptions clean;
  jitscope::cli::AddCleanCommand(app, clean);
  jitscope::cli::ResolveOptions resolve;
  jitscope::cli::AddResolveCommand(app, resolve);
  // `resolve` takes its addresses after "--", which CLI11 cannot tell from SOURCEs.
  std::vector<std::string> args = jitscope::cli::SplitResolveQueries(argc, argv, resolve.queries);
  std::reverse(args.begin() + 1, args.end());  // CLI11 parses a reversed vector
  args.erase(args.begin());
  jitscope::record::SessionOptions record;
  jitscope::cli::AddRecordCommand(app, record);
  jitscope::cli::ReportOptions report;
  jitscope::cli::AddReportCommand(app, report);
  jitscope::cli::AnnotateOptions annotate;
  jitscope::cli::AddAnnotateCommand(app, annotate);

  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "jitscope: error: %s\nRun 'jitscope --help' for usage.\n", e.what());
    return 2;
  }
  if (app.got_subcommand("dump")) return jitscope::cli::RunDump(dump, stdout, stderr);
  if (app.got_subcommand("clean")) {
    return jitscope::cli::RunClean(clean, jitscope::cli::SystemProcessTable(), stdout, stderr);
  }
  if (app.got_subcommand("resolve")) return jitscope::cli::RunResolve(resolve, stdout, stderr);
  if (app.got_subcommand("record")) return jitscope::cli::RunRecord(record, stderr);
  if (app.got_subcommand("report")) return jitscope::cli::RunReport(report, stdout, stderr);
  if (app.got_subcommand("annotate")) return jitscope::cli::RunAnnotate(annotate, stdout, stderr);
  return 2;
}
