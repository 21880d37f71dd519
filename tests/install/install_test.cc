// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `cmake --install` and the static-library way of adding the stub (docs/collector.md, "Add JIT
// profiling to your JIT"; Intel's guide, "use the static library"): this build installed into a
// prefix, each test builds the collector page's example against the installed files exactly as
// docs/collector.md says, with pkg-config or with the collector page's CMake project, for x86-64
// and for i386, and runs it against the installed collector and `jitscope dump`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
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

// The collector page's pkg-config command; the tests add only -m32 and warnings.
constexpr char kDocPkgConfigCommand[] =
    "cc -o my_jit my_jit.c $(pkg-config --cflags --libs jitprofiling)";

// The prefix this build is installed into, and a scratch source tree with the collector page's
// example and CMake project. The install_prefix fixture (CMakeLists.txt) runs `cmake --install`
// into the prefix once per CTest run, before these tests, which only read it: run them through
// CTest.
class Installed : public ::testing::Test {
 protected:
  void SetUp() override {
    test_support::WriteDocBlock(JITSCOPE_COLLECTOR_DOC, "my_jit.c", source("my_jit.c"));
    test_support::WriteDocBlock(JITSCOPE_COLLECTOR_DOC, "CMakeLists.txt", source("CMakeLists.txt"));
  }
  std::string prefix() const { return JITSCOPE_INSTALL_PREFIX; }
  std::string source(const std::string& name) const { return sources_.path() + "/" + name; }

  // pkg-config's answer for the package installed under <prefix>/<libdir>/pkgconfig.
  std::string PkgConfig(const std::string& libdir, std::vector<std::string> query) {
    query.insert(query.begin(), JITSCOPE_PKG_CONFIG);
    const ProcessResult result =
        RunProgram(query, {{"PKG_CONFIG_PATH", prefix() + "/" + libdir + "/pkgconfig"},
                           {"PKG_CONFIG_LIBDIR", "/nonexistent"}});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::string out = result.out;
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
  }

  // Builds the collector page's example with the pkg-config flags of <libdir> and runs it against
  // the collector that the package names.
  void BuildWithPkgConfigAndRun(const std::string& libdir, const std::vector<std::string>& flags,
                                const std::string& collector_variable) {
    // The .pc file is relocatable: its prefix is the way up from its own directory.
    const std::string pc_prefix = prefix() + "/" + libdir + "/pkgconfig/../..";
    const std::string cflags_libs = PkgConfig(libdir, {"--cflags", "--libs", "jitprofiling"});
    EXPECT_EQ(cflags_libs, "-I" + pc_prefix + "/include " + pc_prefix + "/" + libdir +
                               "/libjitprofiling.a -ldl");
    std::vector<std::string> command = {JITSCOPE_PLAIN_CC, "-o", source("my_jit"),
                                        source("my_jit.c")};
    command.insert(command.end(), flags.begin(), flags.end());
    std::istringstream words(cflags_libs);
    for (std::string word; words >> word;) command.push_back(word);
    const ProcessResult build = RunProgram(command);
    ASSERT_EQ(build.exit_code, 0) << build.err;
    const std::string collector = PkgConfig(libdir, {"--variable=collector", "jitprofiling"});
    EXPECT_EQ(collector, pc_prefix + "/" + libdir + "/libjitscope-collector.so");
    if (libdir == "lib32" && !test_support::KernelRunsI386Programs()) {
      GTEST_SKIP() << test_support::kNoI386Kernel;
    }
    // No LD_LIBRARY_PATH: the program starts only if it carries the stub (libjitprofiling.a)
    // rather than needing libjitprofiling.so from the scratch prefix.
    ExpectDocExampleSession(JITSCOPE_COLLECTOR_DOC, prefix() + "/bin/jitscope", source("my_jit"),
                            {{collector_variable, collector}});
  }

  // Configures and builds the collector page's CMake project against the prefix and runs the
  // example.
  void BuildWithCMakeAndRun(const std::vector<std::string>& options,
                            const std::map<std::string, std::string>& collector_env) {
    std::vector<std::string> configure = {JITSCOPE_CMAKE,
                                          "-S",
                                          sources_.path(),
                                          "-B",
                                          source("build"),
                                          "-G",
                                          "Ninja",
                                          "-DCMAKE_MAKE_PROGRAM=" JITSCOPE_MAKE_PROGRAM,
                                          "-DCMAKE_PREFIX_PATH=" + prefix()};
    configure.insert(configure.end(), options.begin(), options.end());
    const ProcessResult configured = RunProgram(configure);
    ASSERT_EQ(configured.exit_code, 0) << configured.out << configured.err;
    const ProcessResult built = RunProgram({JITSCOPE_CMAKE, "--build", source("build")});
    ASSERT_EQ(built.exit_code, 0) << built.out << built.err;
    const bool i386 =
        std::find(options.begin(), options.end(), "-DCMAKE_C_FLAGS=-m32") != options.end();
    if (i386 && !test_support::KernelRunsI386Programs()) {
      GTEST_SKIP() << test_support::kNoI386Kernel;
    }
    ExpectDocExampleSession(JITSCOPE_COLLECTOR_DOC, prefix() + "/bin/jitscope",
                            source("build/my_jit"), collector_env);
  }

 private:
  TempDir sources_;
};

// Every installed path, with " -> target" for symbolic links, sorted.
std::vector<std::string> Tree(const std::string& root) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_directory() && !entry.is_symlink()) continue;
    std::string path = entry.path().lexically_relative(root).string();
    if (entry.is_symlink()) path += " -> " + fs::read_symlink(entry.path()).string();
    paths.push_back(path);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST_F(Installed, EveryFileInItsPlace) {
  const std::string version = JITSCOPE_VERSION;
  const std::string targets_file = "jitscopeTargets-" JITSCOPE_BUILD_TYPE_LOWER ".cmake";
  std::vector<std::string> expected = {
      "bin/jitscope",
      "include/jitprofiling.h",
      "include/opagent.h",
      "lib/cmake/jitscope/jitscopeConfig.cmake",
      "lib/cmake/jitscope/jitscopeConfigVersion.cmake",
      "lib/cmake/jitscope/" + targets_file,
      "lib/cmake/jitscope/jitscopeTargets.cmake",
      "lib/libjitprofiling.a",
      "lib/libjitprofiling.so -> libjitprofiling.so.1",
      "lib/libjitprofiling.so.1 -> libjitprofiling.so.1.0.0",
      "lib/libjitprofiling.so.1.0.0",
      "lib/libjitscope-collector.so -> libjitscope-collector.so.0",
      "lib/libjitscope-collector.so.0 -> libjitscope-collector.so." + version,
      "lib/libjitscope-collector.so." + version,
      "lib/libjitscope-frames.so",
      "lib/libjvmti_opagent.so",
      "lib/libopagent.so -> libopagent.so.1",
      "lib/libopagent.so.1 -> libopagent.so.1.0.1",
      "lib/libopagent.so.1.0.1",
      "lib/oprofile/libopagent.so -> ../libopagent.so.1",
      "lib/oprofile/libopagent.so.1 -> ../libopagent.so.1",
      "lib/pkgconfig/jitprofiling.pc",
      "lib/pkgconfig/opagent.pc",
  };
#if defined(JITSCOPE_LIB32_UNAVAILABLE)
  ADD_FAILURE() << JITSCOPE_LIB32_UNAVAILABLE;
#elif defined(JITSCOPE_LIB32_DIR)
  const std::vector<std::string> lib32 = {
      "lib/cmake/jitscope-i386/jitscopeConfig.cmake",
      "lib/cmake/jitscope-i386/jitscopeConfigVersion.cmake",
      "lib/cmake/jitscope-i386/" + targets_file,
      "lib/cmake/jitscope-i386/jitscopeTargets.cmake",
      "lib32/libjitprofiling.a",
      "lib32/libjitprofiling.so -> libjitprofiling.so.1",
      "lib32/libjitprofiling.so.1 -> libjitprofiling.so.1.0.0",
      "lib32/libjitprofiling.so.1.0.0",
      "lib32/libjitscope-collector.so -> libjitscope-collector.so.0",
      "lib32/libjitscope-collector.so.0 -> libjitscope-collector.so." + version,
      "lib32/libjitscope-collector.so." + version,
      "lib32/libopagent.so -> libopagent.so.1",
      "lib32/libopagent.so.1 -> libopagent.so.1.0.1",
      "lib32/libopagent.so.1.0.1",
      "lib32/oprofile/libopagent.so -> ../libopagent.so.1",
      "lib32/oprofile/libopagent.so.1 -> ../libopagent.so.1",
      "lib32/pkgconfig/jitprofiling.pc",
      "lib32/pkgconfig/opagent.pc",
  };
  expected.insert(expected.end(), lib32.begin(), lib32.end());
#endif
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Tree(prefix()), expected);
}

TEST(InstalledDocs, GiveThePkgConfigCommandTested) {
  EXPECT_NE(test_support::ReadFile(JITSCOPE_COLLECTOR_DOC).find(kDocPkgConfigCommand),
            std::string::npos)
      << "docs/collector.md no longer says `" << kDocPkgConfigCommand << "`";
}

TEST_F(Installed, ExampleLinksTheStaticStubThroughPkgConfig) {
  BuildWithPkgConfigAndRun("lib", {"-Wall", "-Wextra", "-Werror"}, "INTEL_JIT_PROFILER64");
}

TEST_F(Installed, ExampleLinksTheStaticStubThroughFindPackage) {
  BuildWithCMakeAndRun({}, {{"INTEL_JIT_PROFILER64", prefix() + "/lib/libjitscope-collector.so"}});
}

// The collector page's project with the shared stub instead (jitscope::jitprofiling_shared): the
// program finds libjitprofiling.so.1 through the build tree's RPATH that CMake sets.
TEST_F(Installed, ExampleLinksTheSharedStubThroughFindPackage) {
  std::string project = test_support::ReadFile(source("CMakeLists.txt"));
  const std::string target = "jitscope::jitprofiling_static";
  const size_t at = project.find(target);
  ASSERT_NE(at, std::string::npos) << project;
  std::ofstream(source("CMakeLists.txt"))
      << project.replace(at, target.size(), "jitscope::jitprofiling_shared");
  BuildWithCMakeAndRun({}, {{"INTEL_JIT_PROFILER64", prefix() + "/lib/libjitscope-collector.so"}});
  const ProcessResult needed = RunProgram({JITSCOPE_READELF, "-d", source("build/my_jit")});
  EXPECT_NE(needed.out.find("Shared library: [libjitprofiling.so.1]"), std::string::npos)
      << needed.out;
}

// jitscope_install_library_link() (cmake/install_helpers.cmake), which places libopagent.so.1
// where OProfile documents it, on a library versioned like libopagent: the links exist in the
// build tree and in a DESTDIR-staged install, are relative, and reach the library's file.
TEST(InstallHelpers, LibraryLinkReachesTheLibraryInBuildAndInstallTrees) {
  namespace fs = std::filesystem;
  TempDir dir;
  const std::string build = dir.path() + "/build";
  const std::string stage = dir.path() + "/stage";
  ProcessResult result =
      RunProgram({JITSCOPE_CMAKE, "-S", JITSCOPE_LIBRARY_LINK_PROJECT, "-B", build, "-G", "Ninja",
                  "-DCMAKE_MAKE_PROGRAM=" JITSCOPE_MAKE_PROGRAM,
                  "-DJITSCOPE_SOURCE_DIR=" JITSCOPE_SOURCE_DIR});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  result = RunProgram({JITSCOPE_CMAKE, "--build", build});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  result = RunProgram({JITSCOPE_CMAKE, "--install", build, "--prefix", "/opt/jitscope"},
                      {{"DESTDIR", stage}});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;

  const std::vector<std::string> expected = {
      "libagent.so -> libagent.so.1",
      "libagent.so.1 -> libagent.so.1.0.1",
      "libagent.so.1.0.1",
      "oprofile/libagent.so -> ../libagent.so.1",
      "oprofile/libagent.so.1 -> ../libagent.so.1",
  };
  for (const std::string& lib : {build + "/lib", stage + "/opt/jitscope/lib"}) {
    EXPECT_EQ(Tree(lib), expected) << lib;
    EXPECT_EQ(fs::canonical(lib + "/oprofile/libagent.so.1"), fs::path(lib + "/libagent.so.1.0.1"));
  }
}

#if defined(JITSCOPE_LIB32_DIR) || defined(JITSCOPE_LIB32_UNAVAILABLE)
TEST_F(Installed, I386ExampleLinksTheLib32StaticStubThroughPkgConfig) {
#ifdef JITSCOPE_LIB32_UNAVAILABLE
  FAIL() << JITSCOPE_LIB32_UNAVAILABLE;
#else
  BuildWithPkgConfigAndRun("lib32", {"-m32", "-Wall", "-Wextra", "-Werror"},
                           "INTEL_JIT_PROFILER32");
#endif
}

// find_package() must pick the i386 package (lib/cmake/jitscope-i386) for a -m32 compiler, and
// the program must load lib32's collector through INTEL_JIT_PROFILER32 with both variables set.
TEST_F(Installed, I386ExampleLinksTheLib32StaticStubThroughFindPackage) {
#ifdef JITSCOPE_LIB32_UNAVAILABLE
  FAIL() << JITSCOPE_LIB32_UNAVAILABLE;
#else
  BuildWithCMakeAndRun({"-DCMAKE_C_FLAGS=-m32"},
                       {{"INTEL_JIT_PROFILER32", prefix() + "/lib32/libjitscope-collector.so"},
                        {"INTEL_JIT_PROFILER64", prefix() + "/lib/libjitscope-collector.so"}});
#endif
}
#endif

}  // namespace
}  // namespace jitscope
