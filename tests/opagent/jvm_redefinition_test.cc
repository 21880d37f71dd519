// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Class redefinition under the JVMTI agent's JVM table, end to end with a real JVM: Redefining
// (examples/jvmti-opagent/Redefining.java) redefines its class Redefined from version 1
// (Redefined.java: hot calls before) to version 2 (redefined/Redefined.java: hot calls after) and
// back, round after round. Each version's methods are new Method*s, and HotSpot reuses the memory
// of one version's methods for a later version's, not always for the same method; the table must
// end each entry before its Method* holds another, name each version from its own bytecodes and
// lines, and report must never name a frame from the wrong one. A version's lines differ from the
// other's for every method, so a frame's line says which version the table named it from.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/jvm_table.h"
#include "support/byte_builder.h"
#include "support/files.h"
#include "support/process.h"
#include "support/redefined_versions.h"
#include "support/temp_dir.h"

namespace {

using jitscope::formats::JvmMethod;
using jitscope::formats::kJvmForever;
using jitscope::test_support::CheckRedefinedStacks;
using jitscope::test_support::LineTable;
using jitscope::test_support::ProcessResult;
using jitscope::test_support::RedefinedMethods;
using jitscope::test_support::RedefinedShare;
using jitscope::test_support::RunProgram;

const std::string kRedefiningJar = std::string(JITSCOPE_HOTLOOP_CLASSES) + "/redefining.jar";
const std::string kVersion2Dir = std::string(JITSCOPE_HOTLOOP_CLASSES) + "/redefined";

// The version of Redefined whose line table `method` has: 1 or 2; 0 for neither (a wrong table).
int VersionOf(const JvmMethod& method) {
  const auto known = RedefinedMethods().find(std::string(method.name));
  if (known == RedefinedMethods().end()) return 0;
  LineTable lines;
  for (const auto& line : method.lines) lines.emplace_back(line.start_bci, line.line);
  for (int version : {1, 2}) {
    if (lines == known->second.lines[version - 1]) return version;
  }
  return 0;
}

// The versions of each Redefined method's entries in the order they began, checked on the way:
// every entry is of a method of Redefined as javac wrote one of its versions; the entries of one
// Method* never overlap, whatever methods it held (each ends before the next begins), and
// neither do those of one method (two versions are never both current).
std::map<std::string, std::string> CheckRedefinedEntries(
    const jitscope::formats::ParsedJvmTable& table) {
  std::map<uint64_t, std::vector<const JvmMethod*>> by_pointer;
  std::map<std::string, std::vector<const JvmMethod*>> by_name;
  for (const auto& method : table.methods) {
    if (method.class_name != "Redefined") continue;
    by_pointer[method.method].push_back(&method);
    by_name[std::string(method.name)].push_back(&method);
    const auto known = RedefinedMethods().find(std::string(method.name));
    if (known == RedefinedMethods().end()) {
      ADD_FAILURE() << "Redefined has no method " << method.name;
      continue;
    }
    EXPECT_EQ(method.signature, known->second.signature) << method.name;
    EXPECT_EQ(method.code_size, known->second.code_size) << method.name;
    EXPECT_NE(method.code_base, 0u) << method.name;
    EXPECT_EQ(method.file, "Redefined.java") << method.name;
    EXPECT_NE(VersionOf(method), 0) << method.name << ": a line table of neither version";
    EXPECT_LE(method.since_ns, method.until_ns) << method.name;
  }
  // Entries of other classes may have held a Method* of Redefined's before or after.
  for (const auto& method : table.methods) {
    if (method.class_name == "Redefined") continue;
    if (auto it = by_pointer.find(method.method); it != by_pointer.end()) {
      it->second.push_back(&method);
    }
  }
  const auto by_start = [](const JvmMethod* a, const JvmMethod* b) {
    return a->since_ns < b->since_ns;
  };
  const auto expect_in_turn = [](const std::vector<const JvmMethod*>& entries,
                                 const std::string& what) {
    for (size_t i = 0; i + 1 < entries.size(); ++i) {
      EXPECT_NE(entries[i]->until_ns, kJvmForever) << what << ": entry " << i << " never ends";
      EXPECT_LE(entries[i]->until_ns, entries[i + 1]->since_ns)
          << what << ": entry " << i << " (" << entries[i]->name << ") overlaps the next ("
          << entries[i + 1]->name << ")";
    }
  };
  for (auto& [pointer, entries] : by_pointer) {
    std::sort(entries.begin(), entries.end(), by_start);
    expect_in_turn(entries, "Method* " + std::to_string(pointer));
  }
  std::map<std::string, std::string> versions;
  for (auto& [name, entries] : by_name) {
    std::sort(entries.begin(), entries.end(), by_start);
    expect_in_turn(entries, "Redefined." + name);
    for (const JvmMethod* entry : entries) versions[name] += std::to_string(VersionOf(*entry));
  }
  EXPECT_EQ(table.unmatched_ends, 0u);
  return versions;
}

class JvmRedefinitionTest : public ::testing::Test {
 protected:
  // Runs Redefining with the agent (its arguments after the class directory: rounds, calls,
  // iterations, pause), `mode` the JVM's ("-Xint" or "-Xmixed"), and checks it ran `versions`;
  // returns its JVM table, parsed (its names point into bytes_, until the next run).
  jitscope::formats::ParsedJvmTable RunWithTheAgent(const std::string& mode,
                                                    const std::vector<std::string>& args,
                                                    const std::string& versions) {
    std::vector<std::string> argv = {
        JITSCOPE_JAVA,  std::string("-agentpath:") + JITSCOPE_JVMTI_AGENT,
        mode,           "-jar",
        kRedefiningJar, kVersion2Dir};
    argv.insert(argv.end(), args.begin(), args.end());
    jitscope::test_support::Process java(argv, {{"JITSCOPE_OPAGENT_DIR", dir_},
                                                {"JITSCOPE_OUTPUT_DIR", dir_},
                                                {"JITSCOPE_LOG", dir_ + "/log"}});
    const pid_t pid = java.pid();
    const ProcessResult result = java.Wait();
    out_ = result.out;
    EXPECT_TRUE(result.ok()) << result.Describe();
    EXPECT_TRUE(result.out.starts_with("Redefining: versions " + versions + ", checksum "))
        << result.out;
    bytes_ = jitscope::test_support::ReadFile(dir_ + "/jvm-" + std::to_string(pid) + ".jsm");
    auto table =
        jitscope::formats::ParseJvmTable(jitscope::test_support::AsBytes(bytes_), "jvm.jsm");
    EXPECT_TRUE(table.ok()) << table.status().message();
    if (!table.ok()) return {};
    EXPECT_TRUE(table->error.ok()) << table->error.message();
    EXPECT_EQ(table->pid, static_cast<uint32_t>(pid));
    return *std::move(table);
  }

  jitscope::test_support::TempDir temp_;
  const std::string dir_ = temp_.path();
  std::string bytes_;  // the last run's JVM table
  std::string out_;    // and what it printed
};

// Six rounds, versions 1, 2, 1, 2, 1, 2, the program pausing 300 ms around each round's work
// (the agent reads the slots every 100 ms): the agent sees every version, and names each of its
// methods that may be met in a frame from that version's own bytecodes and lines, in turn. Under
// -Xint that is every method; in mixed mode, those that ran: hot and version in every round,
// before only in version 1's (version 2's hot calls after), after only in version 2's, the
// constructor never.
TEST_F(JvmRedefinitionTest, EveryVersionIsNamedInTurnAndNoMethodPointerHoldsTwoAtOnce) {
  for (const std::string mode : {"-Xint", "-Xmixed"}) {
    SCOPED_TRACE(mode);
    const auto table = RunWithTheAgent(mode, {"6", "2", "100000", "300"}, "1 2 1 2 1 2");
    const auto versions = CheckRedefinedEntries(table);
    if (mode == "-Xint") {
      EXPECT_EQ(versions, (std::map<std::string, std::string>{{"<init>", "121212"},
                                                              {"version", "121212"},
                                                              {"hot", "121212"},
                                                              {"before", "121212"},
                                                              {"after", "121212"}}));
    } else {
      EXPECT_EQ(
          versions,
          (std::map<std::string, std::string>{
              {"version", "121212"}, {"hot", "121212"}, {"before", "111"}, {"after", "222"}}));
    }
  }
}

// Redefined 1,000 times with no pause: versions come and go between the agent's looks, and the
// memory of one version's methods holds the next but one's (often another method's) before the
// agent looks again. Whatever it missed, no entry overlaps another of its Method* or of its
// method, each is a version's true table, and the agent follows every method to the end: when
// the table closes, each has an entry of the last version (2), open.
TEST_F(JvmRedefinitionTest, VersionsThatComeAndGoBetweenTheAgentsLooksNeverOverlap) {
  std::string expected;
  for (int round = 0; round < 1000; ++round) expected += round % 2 == 0 ? " 1" : " 2";
  const auto table = RunWithTheAgent("-Xint", {"1000", "1", "100000", "0"}, expected.substr(1));
  const auto versions = CheckRedefinedEntries(table);
  std::map<std::string, const JvmMethod*> last;
  for (const auto& method : table.methods) {
    if (method.class_name != "Redefined") continue;
    const JvmMethod*& latest = last[std::string(method.name)];
    if (latest == nullptr || method.since_ns >= latest->since_ns) latest = &method;
  }
  ASSERT_EQ(last.size(), RedefinedMethods().size());
  for (const auto& [name, method] : last) {
    EXPECT_EQ(VersionOf(*method), 2) << name << ": " << versions.at(name);
    EXPECT_EQ(method->until_ns, kJvmForever) << name << ": " << versions.at(name);
  }
}

// When each burst of redefinitions began and ended, as Redefining prints them ("burst <begin>
// <end>" lines, CLOCK_MONOTONIC nanoseconds).
std::vector<std::pair<uint64_t, uint64_t>> BurstsIn(const std::string& out) {
  std::vector<std::pair<uint64_t, uint64_t>> bursts;
  for (size_t at = out.find("\nburst "); at != std::string::npos;
       at = out.find("\nburst ", at + 1)) {
    unsigned long long begin = 0, end = 0;
    if (std::sscanf(out.c_str() + at, "\nburst %llu %llu", &begin, &end) == 2) {
      bursts.emplace_back(begin, end);
    }
  }
  return bursts;
}

// Eight rounds, each after the first redefining Redefined 12 times in a row (from version 1 to 2
// and back, in about 10 ms: mostly between two of the agent's looks) and pausing 300 ms around
// its work. HotSpot gives a redefinition's methods the memory of the methods it freed at once;
// after 12, OpenJDK 17 has given every method of version 1 the very Method* it had before the
// burst, so that its slot holds the same Method* at the agent's looks before and after. It is
// still another method (a new Method* whose bytecodes, constant pool and counters are new; here
// the same version, in general any), and no entry may go on across the burst. Under -Xint every
// method is named once its version is seen: each has, for each burst, an entry of version 1
// begun after the burst began (before the next) and open after it ended, and none begun before
// a burst is open after it. (A look in the middle of a burst sees a version that is gone by the
// next: its entries end where they began.)
TEST_F(JvmRedefinitionTest, NoEntryLastsAcrossABurstOfRedefinitionsBetweenTheAgentsLooks) {
  constexpr int kRounds = 8;
  const auto table = RunWithTheAgent("-Xint", {std::to_string(kRounds), "1", "100000", "300", "12"},
                                     "1 1 1 1 1 1 1 1");
  const auto versions = CheckRedefinedEntries(table);
  const auto bursts = BurstsIn(out_);
  ASSERT_EQ(bursts.size(), kRounds - 1u) << out_;
  ASSERT_EQ(versions.size(), RedefinedMethods().size());
  std::map<std::string, std::vector<int>> after_bursts;  // each burst's entries after it
  for (const auto& method : table.methods) {
    if (method.class_name != "Redefined") continue;
    std::vector<int>& after = after_bursts[std::string(method.name)];
    after.resize(bursts.size());
    for (size_t i = 0; i < bursts.size(); ++i) {
      const auto [begin, end] = bursts[i];
      EXPECT_FALSE(method.since_ns < begin && method.until_ns > end)
          << method.name << " (version " << VersionOf(method) << ") from " << method.since_ns
          << " to " << method.until_ns << " lasts across the burst from " << begin << " to " << end;
      const uint64_t next = i + 1 < bursts.size() ? bursts[i + 1].first : kJvmForever;
      if (method.since_ns > begin && method.since_ns < next && method.until_ns > end &&
          VersionOf(method) == 1) {
        ++after[i];
      }
    }
  }
  for (const auto& [name, after] : after_bursts) {
    EXPECT_EQ(after, std::vector<int>(bursts.size(), 1)) << name << ": " << versions.at(name);
  }
}

// `jitscope record -- java ... Redefining`, under -Xint (every frame of Redefined interpreted,
// named from the JVM table) and in mixed mode (before and after compiled too): every sample in
// Redefined's methods names hot at the lines of the version that ran and its callee that
// version's (before for version 1, after for version 2, at that version's lines); a frame the
// table cannot name is `Interpreter`, never another method or version; and nearly all are named.
TEST_F(JvmRedefinitionTest, ReportNamesEveryFrameOfARedefinedClassFromTheVersionThatRanIt) {
  for (const std::string mode : {"-Xint", "-Xmixed"}) {
    SCOPED_TRACE(mode);
    const std::string session = dir_ + "/" + mode.substr(1);
    // A fixed amount of work, whatever the machine's speed: 6 rounds of calls of hot, each
    // running 1,000,000 iterations of its callee's loop: 30 calls a round interpreted, 300
    // compiled (each round a fraction of a second).
    const auto record = RunProgram({JITSCOPE_CLI, "record", "-o", session, "--", JITSCOPE_JAVA,
                                    mode, "-jar", kRedefiningJar, kVersion2Dir, "6",
                                    mode == "-Xint" ? "30" : "300", "1000000", "300"});
    ASSERT_TRUE(record.ok()) << record.Describe();
    EXPECT_NE(record.out.find("Redefining: versions 1 2 1 2 1 2, checksum "), std::string::npos)
        << record.out;

    const auto speedscope = RunProgram({JITSCOPE_CLI, "report", session, "--format", "speedscope"});
    ASSERT_TRUE(speedscope.ok()) << speedscope.Describe();
    const RedefinedShare share = CheckRedefinedStacks(speedscope.out);
    std::string wrong;
    for (const std::string& stack : share.wrong) wrong += stack + "\n";
    EXPECT_TRUE(share.wrong.empty()) << share.wrong.size() << " stacks named wrongly:\n" << wrong;
    ASSERT_GT(share.work, 500u) << "seconds of a CPU-bound main thread";
    EXPECT_GE(share.named * 100, share.work * 90) << share.named << " of " << share.work;
    EXPECT_GT(share.version_samples[0] * 4, share.named) << "version 1 ran half the rounds";
    EXPECT_GT(share.version_samples[1] * 4, share.named) << "version 2 ran half the rounds";

    if (mode == "-Xint") {
      // Every sample running in the interpreter is named (the header's count).
      const auto text = RunProgram({JITSCOPE_CLI, "report", session, "--top", "3"});
      ASSERT_TRUE(text.ok()) << text.Describe();
      const size_t at = text.out.find("# Java interpreter frames: ");
      ASSERT_NE(at, std::string::npos) << text.out;
      const std::string line = text.out.substr(at, text.out.find('\n', at) - at);
      unsigned long long named = 0, running = 0;
      ASSERT_EQ(std::sscanf(line.c_str() + line.find("; "), "; %llu of %llu samples running",
                            &named, &running),
                2)
          << line;
      EXPECT_GE(named * 100, running * 95) << line;
    }
  }
}

}  // namespace
