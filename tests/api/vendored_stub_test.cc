// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The stub is vendorable: a JIT project copies include/jitprofiling.h and
// src/jitscope/api/jitprofiling.c into its own tree and compiles them with any C or C++ compiler,
// with no other jitscope file (docs/collector.md, "Add JIT profiling to your JIT"; Intel's guide,
// "include the following files to your source tree"). Each test copies exactly those two files and
// the collector page's example into an empty scratch directory, builds them there with the plain
// `cc` or `c++` on PATH and no include path, and runs the program against the real collector: its
// output and its trace must be the collector page's.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/doc_example.h"
#include "support/files.h"
#include "support/i386_kernel.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope {
namespace {

using test_support::ExpectDocExampleSession;
using test_support::ProcessResult;
using test_support::RunProgram;
using test_support::TempDir;

// The command docs/collector.md gives for the vendored files; the tests add only warnings and -m32.
constexpr char kDocBuildCommand[] = "cc -o my_jit my_jit.c jitprofiling.c -ldl";

// A scratch copy of the files a JIT project vendors, plus the collector page's example program.
class VendoredTree {
 public:
  VendoredTree() {
    namespace fs = std::filesystem;
    fs::copy_file(JITSCOPE_SOURCE_DIR "/include/jitprofiling.h", dir_.path() + "/jitprofiling.h");
    fs::copy_file(JITSCOPE_SOURCE_DIR "/src/jitscope/api/jitprofiling.c",
                  dir_.path() + "/jitprofiling.c");
    test_support::WriteDocBlock(JITSCOPE_COLLECTOR_DOC, "my_jit.c", dir_.path() + "/my_jit.c");
  }
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }

  // Builds my_jit from the scratch directory alone; `compiler` is argv up to the sources.
  std::string Build(std::vector<std::string> compiler) const {
    const std::vector<std::string> files = {path("my_jit.c"), path("jitprofiling.c"), "-ldl", "-o",
                                            path("my_jit")};
    compiler.insert(compiler.end(), {"-Wall", "-Wextra", "-Werror", "-pedantic-errors"});
    compiler.insert(compiler.end(), files.begin(), files.end());
    const ProcessResult result = RunProgram(compiler);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return path("my_jit");
  }

 private:
  TempDir dir_;
};

TEST(VendoredStub, TheDocsGiveTheBuildCommandTested) {
  EXPECT_NE(test_support::ReadFile(JITSCOPE_COLLECTOR_DOC).find(kDocBuildCommand),
            std::string::npos)
      << "docs/collector.md no longer says `" << kDocBuildCommand << "`";
}

TEST(VendoredStub, BuildsWithPlainCcAndReportsToTheCollector) {
  VendoredTree tree;
  const std::string program = tree.Build({JITSCOPE_PLAIN_CC});
  ASSERT_FALSE(HasFailure());
  ExpectDocExampleSession(JITSCOPE_COLLECTOR_DOC, JITSCOPE_CLI, program,
                          {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR}});
}

TEST(VendoredStub, BuildsAsCxxAndReportsToTheCollector) {
  VendoredTree tree;
  const std::string program = tree.Build({JITSCOPE_PLAIN_CXX, "-x", "c++"});
  ASSERT_FALSE(HasFailure());
  ExpectDocExampleSession(JITSCOPE_COLLECTOR_DOC, JITSCOPE_CLI, program,
                          {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR}});
}

#if defined(JITSCOPE_LIB32_DIR) || defined(JITSCOPE_LIB32_UNAVAILABLE)
// A 32-bit JIT reads INTEL_JIT_PROFILER32 and loads the i386 collector. Both variables are set, as
// in an environment that serves 32- and 64-bit processes: reading the 64-bit one would fail to
// load.
TEST(VendoredStub, BuildsForI386AndReportsToThe32BitCollector) {
#ifdef JITSCOPE_LIB32_UNAVAILABLE
  FAIL() << JITSCOPE_LIB32_UNAVAILABLE;
#else
  VendoredTree tree;
  const std::string program = tree.Build({JITSCOPE_PLAIN_CC, "-m32"});
  ASSERT_FALSE(HasFailure());
  if (!test_support::KernelRunsI386Programs()) GTEST_SKIP() << test_support::kNoI386Kernel;
  ExpectDocExampleSession(JITSCOPE_COLLECTOR_DOC, JITSCOPE_CLI, program,
                          {{"INTEL_JIT_PROFILER32", JITSCOPE_LIB32_DIR "/libjitscope-collector.so"},
                           {"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR}});
#endif
}
#endif

}  // namespace
}  // namespace jitscope
