// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The examples in `jitscope <command> --help` are real: every command line of their "Examples:"
// sections runs, as printed, and succeeds. And `jitscope record` checks its options before it
// runs anything.
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
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

// The command lines of the "Examples:" section of `jitscope <command> --help`, split on blanks
// (an example needs no shell quoting).
std::vector<std::vector<std::string>> HelpExamples(const std::string& command) {
  test_support::ProcessResult help = RunProgram({JITSCOPE_CLI, command, "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  std::vector<std::vector<std::string>> examples;
  std::istringstream lines(help.out);
  bool in_examples = false;
  for (std::string line; std::getline(lines, line);) {
    if (line == "Examples:") {
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

TEST(HelpExamplesTest, EveryExampleRunsAsPrinted) {
  // As the examples assume: the build's bin/ at build/bin and the repository's examples/.
  TempDir tmp;
  ASSERT_EQ(::mkdir((tmp.path() + "/build").c_str(), 0700), 0);
  ASSERT_EQ(::symlink(JITSCOPE_BIN_DIR, (tmp.path() + "/build/bin").c_str()), 0);
  ASSERT_EQ(::symlink(JITSCOPE_EXAMPLES_DIR, (tmp.path() + "/examples").c_str()), 0);
  WorkingDirectory cwd(tmp.path());

  size_t ran = 0;
  // record first: the other commands' examples read the session it writes.
  for (const char* command : {"record", "report", "annotate", "dump", "resolve", "clean"}) {
    const std::vector<std::vector<std::string>> examples = HelpExamples(command);
    if (std::string(command) == "record" || std::string(command) == "report" ||
        std::string(command) == "annotate") {
      EXPECT_GE(examples.size(), 2u) << command;
    }
    for (std::vector<std::string> argv : examples) {
      argv[0] = JITSCOPE_CLI;
      // A perf map the collector writes (--formats ...,perfmap) goes here, not to /tmp, which
      // would keep it after the test.
      test_support::ProcessResult result =
          RunProgram(argv, {{"JITSCOPE_PERF_MAP_DIR", tmp.path()}});
      EXPECT_EQ(result.exit_code, 0) << Joined(argv) << "\n" << result.err;
      const bool record = std::string(command) == "record";
      std::string output = record ? "jitscope.data" : "";
      for (size_t i = 0; i + 1 < argv.size(); ++i) {
        if (argv[i] == "-o") output = argv[i + 1];
      }
      if (!output.empty()) {
        EXPECT_TRUE(IsNonEmptyFile(record ? output + "/samples.jss" : output)) << Joined(argv);
      }
      if ((std::string(command) == "report" || std::string(command) == "annotate") &&
          argv.size() == 2) {
        // The plain text report of the example JIT names its hot function, and so does the
        // annotation of its hottest code.
        EXPECT_NE(result.out.find("series"), std::string::npos) << result.out;
      }
      ++ran;
    }
  }
  EXPECT_GE(ran, 4u);
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
