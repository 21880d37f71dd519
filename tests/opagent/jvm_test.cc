// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End to end with a real JVM: OpenJDK runs HotLoop (examples/jvmti-opagent/HotLoop.java) with
// our JVMTI agent, which reports HotSpot's compiled methods through libopagent.so.1. The hot
// method must reach jitscope's trace and OProfile's dump with its source lines.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/jvm_table.h"
#include "jitscope/formats/oprofile_dump_reader.h"
#include "jitscope/trace/reader.h"
#include "support/byte_builder.h"
#include "support/files.h"
#include "support/folded.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace {

using jitscope::formats::OprofileDumpCodeLoad;
using jitscope::formats::OprofileDumpDebugInfo;

constexpr char kHotMethod[] = "HotLoop.mix(JI)J";

using jitscope::test_support::AsBytes;
using jitscope::test_support::Process;
using jitscope::test_support::ReadFile;
using jitscope::test_support::RunProgram;
using jitscope::test_support::TempDir;

class JvmTest : public ::testing::Test {
 protected:
  // Runs `java -agentpath:<agent> -cp <classes> HotLoop <millis>` with `formats`; returns its pid.
  pid_t RunHotLoop(const std::string& formats, const std::string& millis) {
    Process java({JITSCOPE_JAVA, std::string("-agentpath:") + JITSCOPE_JVMTI_AGENT, "-cp",
                  JITSCOPE_HOTLOOP_CLASSES, "HotLoop", millis},
                 {{"JITSCOPE_OPAGENT_DIR", dir_},
                  {"JITSCOPE_OUTPUT_DIR", dir_},
                  {"JITSCOPE_FORMATS", formats},
                  {"JITSCOPE_LOG", dir_ + "/log"}});
    const pid_t pid = java.pid();
    const auto result = java.Wait();
    EXPECT_EQ(result.exit_code, 0) << result.err << "\njitscope log:\n" << ReadFile(dir_ + "/log");
    EXPECT_NE(result.out.find("HotLoop: "), std::string::npos) << result.out;
    return pid;
  }

  // Runs `java -agentpath:<agent> -cp <classes> ARGS...` to its end; returns its pid and the
  // bytes of the JVM table the agent wrote.
  std::pair<pid_t, std::string> RunForJvmTable(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {JITSCOPE_JAVA,
                                     std::string("-agentpath:") + JITSCOPE_JVMTI_AGENT, "-cp",
                                     JITSCOPE_HOTLOOP_CLASSES};
    argv.insert(argv.end(), args.begin(), args.end());
    Process java(argv, {{"JITSCOPE_OPAGENT_DIR", dir_},
                        {"JITSCOPE_OUTPUT_DIR", dir_},
                        {"JITSCOPE_LOG", dir_ + "/log"}});
    const pid_t pid = java.pid();
    const auto result = java.Wait();
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return {pid, ReadFile(dir_ + "/jvm-" + std::to_string(pid) + ".jsm")};
  }

  // Waits until JVM `pid` has run for a second of CPU time: HotSpot has compiled mix by then.
  static void LetCompile(pid_t pid) {
    const long ticks = ::sysconf(_SC_CLK_TCK);
    for (int i = 0; i < 600 && jitscope::test_support::ProcessCpuTicks(pid) < ticks; ++i) {
      ::usleep(100 * 1000);
    }
  }

  TempDir temp_;
  const std::string dir_ = temp_.path();
};

// `record -p PID --jvm-perf-map -o SESSION` asked JVM `pid` for its map at the start and the end,
// kept the map in the session, and report names the hot method from it.
void ExpectNamedThroughItsPerfMap(const jitscope::test_support::ProcessResult& record,
                                  const std::string& session, pid_t pid) {
  ASSERT_EQ(record.exit_code, 0) << record.err;
  const std::string map = "perf-" + std::to_string(pid) + ".map";
  for (const char* when : {"at the start", "at the end"}) {
    EXPECT_NE(record.err.find("asked JVM " + std::to_string(pid) + " " + when +
                              " for its compiled code (jcmd " + std::to_string(pid) +
                              " Compiler.perfmap): "),
              std::string::npos)
        << record.err;
  }
  EXPECT_NE(ReadFile(session + "/" + map).find("HotLoop.mix(long, int)"), std::string::npos);

  const auto report = RunProgram({JITSCOPE_CLI, "report", session, "--top", "1"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("long HotLoop.mix(long, int)"), std::string::npos) << report.out;
}

// A JVM started plainly (no agent, no flags) is attached to with `record -p --jvm-perf-map`:
// record asks it for a perf map of its code cache (jcmd Compiler.perfmap) at the start and the
// end, keeps the map in the session, and report names the hot compiled method from it.
TEST_F(JvmTest, APlainJvmIsNamedThroughThePerfMapRecordAsksItFor) {
  // Killed once recorded: it runs for as long as a busy machine takes.
  Process java({JITSCOPE_JAVA, "-cp", JITSCOPE_HOTLOOP_CLASSES, "HotLoop", "600000"}, {});
  const pid_t pid = java.pid();
  ASSERT_GT(pid, 0);
  LetCompile(pid);
  const std::string session = dir_ + "/session";
  const auto record =
      RunProgram({JITSCOPE_CLI, "record", "-p", std::to_string(pid), "--jvm-perf-map", "-o",
                  session, "--", CPU_TIME, "wait", "0.5", std::to_string(pid)});
  ::kill(pid, SIGKILL);
  java.Wait();
  ::unlink(("/tmp/perf-" + std::to_string(pid) + ".map").c_str());
  ExpectNamedThroughItsPerfMap(record, session, pid);

  // Without -p or -a there is no running JVM to ask.
  const auto refused = RunProgram({JITSCOPE_CLI, "record", "--jvm-perf-map", "--", "true"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--jvm-perf-map applies to -p or -a"), std::string::npos)
      << refused.err;
}

// A JVM started plainly is attached to with `record -p --jvm-agent`: record loads jitscope's
// JVMTI agent into it (jcmd JVMTI.agent_load) before the recording starts, the agent reports the
// methods compiled before it arrived (GenerateEvents) into a trace in the session, and report
// names the hot method and its lines from it. A second record loads the agent again into a new
// session, and does as well.
TEST_F(JvmTest, APlainJvmIsNamedThroughTheAgentRecordLoadsIntoIt) {
  // Plain but for one thing: HotSpot may compile mix() inlined into main()'s loop (OSR), and the
  // hot method would then be main(); kept a method of its own, it is the hot one every time.
  Process java(
      {JITSCOPE_JAVA, "-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,HotLoop::mix",
       "-cp", JITSCOPE_HOTLOOP_CLASSES, "HotLoop", "600000"},
      {});
  const pid_t pid = java.pid();
  ASSERT_GT(pid, 0);
  LetCompile(pid);
  const std::string agent = JITSCOPE_JVMTI_AGENT;
  std::vector<std::string> sessions;
  std::vector<jitscope::test_support::ProcessResult> records;
  for (const char* name : {"first", "second"}) {
    sessions.push_back(dir_ + "/" + name);
    records.push_back(
        RunProgram({JITSCOPE_CLI, "record", "-p", std::to_string(pid), "--jvm-agent", "-o",
                    sessions.back(), "--", CPU_TIME, "wait", "0.5", std::to_string(pid)}));
  }
  ::kill(pid, SIGKILL);
  const auto java_result = java.Wait();
  EXPECT_EQ(java_result.err, "") << "the agent says nothing on the JVM's stderr";

  const std::string trace = "jit-" + std::to_string(pid) + ".jsc";
  for (size_t i = 0; i < sessions.size(); ++i) {
    const std::string& session = sessions[i];
    ASSERT_EQ(records[i].exit_code, 0) << records[i].err;
    const std::string jcmd = "jcmd " + std::to_string(pid) + " JVMTI.agent_load \"" + agent + "\"";
    EXPECT_NE(records[i].err.find("loaded jitscope's JVMTI agent into JVM " + std::to_string(pid) +
                                  " (" + jcmd + " \"dir=" + session +
                                  "\"): its compiled code is reported into " + session + "/" +
                                  trace + "\n"),
              std::string::npos)
        << records[i].err;
    EXPECT_NE(records[i].err.find("stopped the agent in JVM " + std::to_string(pid) + " (" + jcmd +
                                  " \"stop\"); it stays loaded, idle\n"),
              std::string::npos)
        << records[i].err;
    EXPECT_NE(ReadFile(session + "/session.json").find("\"jvm_agent\":true"), std::string::npos);

    // The trace has the hot method, replayed (it was compiled before the agent came), with the
    // lines of its pc→bci map: HotLoop.java 9-16 (C2's code of mix() maps only its loop's
    // safepoint, at line 10; the code before it has no line).
    auto file = jitscope::trace::TraceFile::Open(session + "/" + trace);
    ASSERT_TRUE(file.ok()) << file.status().message();
    std::set<uint64_t> hot_loads;
    std::set<uint32_t> hot_lines;
    bool closed = false;
    for (const auto& record : file->trace().records) {
      if (const auto* load = std::get_if<jitscope::trace::OprofileCodeLoadEvent>(&record.event)) {
        if (load->name == kHotMethod) hot_loads.insert(load->address);
      } else if (const auto* lines =
                     std::get_if<jitscope::trace::OprofileDebugLinesEvent>(&record.event)) {
        if (hot_loads.count(lines->address) == 0) continue;
        for (const auto& entry : lines->lines) {
          EXPECT_EQ(lines->files[entry.file], "HotLoop.java");
          hot_lines.insert(entry.line);
        }
      }
      closed |= std::holds_alternative<jitscope::trace::OprofileCloseEvent>(record.event);
    }
    EXPECT_FALSE(hot_loads.empty()) << kHotMethod << " is not in " << session << "/" << trace;
    ASSERT_FALSE(hot_lines.empty());
    EXPECT_GE(*hot_lines.begin(), 9u);
    EXPECT_LE(*hot_lines.rbegin(), 16u);
    EXPECT_TRUE(closed) << "record stops the agent when the recording ends";

    // report names the hot method exactly, in its source file: the top entry's row.
    const auto report = RunProgram({JITSCOPE_CLI, "report", session, "--top", "1"});
    ASSERT_EQ(report.exit_code, 0) << report.err;
    const size_t at = report.out.find(std::string(" ") + kHotMethod + " ");
    ASSERT_NE(at, std::string::npos) << report.out;
    const std::string row = report.out.substr(at, report.out.find('\n', at) - at);
    EXPECT_NE(row.find(" [jit] "), std::string::npos) << report.out;
    EXPECT_TRUE(row.ends_with(" HotLoop.java")) << report.out;
  }

  // Without -p or -a it is the default for the JVMs the command starts: accepted.
  const auto command =
      RunProgram({JITSCOPE_CLI, "record", "--jvm-agent", "-o", dir_ + "/command", "--", "true"});
  EXPECT_EQ(command.exit_code, 0) << command.err;
  const auto both = RunProgram({JITSCOPE_CLI, "record", "--jvm-agent", "--no-jvm-agent", "-o",
                                dir_ + "/both", "--", "true"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--jvm-agent and --no-jvm-agent: give one"), std::string::npos)
      << both.err;
}

// A JVM started with the agent reports as it was told to: record -p --jvm-agent neither moves
// its reporting into the session nor stops it, and says so.
TEST_F(JvmTest, AJvmStartedWithTheAgentKeepsItsOwnReporting) {
  const std::string own = dir_ + "/own";
  ASSERT_EQ(::mkdir(own.c_str(), 0700), 0);
  // It runs until the recording has ended, however long a busy machine takes, then is asked to
  // end (SIGTERM: the JVM shuts down as on System.exit, unloading the agent).
  Process java({JITSCOPE_JAVA, std::string("-agentpath:") + JITSCOPE_JVMTI_AGENT + "=dir=" + own,
                "-cp", JITSCOPE_HOTLOOP_CLASSES, "HotLoop", "600000"},
               {});
  const pid_t pid = java.pid();
  ASSERT_GT(pid, 0);
  LetCompile(pid);
  const std::string session = dir_ + "/session";
  const auto record = RunProgram({JITSCOPE_CLI, "record", "-p", std::to_string(pid), "--jvm-agent",
                                  "-o", session, "--", "sleep", "0.2"});
  ::kill(pid, SIGTERM);
  const auto java_result = java.Wait();
  ASSERT_EQ(record.exit_code, 0) << record.err;
  EXPECT_NE(record.err.find("the JVM was started with the agent (-agentpath), which reports where "
                            "the JVM told it to (its dir= option or JITSCOPE_OUTPUT_DIR); left as "
                            "it is\n"),
            std::string::npos)
      << record.err;
  EXPECT_EQ(record.err.find("stopped the agent"), std::string::npos) << record.err;
  const std::string trace = "jit-" + std::to_string(pid) + ".jsc";
  EXPECT_FALSE(std::filesystem::exists(session + "/" + trace));

  // Its own trace goes on to the JVM's exit: loads after the recording, one close, at the end.
  auto file = jitscope::trace::TraceFile::Open(own + "/" + trace);
  ASSERT_TRUE(file.ok()) << file.status().message() << java_result.err;
  size_t closes = 0;
  bool hot = false;
  for (const auto& record : file->trace().records) {
    if (const auto* load = std::get_if<jitscope::trace::OprofileCodeLoadEvent>(&record.event)) {
      hot |= load->name == kHotMethod;
    }
    closes += std::holds_alternative<jitscope::trace::OprofileCloseEvent>(record.event);
  }
  EXPECT_TRUE(hot);
  EXPECT_EQ(closes, 1u);
  EXPECT_TRUE(std::holds_alternative<jitscope::trace::OprofileCloseEvent>(
      file->trace().records.back().event));
}

// A JVM in a container (PID and mount namespaces of its own, a private /tmp): jcmd reaches it
// from the host, and it writes its map into its own /tmp as perf-1.map, which record copies as
// perf-PID.map (record/container_files.h).
TEST_F(JvmTest, AJvmInAContainerIsNamedThroughThePerfMapInItsOwnTmp) {
  Process unshare({JITSCOPE_UNSHARE, "--pid", "--fork", "--mount", "--mount-proc", "/bin/sh", "-c",
                   // Its classes may be under /tmp, which the tmpfs hides (a JVM opens its class
                   // path by name): copied into the new /tmp from its working directory, which
                   // stays the old one under the new mount.
                   "cd \"$1\" && mount -t tmpfs tmpfs /tmp && mkdir /tmp/classes && "
                   "cp -R . /tmp/classes && cd / && exec \"$0\" -cp /tmp/classes HotLoop 600000",
                   JITSCOPE_JAVA, JITSCOPE_HOTLOOP_CLASSES},
                  {});
  // HotSpot compiles mix within its first second.
  const pid_t pid =
      jitscope::test_support::WaitForChild(unshare.pid(), "java", ::sysconf(_SC_CLK_TCK));
  ASSERT_GT(pid, 0) << "java never ran in its namespaces";
  const std::string session = dir_ + "/session";
  const auto record =
      RunProgram({JITSCOPE_CLI, "record", "-p", std::to_string(pid), "--jvm-perf-map", "-o",
                  session, "--", CPU_TIME, "wait", "0.5", std::to_string(pid)});
  // SIGKILL: java is its namespace's init.
  ::kill(pid, SIGKILL);
  unshare.Wait();
  ExpectNamedThroughItsPerfMap(record, session, pid);
}

TEST_F(JvmTest, HotJavaMethodsReachTheTraceAndTheDumpWithSourceLines) {
  const pid_t pid = RunHotLoop("trace", "1000");

  auto file = jitscope::trace::TraceFile::Open(dir_ + "/jit-" + std::to_string(pid) + ".jsc");
  ASSERT_TRUE(file.ok()) << file.status().message();
  const auto& trace = file->trace();
  EXPECT_TRUE(trace.damage.ok());
  std::set<uint64_t> hot_loads;  // addresses of HotLoop.mix's compiled versions
  std::set<uint32_t> hot_lines;  // source lines reported for them
  bool interpreter = false, closed = false;
  size_t rejected = 0;
  for (const auto& record : trace.records) {
    if (const auto* load = std::get_if<jitscope::trace::OprofileCodeLoadEvent>(&record.event)) {
      if (load->name == kHotMethod) {
        hot_loads.insert(load->address);
        EXPECT_EQ(load->code.size(), load->size) << "the JVMTI agent passes the code pointer";
      }
      interpreter |= load->name == "Interpreter";
    } else if (const auto* lines =
                   std::get_if<jitscope::trace::OprofileDebugLinesEvent>(&record.event)) {
      if (hot_loads.count(lines->address) == 0) continue;
      for (const auto& entry : lines->lines) {
        EXPECT_EQ(lines->files[entry.file], "HotLoop.java");
        EXPECT_GE(entry.address, lines->address);
        EXPECT_LT(entry.address, lines->address + lines->size);
        hot_lines.insert(entry.line);
      }
    } else if (std::holds_alternative<jitscope::trace::RejectedEvent>(record.event)) {
      ++rejected;
    } else {
      closed |= std::holds_alternative<jitscope::trace::OprofileCloseEvent>(record.event);
    }
  }
  EXPECT_FALSE(hot_loads.empty()) << kHotMethod << " was never compiled";
  // mix() spans HotLoop.java lines 9-16; its loop body (lines 11-14) is where the time goes.
  ASSERT_FALSE(hot_lines.empty());
  EXPECT_GE(*hot_lines.begin(), 9u);
  EXPECT_LE(*hot_lines.rbegin(), 16u);
  EXPECT_TRUE(hot_lines.count(11) || hot_lines.count(12) || hot_lines.count(13) ||
              hot_lines.count(14));
  EXPECT_TRUE(interpreter) << "DynamicCodeGenerated events reach op_write_native_code";
  EXPECT_TRUE(closed) << "Agent_OnUnload closes the agent";
  EXPECT_EQ(rejected, 0u);

  // OProfile's dump has the same method, its code bytes and its lines, keyed by the code pointer.
  const std::string bytes = ReadFile(dir_ + "/" + std::to_string(pid) + ".dump");
  auto dump = jitscope::formats::ParseOprofileDump(AsBytes(bytes), std::to_string(pid) + ".dump");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_TRUE(dump->error.ok()) << dump->error.message();
  std::set<uint64_t> dump_hot;
  size_t dump_hot_lines = 0;
  for (const auto& record : dump->records) {
    if (const auto* load = std::get_if<OprofileDumpCodeLoad>(&record.body)) {
      if (load->name == kHotMethod) {
        dump_hot.insert(load->code_addr);
        EXPECT_EQ(load->code.size(), load->code_size);
      }
    } else if (const auto* info = std::get_if<OprofileDumpDebugInfo>(&record.body)) {
      if (dump_hot.count(info->code_addr) != 0) dump_hot_lines += info->lines.size();
    }
  }
  EXPECT_EQ(dump_hot, hot_loads);
  EXPECT_GT(dump_hot_lines, 0u);
}

// The agent's JVM table (jvm-PID.jsm) beside the trace: every method of CallChain that ran, by the
// Method* an interpreter frame holds, with where its bytecodes are and its lines (the constructor,
// which never runs, is in no frame, and not named), and, once C2 compiles CallChain.b with c
// inlined (it runs 20,000 times), the inline scopes of that code.
TEST_F(JvmTest, TheJvmTableNamesMethodsByMethodPointerAndCompiledCodesInlineScopes) {
  const auto [pid, bytes] = RunForJvmTable({"CallChain", "3000", "20000"});
  auto table = jitscope::formats::ParseJvmTable(AsBytes(bytes), "jvm.jsm");
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_TRUE(table->error.ok()) << table->error.message();
  EXPECT_EQ(table->pid, static_cast<uint32_t>(pid));
  std::map<std::string, const jitscope::formats::JvmMethod*> chain;
  for (const auto& method : table->methods) {
    if (method.class_name == "CallChain") chain[std::string(method.name)] = &method;
  }
  ASSERT_EQ(chain.size(), 4u) << "main, a, b and c";
  EXPECT_FALSE(chain.contains("<init>")) << "CallChain's constructor never runs";
  for (const auto& [name, method] : chain) {
    EXPECT_NE(method->code_base, 0u) << name << ": HotSpot's VMStructs say where bytecodes are";
    EXPECT_GT(method->code_size, 0u) << name;
    EXPECT_EQ(method->file, "CallChain.java") << name;
    EXPECT_FALSE(method->lines.empty()) << name;
    EXPECT_EQ(method->until_ns, jitscope::formats::kJvmForever) << name;
  }
  EXPECT_EQ(chain["c"]->signature, "(JI)J");
  EXPECT_EQ(chain["c"]->code_size, 46u) << "javac's bytecodes of c";
  // c's line table, as javap -l prints it (the agent reads HotSpot's compressed copy).
  std::vector<std::pair<uint32_t, uint32_t>> c_lines;
  for (const auto& line : chain["c"]->lines) c_lines.emplace_back(line.start_bci, line.line);
  EXPECT_EQ(c_lines,
            (std::vector<std::pair<uint32_t, uint32_t>>{
                {0, 14}, {2, 15}, {11, 16}, {18, 17}, {25, 18}, {32, 19}, {38, 15}, {44, 21}}));
  bool inlined = false;
  for (const auto& code : table->compiled) {
    for (const auto& pc : code.pcs) {
      if (pc.frames < 2) continue;
      const auto& inner = code.frames[pc.first_frame];
      const auto& outer = code.frames[pc.first_frame + pc.frames - 1];
      inlined |= inner.method == chain["c"]->method && outer.method == chain["b"]->method;
    }
  }
  EXPECT_TRUE(inlined) << "C2 compiled CallChain.b with c inlined";
}

// Classes unloaded, and their methods' memory reused by the next ones: each entry of the JVM
// table ends at the last time the agent saw its Method* hold the method, before another method
// of the same Method* begins, so no sample can be named from an entry whose method was gone.
TEST_F(JvmTest, UnloadedMethodsEndBeforeTheirMemoryHoldsAnother) {
  constexpr int kRounds = 5;
  const std::string bytes =
      RunForJvmTable({"Unloading", std::string(JITSCOPE_HOTLOOP_CLASSES) + "/unloadable",
                      std::to_string(kRounds)})
          .second;
  auto table = jitscope::formats::ParseJvmTable(AsBytes(bytes), "jvm.jsm");
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_TRUE(table->error.ok()) << table->error.message();
  std::map<uint64_t, std::vector<const jitscope::formats::JvmMethod*>> by_method;
  size_t works = 0, ended = 0;
  for (const auto& method : table->methods) {
    if (method.class_name != "Unloadable") continue;
    by_method[method.method].push_back(&method);
    works += method.name == "work";
    ended += method.until_ns != jitscope::formats::kJvmForever;
  }
  EXPECT_EQ(works, static_cast<size_t>(kRounds)) << "one class, one Unloadable.work, a round";
  // The last round's class may still be loaded at exit; the others were unloaded (HotSpot
  // unloads a class whose loader is unreachable at a full collection).
  EXPECT_GE(ended, 2u * (kRounds - 1));
  for (auto& [method, entries] : by_method) {
    std::sort(entries.begin(), entries.end(),
              [](auto* a, auto* b) { return a->since_ns < b->since_ns; });
    for (size_t i = 0; i + 1 < entries.size(); ++i) {
      EXPECT_NE(entries[i]->until_ns, jitscope::formats::kJvmForever);
      EXPECT_LE(entries[i]->until_ns, entries[i + 1]->since_ns) << std::hex << method;
    }
  }
  EXPECT_EQ(table->unmatched_ends, 0u);
}

// The ground truth: CallChain runs main → a → b → c, c nearly all the time. `jitscope record --
// java ...` gives the JVM the JVMTI agent by itself, and report walks each sample from c through
// HotSpot's interpreter (main and a stay interpreted; under -Xint all four do) and the code C2
// compiled (b, with c inlined), by rules, to the thread's entry, naming every Java frame.
struct ChainShare {
  uint64_t program = 0;  // samples with CallChain.main, or whose walk did not reach the entry
  uint64_t exact = 0;    // complete by rule, with exactly main, a, b, c as their Java frames
  uint64_t inlined = 0;  // of those, with c inlined into b's code
};

ChainShare ChainOf(const std::vector<jitscope::test_support::FoldedStack>& stacks) {
  static const std::set<std::string> kEntries = {"start_thread", "_start", "__libc_start_call_main",
                                                 "clone3", "__GI___clone3"};
  // Folded output writes a name's ';' as ':' (';' separates its frames).
  const std::vector<std::string> chain = {"CallChain.main([Ljava/lang/String:)V_[j]",
                                          "CallChain.a(JI)J_[j]", "CallChain.b(JI)J_[j]"};
  ChainShare share;
  for (const auto& stack : stacks) {
    bool complete = kEntries.contains(stack.frames.front());
    bool in_main = false;
    std::vector<std::string> java;
    for (const std::string& frame : stack.frames) {
      complete &= frame != "[frame-pointer chain]" && frame != "[unknown]";
      in_main |= frame.starts_with("CallChain.main(");
      if (frame.starts_with("CallChain.")) java.push_back(frame);
    }
    if (complete && !in_main) continue;  // another thread's, or before main
    share.program += stack.samples;
    if (!complete || java.size() != 4 || !std::equal(chain.begin(), chain.end(), java.begin()) ||
        !java[3].starts_with("CallChain.c(JI)J_[")) {
      continue;
    }
    share.exact += stack.samples;
    if (java[3] == "CallChain.c(JI)J_[i]") share.inlined += stack.samples;
  }
  return share;
}

TEST_F(JvmTest, RecordGivesAJvmTheAgentAndEveryJavaFrameOfTheGroundTruthIsWalkedAndNamed) {
  for (const bool interpreted : {false, true}) {
    SCOPED_TRACE(interpreted ? "-Xint" : "mixed mode");
    const std::string session = dir_ + (interpreted ? "/xint" : "/mixed");
    // A fixed amount of work, whatever the machine's speed: 50 calls of a, c running 60,000
    // iterations, compiled; 4 calls, 60,000 iterations, interpreted (each a second or two).
    std::vector<std::string> command = {JITSCOPE_CLI, "record", "-o", session, "--", JITSCOPE_JAVA};
    if (interpreted) command.push_back("-Xint");
    for (const char* arg : {"-cp", JITSCOPE_HOTLOOP_CLASSES, "CallChain", "600000"}) {
      command.push_back(arg);
    }
    command.push_back("60000");
    command.push_back(interpreted ? "4" : "50");
    const auto record = RunProgram(command);
    ASSERT_EQ(record.exit_code, 0) << record.err;
    EXPECT_NE(record.err.find("Picked up JAVA_TOOL_OPTIONS: -agentpath:"), std::string::npos)
        << record.err;
    EXPECT_NE(record.err.find("was named through jitscope's JVMTI agent, which record gave the "
                              "JVMs it started (JAVA_TOOL_OPTIONS=-agentpath:"),
              std::string::npos)
        << record.err;

    const auto folded = RunProgram({JITSCOPE_CLI, "report", session, "--format", "folded"});
    ASSERT_EQ(folded.exit_code, 0) << folded.err;
    const ChainShare share = ChainOf(jitscope::test_support::ParseFolded(folded.out));
    ASSERT_GT(share.program, 500u) << "a second of a CPU-bound main thread at least";
    // The goal is 95%; the few left are true stacks too (a's own loop, C2 and the
    // interpreter calling into the VM), and walks refused at a method entry's first instructions.
    EXPECT_GT(share.exact * 100, share.program * 90) << share.exact << " of " << share.program;
    if (interpreted) {
      EXPECT_EQ(share.inlined, 0u);
    } else {
      EXPECT_GT(share.inlined * 2, share.exact) << "C2 inlined c into b early in the run";
    }

    // Every sample that ran in the interpreter is named from the JVM table.
    const auto text = RunProgram({JITSCOPE_CLI, "report", session, "--top", "3"});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    const size_t at = text.out.find("# Java interpreter frames: ");
    ASSERT_NE(at, std::string::npos) << text.out;
    const std::string line = text.out.substr(at, text.out.find('\n', at) - at);
    unsigned long long named = 0, running = 0;
    const size_t counts = line.find("; ");
    ASSERT_EQ(
        std::sscanf(line.c_str() + counts, "; %llu of %llu samples running", &named, &running), 2)
        << line;
    EXPECT_GT(running, interpreted ? 500u : 0u) << line;
    EXPECT_GE(named * 100, running * 95) << line;
  }
}

// OpenJDK with only a perf map (-XX:+DumpPerfMapAtExit, record told to leave the agent out): the
// names come from the map and the rules from the code record reads from the running JVM. Every
// walk out of Java code passes HotSpot's call stub, which the map names only as part of a blob of
// many stubs, `StubRoutines (1)`: analysed as stubs laid end to end, the blob gives the call
// stub's rules and its return address, and the walks go on through it into the VM
// (JavaCalls::call_helper) and to the thread's entry, every step by a rule. The ground truth
// runs a fixed amount of work: most of it in b, which C2 compiles with c inlined, called by a and
// main, which stay interpreted (the map names no interpreted method: Interpreter). Before that,
// c runs called from b's code by C1, which HotSpot makes not entrant once C2's is installed, with
// a jump over its entry; the read of that code after the patch answers for the samples since the
// read before it, and the walks of c's samples go on through b by the rules of the code after
// the jump.
TEST_F(JvmTest, AJvmWithOnlyAPerfMapIsWalkedByRulesThroughItsCallStub) {
  const std::string session = dir_ + "/perfmap";
  const auto record =
      RunProgram({JITSCOPE_CLI, "record", "--call-graph", "dwarf", "--no-jvm-agent", "-o", session,
                  "--", JITSCOPE_JAVA, "-XX:+UnlockDiagnosticVMOptions", "-XX:+DumpPerfMapAtExit",
                  "-cp", JITSCOPE_HOTLOOP_CLASSES, "CallChain", "600000", "60000", "50"});
  jitscope::test_support::RemovePerfMapsKeptIn(session);
  ASSERT_EQ(record.exit_code, 0) << record.err;

  const auto folded =
      RunProgram({JITSCOPE_CLI, "report", session, "--format", "folded", "--mark-guesses"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  const auto stacks = jitscope::test_support::ParseFolded(folded.out);
  const std::string call_helper =
      "JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, JavaThread*)";
  const std::string leaf = "long CallChain.b(long, int)_[j]";
  const auto share = jitscope::test_support::ShareWalkedThrough(
      stacks, leaf,
      {call_helper, "StubRoutines (1)_[j]", "Interpreter_[j]", "Interpreter_[j]", leaf},
      /*from_entry=*/true);
  ASSERT_GT(share.total, 500u) << folded.out;
  EXPECT_GE(share.complete * 100, share.total * 95)
      << share.complete << " of " << share.total << "\n"
      << folded.out;
  // c called from b, interpreted or compiled by C1 (whichever, the walk passes a and main).
  const auto callee = jitscope::test_support::ShareWalkedThrough(
      stacks, "long CallChain.c(long, int)_[j]",
      {call_helper, "StubRoutines (1)_[j]", "Interpreter_[j]", "Interpreter_[j]"},
      /*from_entry=*/true);
  ASSERT_GT(callee.total, 100u) << folded.out;
  EXPECT_GE(callee.complete * 100, callee.total * 95)
      << callee.complete << " of " << callee.total << "\n"
      << folded.out;
}

// The full perf chain: perf record -k 1 of the JVM writing a perf jitdump through the agent,
// perf inject --jit, perf report: the hot method is named, with its source lines. -N: no copies
// in ~/.debug, the build-id cache the perf runs of other tests read at the same time.
TEST_F(JvmTest, PerfReportNamesTheHotJavaMethodWithItsLines) {
  const std::string data = dir_ + "/perf.data", injected = dir_ + "/perf.jit.data";
  Process record({JITSCOPE_PERF, "record", "-N", "-k", "1", "-F", "999", "-o", data, "--",
                  JITSCOPE_JAVA, std::string("-agentpath:") + JITSCOPE_JVMTI_AGENT, "-cp",
                  JITSCOPE_HOTLOOP_CLASSES, "HotLoop", "1000"},
                 {{"JITSCOPE_OPAGENT_DIR", dir_},
                  {"JITSCOPE_OUTPUT_DIR", dir_},
                  {"JITSCOPE_FORMATS", "trace,jitdump"},
                  {"JITSCOPE_LOG", dir_ + "/log"}});
  const auto recorded = record.Wait();
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err << ReadFile(dir_ + "/log");
  const auto inject = RunProgram({JITSCOPE_PERF, "inject", "--jit", "-i", data, "-o", injected});
  ASSERT_EQ(inject.exit_code, 0) << inject.err;
  const auto report = RunProgram({JITSCOPE_PERF, "report", "-i", injected, "--stdio",
                                  "--no-children", "--sort", "sym,srcline", "-g", "none"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  // The hottest line of the report is the hot method, at one of its loop's lines (11-14).
  const size_t first = report.out.find("[.] ");
  ASSERT_NE(first, std::string::npos) << report.out;
  const std::string top = report.out.substr(first, report.out.find('\n', first) - first);
  EXPECT_NE(top.find(kHotMethod), std::string::npos) << report.out;
  EXPECT_NE(top.find("HotLoop.java:1"), std::string::npos) << report.out;
}

}  // namespace
