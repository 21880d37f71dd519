// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End-to-end: `jitscope record -p` on processes that were running before it.
//  - the example JIT, started with the collector and attached after it has run a while: the JIT
//    functions that run while attached are named with their source lines, from the trace in the
//    process's own JITSCOPE_OUTPUT_DIR, into which jitscope writes nothing;
//  - a process with threads created before and after attaching, and a child it forks after:
//    samples of every thread, each under its name, and the recording ends when the process exits;
//  - a missing process and a process of another user: the documented messages.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/record/permission_advice.h"
#include "jitscope/report/profile_builder.h"
#include "jitscope/session/samples_file.h"
#include "jitscope/session/session_info.h"
#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::record {
namespace {

using test_support::ListDirectory;
using test_support::Process;
using test_support::RunProgram;
using test_support::TempDir;

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Whether process `pid` runs (exists and is not a zombie).
bool Running(pid_t pid) {
  const std::string stat = test_support::ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

// The line of `path` that carries `marker` (1-based).
uint32_t LineWith(const std::string& path, const std::string& marker) {
  const std::string text = test_support::ReadFile(path);
  uint32_t line = 1;
  for (size_t i = 0; i < text.find(marker) && i < text.size(); ++i) line += text[i] == '\n';
  return text.find(marker) == std::string::npos ? 0 : line;
}

// Waits until process `pid` has used 0.3 s of CPU (the example JIT's functions are compiled and
// optimized by then), however busy the machine; false if it never does.
bool LetRun(pid_t pid) {
  const long ticks = ::sysconf(_SC_CLK_TCK) * 3 / 10;
  for (int i = 0; i < 600 && test_support::ProcessCpuTicks(pid) < ticks; ++i) ::usleep(100 * 1000);
  return test_support::ProcessCpuTicks(pid) >= ticks;
}

// The command that times a recording of processes `pids`: it ends once each has used `seconds`
// of CPU time more (cpu_time.cc), so the recording holds as many of their samples on a fast
// machine, a slow one and a busy one.
std::vector<std::string> WhileTheyRun(const std::vector<pid_t>& pids, const char* seconds) {
  std::vector<std::string> command = {CPU_TIME, "wait", seconds};
  for (pid_t pid : pids) command.push_back(std::to_string(pid));
  return command;
}

struct LeafCounts {
  uint64_t user = 0;  // samples whose leaf is not in the kernel
  // Of those, in hotspot.jv's `series`: "series" from a trace, "jitvm-optimized!series" from a
  // jitdump or perf map (their names carry the module).
  uint64_t series = 0;
  uint64_t series_in_file = 0;  // of those, with hotspot.jv as their source file
  uint64_t series_at_line = 0;  // of those, at the line asked for
};

LeafCounts CountSeries(const report::Profile& profile, uint32_t line) {
  LeafCounts counts;
  for (const report::Stack& stack : profile.stacks) {
    const report::Location& leaf = profile.locations[stack.frames.front()];
    if (leaf.kind == report::FrameKind::kKernel) continue;
    counts.user += stack.samples;
    if (leaf.function != "series" && !leaf.function.ends_with("!series")) continue;
    counts.series += stack.samples;
    if (!leaf.file.ends_with("/hotspot.jv")) continue;
    counts.series_in_file += stack.samples;
    if (leaf.line == line) counts.series_at_line += stack.samples;
  }
  return counts;
}

// The example JIT running hotspot.jv with the collector configured (its trace going into
// `traces`, made here), recorded once it has run a while by `jitscope record OPTIONS -o DIR --
// WhileTheyRun({PID}, "0.5")`, where "PID" in OPTIONS stands for its pid; killed once the
// recording ends.
struct RecordedJitvm {
  test_support::ProcessResult record;
  pid_t pid = 0;
};
RecordedJitvm RecordRunningJitvm(const std::string& traces, const std::string& dir,
                                 const std::vector<std::string>& options) {
  RecordedJitvm out;
  if (::mkdir(traces.c_str(), 0700) != 0) {
    ADD_FAILURE() << "mkdir " << traces;
    return out;
  }
  Process jitvm({JITVM, JITVM_PROGRAMS "/hotspot.jv", "1000000"},
                {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR}, {"JITSCOPE_OUTPUT_DIR", traces}});
  out.pid = jitvm.pid();
  if (out.pid <= 0 || !LetRun(out.pid)) {
    ADD_FAILURE() << "jitvm never ran";
    return out;
  }
  std::vector<std::string> argv = {JITSCOPE_CLI, "record"};
  for (const std::string& option : options) {
    argv.push_back(option == "PID" ? std::to_string(out.pid) : option);
  }
  for (const char* word : {"-o", dir.c_str(), "--"}) argv.push_back(word);
  for (const std::string& word : WhileTheyRun({out.pid}, "0.5")) argv.push_back(word);
  out.record = RunProgram(argv);
  ::kill(out.pid, SIGKILL);
  jitvm.Wait();
  return out;
}

TEST(AttachTest, JitFunctionsOfARunningProcessAreNamedWithTheirLines) {
  TempDir tmp;
  const std::string traces = tmp.path() + "/traces";
  const std::string dir = tmp.path() + "/session";
  const RecordedJitvm run = RecordRunningJitvm(traces, dir, {"-p", "PID"});
  ASSERT_FALSE(::testing::Test::HasFailure());
  const test_support::ProcessResult& record = run.record;
  const pid_t jitvm_pid = run.pid;
  const std::string pid = std::to_string(jitvm_pid);
  ASSERT_EQ(record.exit_code, 0) << record.err;
  EXPECT_NE(record.err.find("jitscope record: stopped: the command ended\n"), std::string::npos)
      << record.err;

  base::StatusOr<session::SessionInfo> info = session::ReadSessionInfo(dir);
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->command, WhileTheyRun({jitvm_pid}, "0.5"));
  ASSERT_EQ(info->attached.size(), 1u);
  EXPECT_EQ(info->attached[0].pid, static_cast<uint32_t>(jitvm_pid));
  EXPECT_EQ(info->attached[0].command,
            (std::vector<std::string>{JITVM, JITVM_PROGRAMS "/hotspot.jv", "1000000"}));
  EXPECT_EQ(info->attached[0].collector_output_dir, traces);
  // The process's directory holds what its collector wrote, and nothing of jitscope's.
  EXPECT_EQ(ListDirectory(traces), (std::set<std::string>{"jit-" + pid + ".jsc"}));

  base::StatusOr<report::Profile> profile = report::BuildProfile(dir, {});
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  EXPECT_EQ(profile->command,
            "attached to " + pid + " (" JITVM " " JITVM_PROGRAMS "/hotspot.jv 1000000)");
  const uint32_t hot_line = LineWith(JITVM_PROGRAMS "/hotspot.jv", "# HOT");
  ASSERT_GT(hot_line, 0u);
  const LeafCounts counts = CountSeries(*profile, hot_line);
  ASSERT_GT(counts.user, 100u);
  // The hot line is most of the program's time (a sanitizer's own share varies with the build).
  EXPECT_GT(counts.series_at_line * 3, counts.user)
      << counts.series_at_line << " of " << counts.user << " user-space samples on the hot line";

  auto text = RunProgram({JITSCOPE_CLI, "report", dir, "--sort", "line", "--top", "3"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(text.out.starts_with("# jitscope report: attached to " + pid + " (")) << text.out;
  EXPECT_NE(text.out.find("hotspot.jv:" + std::to_string(hot_line)), std::string::npos) << text.out;

  // The session kept the trace the process wrote into its own directory: with that directory
  // gone, it reports the same.
  EXPECT_NE(record.err.find("jitscope record: kept the JIT files the processes wrote outside the "
                            "session in " +
                            dir + "/files ("),
            std::string::npos)
      << record.err;
  EXPECT_TRUE(Exists(dir + "/files" + traces + "/jit-" + pid + ".jsc"));
  std::filesystem::remove_all(traces);
  auto again = RunProgram({JITSCOPE_CLI, "report", dir, "--sort", "line", "--top", "3"});
  EXPECT_EQ(again.out, text.out);
}

// record -p of two processes: each stack's outermost frame is its process, so each is a tree of
// its own, and the roots' samples are the processes' shares.
TEST(AttachTest, SeveralProcessesAreTreesOfTheirOwn) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  Process first({JITVM, JITVM_PROGRAMS "/hotspot.jv", "1000000"}, {});
  Process second({JITVM, JITVM_PROGRAMS "/hotspot.jv", "1000000"}, {});
  ASSERT_TRUE(LetRun(first.pid()) && LetRun(second.pid())) << "jitvm never ran";
  std::vector<std::string> argv = {
      JITSCOPE_CLI, "record",
      "-p",         std::to_string(first.pid()) + "," + std::to_string(second.pid()),
      "-o",         dir,
      "--"};
  for (const std::string& word : WhileTheyRun({first.pid(), second.pid()}, "0.3")) {
    argv.push_back(word);
  }
  auto record = RunProgram(argv);
  ::kill(first.pid(), SIGKILL);
  ::kill(second.pid(), SIGKILL);
  const pid_t pids[] = {first.pid(), second.pid()};
  first.Wait();
  second.Wait();
  ASSERT_EQ(record.exit_code, 0) << record.err;

  base::StatusOr<report::Profile> profile = report::BuildProfile(dir, {});
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  std::map<std::string, uint64_t> by_root;
  for (const report::Stack& stack : profile->stacks) {
    const report::Location& root = profile->locations[stack.frames.back()];
    EXPECT_EQ(root.kind, report::FrameKind::kProcess) << root.function;
    by_root[root.function] += stack.samples;
  }
  for (const pid_t pid : pids) {
    const auto process = std::find_if(
        profile->processes.begin(), profile->processes.end(),
        [&](const report::ProcessShare& p) { return p.pid == static_cast<uint32_t>(pid); });
    ASSERT_NE(process, profile->processes.end()) << pid << " was not sampled";
    EXPECT_GT(process->samples, 100u);
    EXPECT_EQ(by_root["jitvm (pid " + std::to_string(pid) + ")"], process->samples);
  }
}

// record -a: every process on every CPU, while a command times the recording. The example JIT,
// started with the collector beforehand, is one of them: its JIT code is named from the trace in
// its own JITSCOPE_OUTPUT_DIR, which session.json lists; report --pid chooses it.
TEST(AttachTest, SystemWideNamesTheJitCodeOfAProcessStartedWithTheCollector) {
  TempDir tmp;
  const std::string traces = tmp.path() + "/traces";
  const std::string dir = tmp.path() + "/session";
  const RecordedJitvm run = RecordRunningJitvm(traces, dir, {"-a"});
  ASSERT_FALSE(::testing::Test::HasFailure());
  const test_support::ProcessResult& record = run.record;
  const pid_t jitvm_pid = run.pid;
  ASSERT_EQ(record.exit_code, 0) << record.err;
  EXPECT_NE(record.err.find("jitscope record: stopped: the command ended\n"), std::string::npos)
      << record.err;

  base::StatusOr<session::SessionInfo> info = session::ReadSessionInfo(dir);
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_TRUE(info->system_wide);
  EXPECT_EQ(info->command, WhileTheyRun({jitvm_pid}, "0.5"));
  bool listed = false;
  for (const session::AttachedProcess& process : info->attached) {
    // Listed: a process with the collector configured, or one in a container whose JIT files were
    // copied (another test's may run meanwhile).
    EXPECT_TRUE(!process.collector_output_dir.empty() || process.Elsewhere()) << process.pid;
    if (process.pid == static_cast<uint32_t>(jitvm_pid)) {
      listed = true;
      EXPECT_EQ(process.collector_output_dir, traces);
    }
  }
  EXPECT_TRUE(listed) << "the process running with the collector is in session.json";
  EXPECT_EQ(ListDirectory(traces),
            (std::set<std::string>{"jit-" + std::to_string(jitvm_pid) + ".jsc"}));

  base::StatusOr<report::Profile> all = report::BuildProfile(dir, {});
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(all->command, "every process (record -a), while " CPU_TIME " wait 0.5 " +
                              std::to_string(jitvm_pid) + " ran");
  EXPECT_GT(all->processes.size(), 1u) << "more than the JIT was sampled";
  for (const report::Stack& stack : all->stacks) {
    EXPECT_EQ(all->locations[stack.frames.back()].kind, report::FrameKind::kProcess);
  }
  report::BuildOptions just_jitvm;
  just_jitvm.filter.pids = {static_cast<uint32_t>(jitvm_pid)};
  base::StatusOr<report::Profile> profile = report::BuildProfile(dir, just_jitvm);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  const uint32_t hot_line = LineWith(JITVM_PROGRAMS "/hotspot.jv", "# HOT");
  const LeafCounts counts = CountSeries(*profile, hot_line);
  ASSERT_GT(counts.user, 100u);
  EXPECT_GT(counts.series_at_line * 3, counts.user)
      << counts.series_at_line << " of " << counts.user << " user-space samples on the hot line";
}

// A process whose collector writes no trace but a jitdump (found through its mapping, which
// existed before the recording) or a perf map (/tmp/perf-PID.map) is named from that.
TEST(AttachTest, JitdumpOrPerfMapOfARunningProcessNamesItsCode) {
  for (const std::string format : {"jitdump", "perfmap"}) {
    SCOPED_TRACE(format);
    TempDir tmp;
    const std::string dir = tmp.path() + "/session";
    Process jitvm({JITVM, JITVM_PROGRAMS "/hotspot.jv", "1000000"},
                  {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR},
                   {"JITSCOPE_OUTPUT_DIR", tmp.path()},
                   {"JITSCOPE_FORMATS", format}});
    const pid_t pid = jitvm.pid();
    ASSERT_GT(pid, 0);
    const bool ran = LetRun(pid);
    std::vector<std::string> argv = {JITSCOPE_CLI, "record", "-p", std::to_string(pid),
                                     "-o",         dir,      "--"};
    for (const std::string& word : WhileTheyRun({pid}, "0.3")) argv.push_back(word);
    auto record = RunProgram(argv);
    ::kill(pid, SIGKILL);
    jitvm.Wait();
    ASSERT_TRUE(ran) << "jitvm never ran";
    ASSERT_EQ(record.exit_code, 0) << record.err;
    base::StatusOr<report::Profile> profile = report::BuildProfile(dir, {});
    const std::string perf_map = "/tmp/perf-" + std::to_string(pid) + ".map";
    if (format == "perfmap") {
      EXPECT_TRUE(Exists(perf_map));
      ::unlink(perf_map.c_str());
      // The session kept the map: without the original, the same profile.
      base::StatusOr<report::Profile> kept = report::BuildProfile(dir, {});
      ASSERT_TRUE(kept.ok()) << kept.status().message();
      ASSERT_TRUE(profile.ok()) << profile.status().message();
      EXPECT_EQ(CountSeries(*kept, 0).series, CountSeries(*profile, 0).series);
      EXPECT_TRUE(Exists(dir + "/files" + perf_map));
    }
    ASSERT_TRUE(profile.ok()) << profile.status().message();
    // A jitdump has the source lines (perf's granularity), a perf map only the names.
    const LeafCounts counts = CountSeries(*profile, 0);
    ASSERT_GT(counts.user, 50u);
    EXPECT_GT(counts.series * 3, counts.user) << counts.series << " of " << counts.user;
    if (format == "jitdump") {
      EXPECT_GT(counts.series_in_file * 3, counts.user);
    }
  }
}

// --call-graph dwarf works attached: the samples carry registers and stack copies (kept).
TEST(AttachTest, DwarfCallGraph) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  Process target({"/bin/sh", "-c", "while :; do :; done"}, {});
  const pid_t pid = target.pid();
  ASSERT_GT(pid, 0);
  std::vector<std::string> argv = {JITSCOPE_CLI,
                                   "record",
                                   "--call-graph",
                                   "dwarf,1024",
                                   "--keep-stacks",
                                   "-p",
                                   std::to_string(pid),
                                   "-o",
                                   dir,
                                   "--"};
  for (const std::string& word : WhileTheyRun({pid}, "0.1")) argv.push_back(word);
  auto record = RunProgram(argv);
  ::kill(pid, SIGKILL);
  target.Wait();
  ASSERT_EQ(record.exit_code, 0) << record.err;
  base::StatusOr<session::SampleData> data =
      session::ReadSamplesFile(dir + "/" + session::kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->format.stack_size, 1024u);
  size_t with_stack = 0;
  for (const session::Sample& sample : data->samples) {
    ASSERT_EQ(sample.pid, static_cast<uint32_t>(pid));
    with_stack += sample.stack.empty() ? 0 : 1;
  }
  EXPECT_GT(with_stack, 10u);
  // The shell's executable was mapped before the recording: its mapping is synthesized.
  bool shell_mapped = false;
  for (const session::Mapping& mapping : data->mappings) {
    shell_mapped |= mapping.pid == static_cast<uint32_t>(pid) && mapping.filename.ends_with("sh");
  }
  EXPECT_TRUE(shell_mapped);
}

TEST(AttachTest, ThreadsFromBeforeAndAfterAttachingAndTheProcessExitEndsIt) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  // In the sanitized build, LeakSanitizer's check at exit runs in a task it clones (a process of
  // its own, never named), which the recording rightly samples too: this test counts processes.
  Process target({ATTACH_THREADS_PROGRAM}, {{"ASAN_OPTIONS", "detect_leaks=0"}});
  const pid_t pid = target.pid();
  ASSERT_GT(pid, 0);
  std::string ready;
  char c = 0;
  while (ready != "ready\n" && ::read(target.stdout_fd(), &c, 1) == 1) ready += c;
  ASSERT_EQ(ready, "ready\n");

  Process record({JITSCOPE_CLI, "record", "-p", std::to_string(pid), "-o", dir}, {});
  // session.json is written once the events are open: only then may the new threads start.
  while (!Exists(dir + "/session.json") && Running(record.pid())) ::usleep(10 * 1000);
  const bool attached = Exists(dir + "/session.json");
  ::kill(pid, attached ? SIGUSR1 : SIGKILL);
  ASSERT_TRUE(attached) << record.Wait().err;
  // No command and no signal: the recording ends when the process exits.
  auto recorded = record.Wait();
  EXPECT_EQ(target.Wait().exit_code, 0);
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_NE(recorded.err.find("jitscope record: stopped: the process exited\n"), std::string::npos)
      << recorded.err;

  base::StatusOr<session::SampleData> data =
      session::ReadSamplesFile(dir + "/" + session::kSamplesFileName);
  ASSERT_TRUE(data.ok()) << data.status().message();
  std::map<uint32_t, std::string> names;  // the last name of each thread
  for (const session::Comm& comm : data->comms) names[comm.tid] = comm.name;
  std::map<std::string, uint64_t> samples;
  for (const session::Sample& sample : data->samples) {
    // The child forked after attaching is sampled too, in a process of its own.
    const bool child = names[sample.tid] == "child";
    EXPECT_EQ(sample.pid == static_cast<uint32_t>(pid), !child) << names[sample.tid];
    samples[names[sample.tid]] += 1;
  }
  for (const char* thread : {"before-1", "before-2", "after-1", "after-2", "child"}) {
    EXPECT_GT(samples[thread], 0u) << thread;
  }
}

TEST(AttachTest, MissingProcess) {
  TempDir tmp;
  // Above the largest pid_max Linux allows (2^22): never a process.
  auto result = RunProgram({JITSCOPE_CLI, "record", "-p", "4194305", "-o", tmp.path() + "/s"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "jitscope record: error: no process 4194305\n");
  auto bad = RunProgram({JITSCOPE_CLI, "record", "-p", "12,x"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("-p 12,x: expected process ids separated by commas"), std::string::npos)
      << bad.err;
  auto formats = RunProgram({JITSCOPE_CLI, "record", "-p", "1", "--formats", "jitdump"});
  EXPECT_EQ(formats.exit_code, 2);
  EXPECT_EQ(formats.err,
            "jitscope record: error: --formats does not apply to -p or -a: a running process's "
            "collector writes what its environment asked for when it started\n"
            "Run 'jitscope record --help' for usage.\n");
  auto nothing = RunProgram({JITSCOPE_CLI, "record"});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_EQ(nothing.err,
            "jitscope record: error: nothing to record: give a command after --, -p PID or -a\n"
            "Run 'jitscope record --help' for usage.\n");
}

// record -a as an unprivileged user (uid 65534 through setpriv when the test runs as root): refused
// with what system-wide sampling needs, and the earlier session in the directory stays where it
// was, as it was; allowed where the machine lets every user (paranoid <= 0).
TEST(AttachTest, SystemWideNeedsPrivilegeAndSaysWhich) {
  const std::string paranoid = test_support::ReadFile("/proc/sys/kernel/perf_event_paranoid");
  ASSERT_FALSE(paranoid.empty()) << "no kernel.perf_event_paranoid";
  const bool everyone_may = std::stoi(paranoid) <= 0;
  TempDir tmp;
  ASSERT_EQ(::chmod(tmp.path().c_str(), 0777), 0);
  ASSERT_EQ(::mkdir((tmp.path() + "/s").c_str(), 0777), 0);
  ASSERT_TRUE(test_support::WriteFile(tmp.path() + "/s/earlier", "an earlier session"));
  std::vector<std::string> argv;
  if (::getuid() == 0) {
    ASSERT_TRUE(Exists("/usr/bin/setpriv")) << "setpriv (util-linux) is needed to drop root";
    argv = {"/usr/bin/setpriv", "--reuid=65534",   "--regid=65534",
            "--clear-groups",   "--inh-caps=-all", "--bounding-set=-all"};
  }
  for (const std::string& word :
       {std::string(JITSCOPE_CLI), std::string("record"), std::string("-a"), std::string("-o"),
        tmp.path() + "/s", std::string("--"), std::string("true")}) {
    argv.push_back(word);
  }
  auto result = RunProgram(argv);
  if (everyone_may) {
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return;
  }
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("Sampling every process (record -a) needs perf_event_paranoid <= 0, "
                            "or CAP_PERFMON."),
            std::string::npos)
      << result.err;
  EXPECT_EQ(ListDirectory(tmp.path()), (std::set<std::string>{"s"}));
  EXPECT_EQ(ListDirectory(tmp.path() + "/s"), (std::set<std::string>{"earlier"}));
  EXPECT_EQ(test_support::ReadFile(tmp.path() + "/s/earlier"), "an earlier session");
}

// As an unprivileged user (uid 65534 through setpriv when the test runs as root; the test's own
// user otherwise), attaching to a process of another user is refused with /proc's explanation.
TEST(AttachTest, AnotherUsersProcessIsRefusedWithTheReason) {
  TempDir tmp;
  ASSERT_EQ(::chmod(tmp.path().c_str(), 0777), 0);
  const std::string dir = tmp.path() + "/session";
  std::unique_ptr<Process> own_target;
  std::vector<std::string> argv;
  pid_t target = 1;
  uint32_t uid = ::getuid();
  if (::getuid() == 0) {
    ASSERT_TRUE(Exists("/usr/bin/setpriv")) << "setpriv (util-linux) is needed to drop root";
    own_target = std::make_unique<Process>(std::vector<std::string>{"/bin/sleep", "60"},
                                           std::map<std::string, std::string>{});
    target = own_target->pid();
    uid = 65534;
    argv = {"/usr/bin/setpriv", "--reuid=65534",   "--regid=65534",
            "--clear-groups",   "--inh-caps=-all", "--bounding-set=-all"};
  }
  ASSERT_NE(test_support::ReadFile("/proc/" + std::to_string(target) + "/status").find("Uid:\t0\t"),
            std::string::npos)
      << "the target must belong to root";
  for (const std::string arg : {JITSCOPE_CLI, "record", "-p"}) argv.push_back(arg);
  argv.push_back(std::to_string(target));
  argv.push_back("-o");
  argv.push_back(dir);
  auto result = RunProgram(argv);
  if (own_target) ::kill(own_target->pid(), SIGKILL);
  PermissionFacts facts = ReadPermissionFacts(0);
  facts.capabilities = 0;
  facts.uid = uid;
  facts.target_uid = 0;
  const std::string path = "/proc/" + std::to_string(target) + "/environ";
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err,
            "jitscope record: error: " + ProcRefusal(facts, target, path, EACCES) + "\n");
  EXPECT_FALSE(Exists(dir)) << "nothing is created before the process is readable";
}

}  // namespace
}  // namespace jitscope::record
