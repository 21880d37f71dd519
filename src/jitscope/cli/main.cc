// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The `jitscope` command line: every subcommand's options, help and examples, and the call of the
// subcommand given. Each command's work is its *_command.cc's Run* function. This is the one file
// that includes CLI11: its header-only parser costs each file that adds options about ten seconds
// of compilation per build. Exceptions from argument parsing stop here: every failure becomes one
// clear line on stderr and a non-zero exit code.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "jitscope/cli/annotate_command.h"
#include "jitscope/cli/archive_command.h"
#include "jitscope/cli/clean_command.h"
#include "jitscope/cli/dump_command.h"
#include "jitscope/cli/pid_list.h"
#include "jitscope/cli/record_command.h"
#include "jitscope/cli/report_command.h"
#include "jitscope/cli/resolve_command.h"
#include "jitscope/formats/output_formats.h"

namespace jitscope::cli {
namespace {

// Adds the option `names` ("-p,--pid") to `command`: a PID[,PID...] list into `pids`, a wrong one
// refused with ParsePids' message naming `shown` ("-p").
template <typename Pid>
CLI::Option* AddPidListOption(CLI::App* command, const std::string& names, const std::string& shown,
                              std::vector<Pid>& pids, const std::string& description) {
  return command
      ->add_option_function<std::string>(
          names,
          [&pids, shown](const std::string& text) {
            base::StatusOr<std::vector<pid_t>> parsed = ParsePids(text, shown);
            if (!parsed.ok()) throw CLI::ValidationError(parsed.status().message());
            pids.assign(parsed->begin(), parsed->end());
          },
          description)
      ->type_name("PID[,PID...]");
}

// The examples of every command are real command lines, run as printed by a test
// (tests/cli/help_examples_test.cc) from a directory that holds the build's bin/, lib/ and
// examples/ as build/bin, build/lib and build/examples, and the repository's examples/: those
// under "Examples:" in every build, those under "Examples with other engines:" where Node.js and
// a JDK are installed. record's run first: the other commands' read the sessions they write.
// Under other captions, command lines to complete (a PID) before they run.
constexpr char kDumpExamples[] =
    R"(A trace the collector wrote for process PID, in the session of record's first example:
  jitscope dump jitscope.data/jit-PID.jsc
  jitscope dump --json jitscope.data/jit-PID.jsc
OProfile's JIT dump libopagent.so.1 wrote for process PID:
  jitscope dump /tmp/.oprofile/jitdump/PID.dump
)";

void AddDumpCommand(CLI::App& app, DumpOptions& options) {
  CLI::App* dump = app.add_subcommand(
      "dump",
      "Print every record of a jitscope trace (jit-<pid>.jsc), an OProfile JIT dump or a JVM "
      "table (jvm-<pid>.jsm)");
  dump->footer(kDumpExamples);
  dump->add_option("FILE", options.path,
                   "Trace file written by the collector, <pid>.dump written by libopagent, or "
                   "jvm-<pid>.jsm written by the JVMTI agent")
      ->required();
  dump->add_flag("--json", options.json,
                 "One JSON object per line: a header, every record with all its fields, a summary");
}

constexpr char kArchiveExamples[] =
    R"(Each file is checked by build id: one that changed since the recording is not archived, and
said. Only what the samples touched is copied, at its own path under SESSION/files/, and only once:
archiving again adds nothing. A container's files, copied when its recording ended, serve as its
archive. report and annotate read the copies, and say so in their header.

--compact keeps of each file only its headers, symbol tables, unwind tables and the bytes of code
the session's walks read: its functions are named and its stacks walked as before, in a fraction of
the space, without source lines or disassembly of native code. A copy already there stays as it is.

Examples:
  jitscope archive
  jitscope archive jitscope.data
  jitscope archive --compact jitscope.data
)";

void AddArchiveCommand(CLI::App& app, ArchiveOptions& options) {
  CLI::App* archive = app.add_subcommand(
      "archive",
      "Keep in a session the programs and libraries its samples touched, so it reports the same "
      "elsewhere");
  archive->add_option("SESSION", options.session, "Session directory (jitscope record -o)")
      ->default_val("jitscope.data");
  archive->add_flag("--compact", options.compact,
                    "Keep of each file only what naming its functions and walking the session's "
                    "stacks read: no source lines, no disassembly of native code");
  archive->footer(kArchiveExamples);
}

constexpr char kCleanExamples[] = R"(Examples:
  jitscope clean --dry-run
  jitscope clean --dry-run --dir fib.data
)";

void AddCleanCommand(CLI::App& app, CleanOptions& options) {
  CLI::App* clean = app.add_subcommand(
      "clean",
      "Remove the perf maps and jitdumps jitscope left behind for exited processes, and the "
      "files of a trace chain that later files supersede");
  clean->footer(kCleanExamples);
  clean->add_option("--dir", options.output_dirs,
                    "Directory with jit-<pid>.dump and trace files (repeatable; default: "
                    "$JITSCOPE_OUTPUT_DIR, else the current directory)");
  clean->add_option("--perf-map-dir", options.perf_map_dir,
                    "Directory with perf-<pid>.map files (default: $JITSCOPE_PERF_MAP_DIR, "
                    "else /tmp)");
  clean->add_flag("--all-writers", options.all_writers,
                  "Also remove such files that other tools (oneDNN, JVM agents, ...) wrote");
  clean->add_flag("-n,--dry-run", options.dry_run, "Only print what would be removed");
}

constexpr char kResolveFooter[] =
    R"(After "--": ADDR[@TIME_NS]... ADDR is hexadecimal; TIME_NS is the time in nanoseconds
(CLOCK_MONOTONIC, the clock of perf record -k 1). Without a time, the latest code loaded at the
address answers.

Examples:
  jitscope resolve jitscope.data -- 0x7f0000001000
  jitscope resolve --json fib.data -- 0x7f0000001000@1000000
)";

void AddResolveCommand(CLI::App& app, ResolveOptions& options) {
  CLI::App* resolve = app.add_subcommand(
      "resolve",
      "Name the JIT code at addresses, as it was at a time: jitscope resolve SOURCE... -- "
      "ADDR[@TIME_NS]...");
  resolve
      ->add_option("SOURCE", options.sources,
                   "Trace, jitdump, perf map or OProfile dump (format detected from content), "
                   "or a directory of them")
      ->required();
  resolve->add_flag("--json", options.json, "Print a JSON array, one object per address");
  resolve->add_option("--pid", options.pid, "The process to resolve in, when SOURCEs span several");
  resolve->footer(kResolveFooter);
}

constexpr char kRecordExamples[] =
    R"(A command is sampled with all its threads and child processes, with call stacks (unwound by
the code's call-frame information and rules derived from the JIT code's bytes, or the kernel's
frame-pointer chains) and CLOCK_MONOTONIC timestamps, and with the JIT collector configured, into
a session directory that 'jitscope report' reads. An existing session directory is moved aside
to DIR.old (or DIR.1, DIR.2, ...), never overwritten. Ctrl-C reaches the command; the session
stays complete. The exit status is the command's.
With -p, running processes are sampled instead: every thread they have and start, and their
children, until they all exit, Ctrl-C or SIGTERM, or the end of the command given after -- (which
only times the recording: it is not sampled, as with perf record -p); the exit status is then
that command's, or 0. With -a, every process on every CPU is sampled in the same way.
JIT code is named from what the processes write: the trace of a process started with the
collector (INTEL_JIT_PROFILER64, read in its JITSCOPE_OUTPUT_DIR), a jitdump it maps, or
/tmp/perf-PID.map (which --jvm-perf-map asks a JVM to write). The JVMs the command starts load
jitscope's JVMTI agent (record adds -agentpath to JAVA_TOOL_OPTIONS; --no-jvm-agent leaves it
out), which names their compiled, inlined and interpreted Java methods; a running JVM started
without any of these is named through --jvm-agent or --jvm-perf-map. A process in a container (other PID and mount
namespaces) is given by its pid on the host: its files, named by its pid inside (NSpid) and found
through /proc/PID/root, are copied into the session directory (perf-PID.map, pid-PID/), so the
session is reported after it is gone; with a root directory of its own (an image's), so are the
ELF files its samples are in (pid-PID/root/). The processes it starts while recorded are
followed, and theirs are copied too. More in docs/record.md.

Examples:
  jitscope record -- build/bin/jitvm examples/jitvm/programs/hotspot.jv 400
  jitscope record -o fib.data -F 4000 --formats trace,jitdump,perfmap -- build/bin/jitvm examples/jitvm/programs/fib.jv 22
Examples with other engines:
  jitscope record -o node.data -- node --perf-prof examples/node/hotspot.js
  jitscope record -o java.data -- java -cp build/examples/jvmti-opagent/classes HotLoop
Sampling running process PID, and what it starts, for ten seconds:
  jitscope record -p PID -- sleep 10
A running JVM, named through jitscope's JVMTI agent:
  jitscope record -p PID --jvm-agent -- sleep 10
Sampling every process on the machine until Ctrl-C:
  jitscope record -a
)";

// The filters report and annotate share (report/sample_filter.h).
void AddSampleFilterOptions(CLI::App* command, report::SampleFilterOptions& filter) {
  AddPidListOption(command, "--pid", "--pid", filter.pids, "Only the samples of these processes");
  AddPidListOption(command, "--tid", "--tid", filter.tids, "Only the samples of these threads")
      ->type_name("TID[,TID...]");
  command
      ->add_option("--comm", filter.comms,
                   "Only the samples of threads with these names, or of processes with these "
                   "command names, as they were when the sample was taken (COMM, as ps shows "
                   "them: 'V8 Worker' picks Node's workers, 'node' all of Node's threads)")
      ->delimiter(',')
      ->type_name("COMM[,COMM...]");
  command
      ->add_option_function<std::string>(
          "--time",
          [&filter](const std::string& text) {
            base::StatusOr<report::TimeRange> range = report::ParseTimeRange(text);
            if (!range.ok()) throw CLI::ValidationError(range.status().message());
            filter.time = *range;
          },
          "Only the samples taken between START and END, seconds from the recording's start "
          "(decimals allowed; either may be left out: '2.5,' or ',10')")
      ->type_name("START,END");
  command
      ->add_option("--task", filter.tasks,
                   "Only the samples taken while their thread was inside an ITT task, overlapped "
                   "task or region of this name (oneDNN's primitives: 'convolution', 'matmul'; "
                   "TBB's: 'tbb_parallel_for'); repeatable")
      ->type_name("NAME");
}

void AddRecordCommand(CLI::App& app, record::SessionOptions& options,
                      RecordCommandOptions& command_options) {
  CLI::App* command = app.add_subcommand(
      "record",
      "Sample a command, running processes (-p) or every process (-a) into a session directory, "
      "with the JIT code they run named");
  command->add_option("-o,--output", options.output_dir, "Session directory")
      ->default_val("jitscope.data");
  command->add_option("-F,--frequency", options.frequency_hz, "Samples per second per thread")
      ->default_val(1000)
      ->check(CLI::Range(1, 100000));
  command
      ->add_option_function<std::string>(
          "--call-graph",
          [&options](const std::string& text) {
            base::StatusOr<record::CallGraphOptions> call_graph = record::ParseCallGraph(text);
            if (!call_graph.ok()) throw CLI::ValidationError(call_graph.status().message());
            options.call_graph = *call_graph;
          },
          "How call stacks are sampled, as perf record's option: 'dwarf[,SIZE]' (the default: "
          "the user registers and SIZE bytes of the user stack per sample, " +
              std::to_string(record::kDefaultStackSize) +
              " by default, four times perf's, at most 65528, unwound with the code's call-frame "
              "information and rules derived from the JIT code's bytes while the processes run "
              "(what their JIT files do not describe yet, and the samples of processes in "
              "containers, when the recording ends), and kept as call stacks; the frame-pointer "
              "chain carries on, marked as a guess, where no rule does) or 'fp' (the kernel's "
              "frame-pointer chain alone: broken wherever code keeps no frame pointer)")
      ->default_str("dwarf");
  command->add_flag("--switch-events", options.switch_events,
                    "Record when each thread is switched out of its CPU and back in, as perf "
                    "record's option: the report shows the time each thread spent off the CPU, "
                    "preempted or waiting (sleep, I/O, a lock), on its timeline and in its header");
  command->add_flag("--off-cpu", options.off_cpu,
                    "Also take a sample each time a thread is switched out of its CPU, with its "
                    "call stack (unwound as CPU samples are, through JIT code), weighted in the "
                    "report by the time until it ran again, under a leaf that says why: "
                    "[off-cpu: preempted], or the system call it waited in, [off-cpu: sleeping], "
                    "[off-cpu: lock], [off-cpu: I/O], [off-cpu: poll], else [off-cpu: waiting] "
                    "(implies --switch-events; needs kernel.perf_event_paranoid <= 1, or "
                    "CAP_PERFMON)");
  command->add_flag("--keep-stacks", command_options.keep_stacks,
                    "With --call-graph dwarf: keep each sample's registers and stack copy in the "
                    "session, for 'jitscope report' to unwind each time it runs, instead of "
                    "unwinding them while recording");
  command->add_flag("--archive", command_options.archive,
                    "When the recording ends, keep in the session the ELF files its samples "
                    "touched, checked by build id, as 'jitscope archive' does");
  command->add_flag("--registered-frames", command_options.registered_frames,
                    "Preload libjitscope-frames.so into the command (x86-64 programs: a 32-bit "
                    "one prints that it ignored it) to keep the unwind tables its JIT engines "
                    "register with __register_frame (LLVM's MCJIT and ORC, Wasmtime) in the "
                    "session, as frames-PID.jsf; the walks through that code take them before "
                    "rules derived from its bytes, and code no JIT file describes gets rules");
  command->add_flag("!--no-itt", options.itt,
                    "Do not name the collector to the command's ITT API (INTEL_LIBITTNOTIFY64 "
                    "and 32, set by default beside INTEL_JIT_PROFILER64 and 32): the tasks, "
                    "frames, markers and counters that oneDNN, TBB and other ITT-instrumented "
                    "code report are then not recorded");
  command->add_flag("--read-code,!--no-read-code", command_options.read_code,
                    "With --call-graph dwarf (the default): where samples land in executable "
                    "memory whose bytes no JIT file holds (the code a perf map names: OpenJDK's, "
                    "Mono's --jitmap, Node's --perf-basic-prof, .NET, CPython's -X perf), read "
                    "that code from the running process while it runs (process_vm_readv), and "
                    "keep each read in the session as captured-PID.jsr, so its frames are walked "
                    "by rules derived from its bytes (default: on)");
  command
      ->add_option("--read-code-max", command_options.read_code_max_mib,
                   "At most this many MiB of code read from running processes (--read-code); "
                   "past it nothing more is read, and record says so")
      ->default_val(256)
      ->check(CLI::Range(1, 65536));
  command->add_option("--formats", options.formats,
                      "Files the collector writes (JITSCOPE_FORMATS), comma-separated, of: " +
                          formats::KnownOutputFormats() + "; default: trace");
  AddPidListOption(command, "-p,--pid", "-p", options.attach,
                   "Sample these running processes (PID[,PID...]); needs the rights "
                   "perf_event_open and /proc/PID/maps ask for: see 'Permissions' in "
                   "docs/record.md");
  command->add_flag("--jvm-perf-map", options.jvm_perf_map,
                    "With -p or -a: ask each Java VM among the processes for a perf map of its "
                    "compiled code (jcmd PID Compiler.perfmap, which writes /tmp/perf-PID.map) "
                    "when the recording starts and ends, and keep a copy in the session, so a JVM "
                    "started without any JIT reporting is named");
  command->add_flag("--jvm-agent", options.jvm_agent,
                    "With -p or -a: load jitscope's JVMTI agent into each Java VM among the "
                    "processes before the recording starts (jcmd PID JVMTI.agent_load "
                    "<prefix>/lib/libjvmti_opagent.so dir=DIR), and stop it when it ends: the "
                    "JVM writes its compiled methods, those compiled before too, with their "
                    "source lines, into the session, so a JVM started without any JIT reporting "
                    "is named; the JVM must be able to write DIR. With a command, the default: "
                    "the JVMs it starts load the agent (JAVA_TOOL_OPTIONS), and its absence is an "
                    "error");
  command->add_flag("--no-jvm-agent", command_options.no_jvm_agent,
                    "Give the JVMs the command starts no JVMTI agent: JAVA_TOOL_OPTIONS is left "
                    "as it is");
  command->add_flag("-a,--all-cpus", options.system_wide,
                    "Sample every process on every CPU (system-wide, as perf record -a), until "
                    "Ctrl-C or SIGTERM, or the end of the command given after --; needs "
                    "kernel.perf_event_paranoid <= 0 or CAP_PERFMON (see 'Permissions' in "
                    "docs/record.md)");
  command
      ->add_option("command", options.command,
                   "The command to run, after --; with -p or -a, the command that times the "
                   "recording")
      ->expected(-1);
  command->prefix_command();
  command->footer(kRecordExamples);
}

// Real command lines, run as printed by a test (tests/cli/help_examples_test.cc) after the
// examples of `jitscope record --help`, which write jitscope.data.
constexpr char kReportExamples[] =
    R"(JIT frames are named by the time-versioned JIT symbols (with inline frames), native frames by
ELF symbols and DWARF lines, kernel frames as [kernel]. More in docs/report.md.

Examples:
  jitscope report
  jitscope report jitscope.data --sort line --top 5
  jitscope report --format svg -o flame.svg
  jitscope report --format pprof -o profile.pb.gz
  jitscope report --format folded --no-inline -o stacks.folded
  jitscope report --format speedscope -o profile.speedscope.json
  jitscope report --format html -o profile.html
  jitscope report --diff-base fib.data jitscope.data --top 5
Examples with other engines:
  jitscope report node.data --top 5
  jitscope report java.data --sort line --top 5
)";

void AddReportCommand(CLI::App& app, ReportOptions& options) {
  CLI::App* command = app.add_subcommand(
      "report",
      "Report a session 'jitscope record' made, or a perf.data file, with every frame named as "
      "it was when sampled");
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
  command->add_option("--format", options.format, "Output format")
      ->default_val("text")
      ->check(CLI::IsMember(ReportFormatNames()));
  command->add_option("-o,--output", options.output, "Write to FILE instead of standard output");
  command
      ->add_option("--sort", options.sort,
                   "text: what an entry is — a method, a source line of a method, or a module")
      ->check(CLI::IsMember({"method", "line", "module"}))
      ->default_val("method");
  command->add_option("--top", options.text.top, "text: how many entries (0 = all)")
      ->default_val(25);
  command
      ->add_option("--name-width", options.text.name_width,
                   "text: the widest a function's name is shown (0 = whole names); a longer C++ "
                   "name loses its parameters, template arguments and outer scopes before its "
                   "function's name")
      ->default_val(60);
  AddSampleFilterOptions(command, options.build.filter);
  command
      ->add_option(
          "--diff-base", options.diff_base,
          "Compare INPUT (the new run) with this recording (the base run): per function "
          "and per stack, each as a share of its own run's samples, functions matched by "
          "name (and by tier where both runs have it); --format text, folded (FlameGraph's "
          "differential form) or html (a differential flame graph)")
      ->type_name("OLD");
  command
      ->add_option_function<std::string>(
          "--off-cpu",
          [&options](const std::string& text) {
            options.build.off_cpu = text == "only"      ? report::OffCpuSamples::kOnly
                                    : text == "exclude" ? report::OffCpuSamples::kExclude
                                                        : report::OffCpuSamples::kInclude;
          },
          "Of a recording made with 'record --off-cpu': the samples on a CPU and the time off "
          "it, under [off-cpu: REASON] leaves weighed as samples of the sampling period "
          "('include', the default), or either alone ('only', 'exclude')")
      ->check(CLI::IsMember({"include", "only", "exclude"}));
  command->add_flag("--inline,!--no-inline", options.inline_frames,
                    "Show inlined functions as frames of their own (default), or fold them into "
                    "the function they were inlined into");
  command->add_flag("--mark-guesses", options.build.mark_guesses,
                    "Where a --call-graph dwarf walk stopped and the kernel's frame-pointer chain "
                    "carried the stack on, put a [frame-pointer chain] frame between the walk's "
                    "frames and the guessed callers (which splits the stack from the same one "
                    "walked by rules); without it the header and pprof's 'unwinding' label count "
                    "the guesses");
  command->footer(kReportExamples);
}

constexpr char kAnnotateExamples[] =
    R"(Each version of a function is disassembled with the samples taken on each instruction, the
samples below each call and the source lines the engine reported. Native functions are
disassembled from their ELF files, with their DWARF lines. FUNCTION is a name (every version of
it), #ID (a method id) or 0xADDR (the versions whose code held the address); without one, the
--top hottest JIT versions. INPUT defaults to jitscope.data. More in docs/annotate.md.

Examples:
  jitscope annotate
  jitscope annotate jitscope.data --top 2 --sort line
  jitscope annotate --format json -o annotate.json
Examples with other engines:
  jitscope annotate node.data --top 1
  jitscope annotate java.data --top 1
)";

void AddAnnotateCommand(CLI::App& app, AnnotateOptions& options) {
  CLI::App* command = app.add_subcommand(
      "annotate",
      "Show the hot instructions of the JIT code in a session or a perf.data file, with their "
      "samples and source lines");
  command->add_option("INPUT FUNCTION", options.arguments,
                      "The session directory or perf.data file (if the first argument is one), "
                      "then the functions");
  command->add_option("--top", options.top, "Without FUNCTION: how many of the hottest versions")
      ->default_val(5);
  command
      ->add_option("--sort", options.sort,
                   "offset: every instruction in address order; line: per source line, hottest "
                   "first")
      ->check(CLI::IsMember({"offset", "line"}))
      ->default_val("offset");
  command->add_option("-M,--disassembler-options", options.syntax, "att or intel syntax")
      ->check(CLI::IsMember({"att", "intel"}))
      ->default_val("att");
  command->add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_val("text");
  command->add_option("-o,--output", options.output, "Write to FILE instead of standard output");
  AddSampleFilterOptions(command, options.filter);
  command->footer(kAnnotateExamples);
}

}  // namespace
}  // namespace jitscope::cli

int main(int argc, char** argv) {
  using namespace jitscope::cli;
  CLI::App app{"jitscope: see and profile code generated at run time (JIT code)", "jitscope"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "jitscope 0.1.0");

  // The main job first: record, report, annotate; then the tools for JIT files.
  jitscope::record::SessionOptions record;
  // Complete stacks through code without frame pointers by default (docs/performance.md, "How
  // complete the call stacks are"); the library's default stays perf's -g.
  record.call_graph.mode = jitscope::record::CallGraph::kDwarf;
  RecordCommandOptions record_command;
  AddRecordCommand(app, record, record_command);
  ReportOptions report;
  AddReportCommand(app, report);
  AnnotateOptions annotate;
  AddAnnotateCommand(app, annotate);
  ArchiveOptions archive;
  AddArchiveCommand(app, archive);
  DumpOptions dump;
  AddDumpCommand(app, dump);
  ResolveOptions resolve;
  AddResolveCommand(app, resolve);
  CleanOptions clean;
  AddCleanCommand(app, clean);
  // `resolve` takes its addresses after "--", which CLI11 cannot tell from SOURCEs.
  std::vector<std::string> args = SplitResolveQueries(argc, argv, resolve.queries);
  std::reverse(args.begin() + 1, args.end());  // CLI11 parses a reversed vector
  args.erase(args.begin());

  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A mistake in a subcommand's arguments names that subcommand and its help.
    const std::vector<CLI::App*> given = app.get_subcommands();
    const std::string command =
        given.empty() ? "jitscope" : "jitscope " + given.front()->get_name();
    std::fprintf(stderr, "%s: error: %s\nRun '%s --help' for usage.\n", command.c_str(), e.what(),
                 command.c_str());
    return 2;
  }
  if (app.got_subcommand("dump")) return RunDump(dump, stdout, stderr);
  if (app.got_subcommand("clean")) return RunClean(clean, SystemProcessTable(), stdout, stderr);
  if (app.got_subcommand("resolve")) return RunResolve(resolve, stdout, stderr);
  if (app.got_subcommand("record")) return RunRecord(record, record_command, stderr);
  if (app.got_subcommand("report")) return RunReport(report, stdout, stderr);
  if (app.got_subcommand("annotate")) return RunAnnotate(annotate, stdout, stderr);
  if (app.got_subcommand("archive")) return RunArchive(archive, stderr);
  return 2;
}
