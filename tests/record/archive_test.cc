// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End to end: `jitscope archive` and `jitscope record --archive` (record/archive.h) on a program
// and a library the test builds, then `jitscope report` once the program is deleted and the
// library replaced by another build, as a rebuild or a package upgrade leaves them.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::record {
namespace {

using test_support::ProcessResult;
using test_support::RunProgram;
using test_support::TempDir;

// The program and its library, built in `dir`: `variant` 1, or another build of the library.
struct Built {
  std::string program;
  std::string library;
};
Built Build(const std::string& dir) {
  Built built{dir + "/archived_program", dir + "/libarchived.so"};
  const ProcessResult library =
      RunProgram({JITSCOPE_PLAIN_CC, "-g", "-O1", "-fPIC", "-shared",
                  "-fasynchronous-unwind-tables", ARCHIVED_LIBRARY_SOURCE, "-o", built.library});
  EXPECT_TRUE(library.ok()) << library.Describe();
  const ProcessResult program = RunProgram(
      {JITSCOPE_PLAIN_CC, "-g", "-O1", "-fasynchronous-unwind-tables", ARCHIVED_PROGRAM_SOURCE,
       "-o", built.program, "-L" + dir, "-larchived", "-Wl,-rpath," + dir});
  EXPECT_TRUE(program.ok()) << program.Describe();
  // The program's DWARF in a separate debug file beside it, which its .gnu_debuglink names, as
  // distributions ship theirs.
  const std::string debug = built.program + ".debug";
  for (const std::vector<std::string>& step :
       {std::vector<std::string>{OBJCOPY_PROGRAM, "--only-keep-debug", built.program, debug},
        {OBJCOPY_PROGRAM, "--strip-debug", "--add-gnu-debuglink=" + debug, built.program}}) {
    const ProcessResult split = RunProgram(step, {}, {.cwd = dir});
    EXPECT_TRUE(split.ok()) << split.Describe();
  }
  return built;
}

// The library built again, another build at the same path.
void RebuildLibrary(const Built& built) {
  const std::string other = built.library + ".other";
  const ProcessResult library =
      RunProgram({JITSCOPE_PLAIN_CC, "-g", "-O1", "-fPIC", "-shared", "-DARCHIVED_VARIANT=3",
                  ARCHIVED_LIBRARY_SOURCE, "-o", other});
  ASSERT_TRUE(library.ok()) << library.Describe();
  ASSERT_EQ(::rename(other.c_str(), built.library.c_str()), 0);
}

ProcessResult Record(const std::string& session, const Built& built,
                     const std::vector<std::string>& options = {}) {
  std::vector<std::string> argv = {JITSCOPE_CLI, "record", "-o", session};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--", built.program, "0.3"});
  ProcessResult record = RunProgram(argv);
  EXPECT_TRUE(record.ok()) << record.Describe();
  return record;
}

std::string Report(const std::string& session, const std::string& format = "text") {
  const ProcessResult report = RunProgram({JITSCOPE_CLI, "report", session, "--format", format});
  EXPECT_TRUE(report.ok()) << report.Describe();
  return report.out;
}

ProcessResult Archive(const std::string& session) {
  return RunProgram({JITSCOPE_CLI, "archive", session});
}

// Every file under `dir`, relative, with its size.
std::set<std::string> Listing(const std::string& dir) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    files.insert(entry.path().string().substr(dir.size()) + " " +
                 (entry.is_regular_file() ? std::to_string(entry.file_size()) : "dir"));
  }
  return files;
}

// Recorded with --archive, the session keeps the program, its separate debug file and its
// library (and libc, the loader: every file the samples touched); with the program and its debug
// file deleted and the library replaced by another build, it reports the same text and stacks.
// Without its archive, it names neither and says why. Archiving again adds nothing.
TEST(ArchiveTest, AnArchivedSessionReportsTheSameOnceItsFilesAreGoneOrReplaced) {
  TempDir tmp;
  const Built built = Build(tmp.path());
  const std::string session = tmp.path() + "/session";
  const ProcessResult record = Record(session, built, {"--archive"});
  EXPECT_NE(record.err.find("jitscope record --archive: archived "), std::string::npos)
      << record.err;
  EXPECT_NE(record.err.find(" the samples touched in " + session + "/files: "), std::string::npos)
      << record.err;
  for (const std::string& file : {built.program, built.program + ".debug", built.library}) {
    EXPECT_EQ(test_support::ReadFile(session + "/files" + file), test_support::ReadFile(file))
        << file;
  }
  const std::string text = Report(session);
  // main's source file, from the program's separate debug file.
  EXPECT_NE(text.find("archived_program.c"), std::string::npos) << text;
  const std::string folded = Report(session, "folded");
  EXPECT_NE(text.find(" native files read from the session's archive (" + session +
                      "/files), not from this machine\n"),
            std::string::npos)
      << text;
  EXPECT_NE(folded.find("main;ArchivedOuter;ArchivedWork "), std::string::npos) << folded;

  // Again: nothing added, all there already.
  const ProcessResult again = Archive(session);
  EXPECT_TRUE(again.ok()) << again.Describe();
  EXPECT_NE(again.err.find(" the samples touched in " + session + "/files: 0 added (0 bytes), "),
            std::string::npos)
      << again.err;

  ASSERT_EQ(::unlink(built.program.c_str()), 0);
  ASSERT_EQ(::unlink((built.program + ".debug").c_str()), 0);
  RebuildLibrary(built);
  EXPECT_EQ(Report(session), text);
  EXPECT_EQ(Report(session, "folded"), folded);

  // Without the archive: the program is gone and the library another build, and both are said.
  std::filesystem::remove_all(session + "/files");
  const std::string without = Report(session);
  EXPECT_EQ(without.find("ArchivedWork"), std::string::npos) << without;
  for (const std::string& file : {built.program, built.library}) {
    EXPECT_NE(without.find("# warning: " + file + ": replaced since the recording (build id "),
              std::string::npos)
        << without;
  }
}

// A file that changed since the recording is not archived, and archive says so; the others are.
// Folded stacks without their inline frames (which come from DWARF, which a compact archive
// does not keep), by stack.
std::map<std::string, uint64_t> WithoutInlineFrames(const std::string& folded) {
  std::map<std::string, uint64_t> stacks;
  std::istringstream lines(folded);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    std::string stack;
    std::istringstream frames(line.substr(0, space));
    for (std::string frame; std::getline(frames, frame, ';');) {
      if (frame.ends_with("_[i]")) continue;
      stack += (stack.empty() ? "" : ";") + frame;
    }
    stacks[stack] += std::stoull(line.substr(space + 1));
  }
  return stacks;
}

// A compact archive of a session whose stacks report unwinds (--keep-stacks) keeps a few KB of
// each file, and the session reports the same stacks from it once the program is gone and the
// library another build, as from the files themselves before.
TEST(ArchiveTest, ACompactArchiveReportsTheSameStacksFromAFewKilobytes) {
  TempDir tmp;
  const Built built = Build(tmp.path());
  const std::string session = tmp.path() + "/session";
  Record(session, built, {"--keep-stacks"});
  const std::string folded = Report(session, "folded");
  EXPECT_NE(folded.find("main;ArchivedOuter;ArchivedWork "), std::string::npos) << folded;

  const ProcessResult archived = RunProgram({JITSCOPE_CLI, "archive", "--compact", session});
  EXPECT_TRUE(archived.ok()) << archived.Describe();
  EXPECT_NE(archived.err.find(" the samples touched in " + session + "/files: "), std::string::npos)
      << archived.err;
  // The section headers take most of what is kept of these small files.
  for (const std::string& file : {built.program, built.library, built.program + ".debug"}) {
    const std::string copy = session + "/files" + file;
    ASSERT_TRUE(std::filesystem::exists(copy)) << file;
    EXPECT_LT(std::filesystem::file_size(copy), std::filesystem::file_size(file)) << file;
  }
  EXPECT_LT(std::filesystem::file_size(session + "/files" + built.library) * 2,
            std::filesystem::file_size(built.library));
  ASSERT_EQ(::unlink(built.program.c_str()), 0);
  ASSERT_EQ(::unlink((built.program + ".debug").c_str()), 0);
  RebuildLibrary(built);
  const std::string text = Report(session);
  EXPECT_NE(text.find(" native files read from the session's archive (" + session + "/files)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("replaced since the recording"), std::string::npos) << text;
  EXPECT_EQ(WithoutInlineFrames(Report(session, "folded")), WithoutInlineFrames(folded));
}

TEST(ArchiveTest, AFileChangedSinceTheRecordingIsRefusedAndSaid) {
  TempDir tmp;
  const Built built = Build(tmp.path());
  const std::string session = tmp.path() + "/session";
  Record(session, built);
  RebuildLibrary(built);
  const ProcessResult archive = Archive(session);
  EXPECT_TRUE(archive.ok()) << archive.Describe();
  EXPECT_NE(archive.err.find("jitscope archive: not archived: " + built.library +
                             ": changed since the recording (build id "),
            std::string::npos)
      << archive.err;
  EXPECT_NE(archive.err.find(" now): not archived, a copy would name other code\n"),
            std::string::npos)
      << archive.err;
  EXPECT_FALSE(std::filesystem::exists(session + "/files" + built.library));
  EXPECT_TRUE(std::filesystem::exists(session + "/files" + built.program));
}

// A session none of whose samples is in a program or library has nothing to archive, and
// archive says so and writes nothing.
TEST(ArchiveTest, ASessionWithoutNativeSamplesHasNothingToArchive) {
  TempDir tmp;
  const std::string session = tmp.path() + "/session";
  // One sample a second of a command that runs for a millisecond: none.
  const ProcessResult record =
      RunProgram({JITSCOPE_CLI, "record", "-F", "1", "-o", session, "--", "/bin/true"});
  ASSERT_TRUE(record.ok()) << record.Describe();
  const std::set<std::string> before = Listing(session);
  const ProcessResult archive = Archive(session);
  EXPECT_TRUE(archive.ok()) << archive.Describe();
  EXPECT_EQ(archive.err, "jitscope archive: no file to archive: none of " + session +
                             "'s samples is in a program or library (its vDSO is in it "
                             "already)\n");
  EXPECT_EQ(Listing(session), before);
}

// A session directory that cannot be written (here a read-only mount of it): a clear error, and
// the session is as it was.
TEST(ArchiveTest, AReadOnlySessionFailsClearlyAndLosesNothing) {
  TempDir tmp;
  const Built built = Build(tmp.path());
  const std::string session = tmp.path() + "/session";
  Record(session, built);
  const std::string text = Report(session);
  const std::set<std::string> before = Listing(session);
  const ProcessResult archive = RunProgram({UNSHARE_PROGRAM, "--mount", "/bin/sh", "-c",
                                            "mount --bind \"$0\" \"$0\" && mount -o "
                                            "remount,ro,bind \"$0\" && exec \"$1\" archive \"$0\"",
                                            session, JITSCOPE_CLI});
  EXPECT_EQ(archive.exit_code, 1) << archive.Describe();
  EXPECT_TRUE(archive.err.starts_with("jitscope archive: error: cannot write into the session " +
                                      session + ": "))
      << archive.err;
  EXPECT_NE(archive.err.find("Read-only file system; it is as it was\n"), std::string::npos)
      << archive.err;
  EXPECT_EQ(Listing(session), before);
  EXPECT_EQ(Report(session), text);
}

// Not a session: a clear error.
TEST(ArchiveTest, WhatIsNotASessionIsRefused) {
  TempDir tmp;
  const std::string file = tmp.path() + "/perf.data";
  ASSERT_TRUE(test_support::WriteFile(file, "PERFILE2"));
  const ProcessResult archive = Archive(file);
  EXPECT_EQ(archive.exit_code, 1);
  EXPECT_EQ(archive.err, "jitscope archive: error: " + file +
                             ": not a session directory (jitscope record); a perf.data's files "
                             "are perf archive's\n");
  const ProcessResult missing = Archive(tmp.path() + "/none");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err,
            "jitscope archive: error: " + tmp.path() + "/none: No such file or directory\n");
}

}  // namespace
}  // namespace jitscope::record
