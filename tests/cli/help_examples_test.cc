// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The examples in `jitscope <command> --help` are real: every command line of their "Examples:"
// sections runs, as printed, and succeeds, and so do those of their "Examples with other
// engines:" (Node.js, Java). `jitscope --help` lists each command on one line, the main job
// first. And `jitscope record` checks its options before it runs anything.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::cli {
namespace {

using test_support::RunProgram;
using test_support::TempDir;

// The command lines of the section `section` ("Examples:") of `jitscope <command> --help`, split
// on blanks (an example needs no shell quoting).
std::vector<std::vector<std::string>> HelpExamples(const std::string& command,
                                                   const std::string& section = "Examples:") {
  test_support::ProcessResult help = RunProgram({JITSCOPE_CLI, command, "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  std::vector<std::vector<std::string>> examples;
  std::istringstream lines(help.out);
  bool in_examples = false;
  for (std::string line; std::getline(lines, line);) {
    if (line == section) {
      in_examples = true;
      continue;
    }
    if (!in_examples) continue;
    if (line.rfind("  ", 0) != 0) break;  // the section ends at the first unindented line
    std::istringstream words(line);
    std::vector<std::string> argv;
    for (std::string word; words >> word;) {
      EXPECT_EQ(word.find_first_of("'\"$*"), std::string::npos) << line;
      argv.push_back(word);
    }
    if (argv.empty()) continue;
    EXPECT_EQ(argv[0], "jitscope") << line;
    examples.push_back(argv);
  }
  return examples;
}

std::string Joined(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& word : argv) line += (line.empty() ? "" : " ") + word;
  return line;
}

// Runs the test in `dir`, and goes back where it was at the end.
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const std::string& dir) {
    if (::getcwd(previous_, sizeof(previous_)) == nullptr) std::abort();
    if (::chdir(dir.c_str()) != 0) std::abort();
  }
  ~WorkingDirectory() {
    if (::chdir(previous_) != 0) std::abort();
  }

 private:
  char previous_[PATH_MAX];
};

bool IsNonEmptyFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

// A scratch directory laid out as the examples assume, and the test's working directory: the
// build's bin/, lib/ and examples/ as build/bin, build/lib and build/examples, and the
// repository's examples/.
class ExampleDirectory {
 public:
  ExampleDirectory() {
    EXPECT_EQ(::mkdir((tmp_.path() + "/build").c_str(), 0700), 0);
    EXPECT_EQ(::symlink(JITSCOPE_BIN_DIR, (tmp_.path() + "/build/bin").c_str()), 0);
    EXPECT_EQ(::symlink(JITSCOPE_LIB_DIR, (tmp_.path() + "/build/lib").c_str()), 0);
    EXPECT_EQ(::symlink(JITSCOPE_BUILD_EXAMPLES_DIR, (tmp_.path() + "/build/examples").c_str()), 0);
    EXPECT_EQ(::symlink(JITSCOPE_EXAMPLES_DIR, (tmp_.path() + "/examples").c_str()), 0);
    cwd_.emplace(tmp_.path());
  }
  const std::string& path() const { return tmp_.path(); }

 private:
  TempDir tmp_;
  std::optional<WorkingDirectory> cwd_;
};

// Runs `argv` (an example, its argv[0] "jitscope") as printed, in the example directory `dir`;
// checks it succeeds and writes the session or file it names. Its standard output.
std::string RunExample(std::vector<std::string> argv, const std::string& command,
                       const ExampleDirectory& dir) {
  argv[0] = JITSCOPE_CLI;
  // A perf map the collector writes (--formats ...,perfmap) goes here, not to /tmp, which would
  // keep it after the test, and so does OProfile's dump of the JVMTI agent.
  test_support::ProcessResult result = RunProgram(
      argv, {{"JITSCOPE_PERF_MAP_DIR", dir.path()}, {"JITSCOPE_OPAGENT_DIR", dir.path()}});
  EXPECT_EQ(result.exit_code, 0) << Joined(argv) << "\n" << result.err;
  const bool record = command == "record";
  std::string output = record ? "jitscope.data" : "";
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "-o") output = argv[i + 1];
  }
  if (!output.empty()) {
    EXPECT_TRUE(IsNonEmptyFile(record ? output + "/samples.jss" : output)) << Joined(argv);
  }
  return result.out;
}

TEST(HelpExamplesTest, EveryExampleRunsAsPrinted) {
  ExampleDirectory dir;
  size_t ran = 0;
  // record first: the other commands' examples read the session it writes.
  for (const char* command :
       {"record", "report", "annotate", "archive", "dump", "resolve", "clean"}) {
    const std::vector<std::vector<std::string>> examples = HelpExamples(command);
    if (std::string(command) == "record" || std::string(command) == "report" ||
        std::string(command) == "annotate") {
      EXPECT_GE(examples.size(), 2u) << command;
    }
    for (const std::vector<std::string>& argv : examples) {
      const std::string out = RunExample(argv, command, dir);
      if ((std::string(command) == "report" || std::string(command) == "annotate") &&
          argv.size() == 2) {
        // The plain text report of the example JIT names its hot function, and so does the
        // annotation of its hottest code.
        EXPECT_NE(out.find("series"), std::string::npos) << out;
      }
      ++ran;
    }
  }
  EXPECT_GE(ran, 4u);
}

// Node.js and a JVM (external: the engines are not ours), recorded and reported as printed.
TEST(HelpExamplesTest, OtherEnginesExamplesRunAsPrinted) {
  ExampleDirectory dir;
  for (const char* command : {"record", "report", "annotate"}) {
    const std::vector<std::vector<std::string>> examples =
        HelpExamples(command, "Examples with other engines:");
    EXPECT_GE(examples.size(), 2u) << command;
    for (const std::vector<std::string>& argv : examples) {
      const std::string out = RunExample(argv, command, dir);
      if (std::string(command) == "report") {
        // Each engine's hot function, named from what the engine reported.
        const bool node = std::find(argv.begin(), argv.end(), "node.data") != argv.end();
        EXPECT_NE(out.find(node ? "series" : "HotLoop.mix"), std::string::npos) << out;
      }
    }
  }
}

// One line per command, the main job first, as git and perf list theirs.
TEST(HelpTest, OneLinePerCommandTheMainJobFirst) {
  test_support::ProcessResult help = RunProgram({JITSCOPE_CLI, "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  std::istringstream lines(help.out);
  std::vector<std::string> commands;
  bool in_commands = false;
  for (std::string line; std::getline(lines, line);) {
    if (line == "Subcommands:") {
      in_commands = true;
    } else if (in_commands && !line.empty()) {
      std::istringstream words(line);
      std::string name;
      words >> name;
      commands.push_back(name);
    }
  }
  EXPECT_EQ(commands, (std::vector<std::string>{"record", "report", "annotate", "archive", "dump",
                                                "resolve", "clean"}))
      << help.out;
}

TEST(RecordValidationTest, AnUnknownFormatStopsRecordBeforeTheCommandRuns) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/session";
  const std::string marker = tmp.path() + "/started";
  test_support::ProcessResult result =
      RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--formats", "native,jitdump,perfmap", "--",
                  "/bin/sh", "-c", "touch " + marker});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            "jitscope record: error: --formats: unknown format 'native' (known: trace, jitdump, "
            "perfmap)\nRun 'jitscope record --help' for usage.\n");
  EXPECT_NE(::access(marker.c_str(), F_OK), 0) << "the command ran";
  EXPECT_NE(::access(dir.c_str(), F_OK), 0) << "a session directory was made";
}

TEST(RecordValidationTest, AMissingOutputParentStopsRecordBeforeTheCommandRuns) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/missing/session";
  const std::string marker = tmp.path() + "/started";
  test_support::ProcessResult result =
      RunProgram({JITSCOPE_CLI, "record", "-o", dir, "--", "/bin/sh", "-c", "touch " + marker});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "jitscope record: error: -o " + dir + ": its directory " + tmp.path() +
                            "/missing: No such file or directory\nRun 'jitscope record --help' "
                            "for usage.\n");
  EXPECT_NE(::access(marker.c_str(), F_OK), 0) << "the command ran";
}

TEST(RecordValidationTest, AnOutputThatIsAFileIsRefused) {
  TempDir tmp;
  const std::string file = tmp.path() + "/file";
  ASSERT_TRUE(test_support::WriteFile(file, ""));
  test_support::ProcessResult result =
      RunProgram({JITSCOPE_CLI, "record", "-o", file, "--", "/bin/true"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "jitscope record: error: -o " + file +
                            ": exists and is not a directory\nRun 'jitscope record --help' for "
                            "usage.\n");
  EXPECT_EQ(::access(file.c_str(), F_OK), 0) << "the file was moved aside";
}

}  // namespace
}  // namespace jitscope::cli
