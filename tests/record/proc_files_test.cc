// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The /proc readers of `record -p` and the records it synthesizes from them: exact values from
// well-formed files, malformed lines counted and passed over, and synthesized records that the
// samples file's own decoder reads back as the kernel's.
#include "jitscope/record/proc_files.h"

#include <unistd.h>

#include <variant>

#include <gtest/gtest.h>

#include "jitscope/record/attach.h"
#include "jitscope/session/perf_record.h"

namespace jitscope::record {
namespace {

TEST(ProcFilesTest, MapsLinesOfEveryKind) {
  const ProcMaps maps = ParseProcMaps(
      "55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1835023                    /usr/bin/jit vm\n"
      "7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n"
      "7f0000002000-7f0000003000 r-xp 00000000 00:00 0\n"
      "7ffd1b7e5000-7ffd1b7e7000 r-xp 00000000 00:00 0                          [vdso]\n"
      "7f1000000000-7f1000001000 r--p 00001000 08:10 42   /tmp/jit-7.dump (deleted)\n");
  EXPECT_EQ(maps.malformed_lines, 0u);
  const std::vector<ProcMapping> expected = {
      {0x55d0c0a00000, 0x55d0c0a21000, 0x2000, true, 0xfd, 1, 1835023, "/usr/bin/jit vm"},
      {0x7f0000000000, 0x7f0000001000, 0, true, 0, 0, 0, ""},
      {0x7f0000002000, 0x7f0000003000, 0, true, 0, 0, 0, ""},
      {0x7ffd1b7e5000, 0x7ffd1b7e7000, 0, true, 0, 0, 0, "[vdso]"},
      {0x7f1000000000, 0x7f1000001000, 0x1000, false, 8, 0x10, 42, "/tmp/jit-7.dump (deleted)"}};
  EXPECT_EQ(maps.mappings, expected);
}

TEST(ProcFilesTest, MalformedMapsLinesAreCountedAndSkipped) {
  const ProcMaps maps = ParseProcMaps(
      "garbage\n"
      "2000-1000 r-xp 00000000 00:00 0\n"            // ends before it starts
      "1000-2000 r-x 00000000 00:00 0\n"             // three permission letters
      "1000-2000 r-xp 0000g000 00:00 0\n"            // not hex
      "1000-2000 r-xp 00000000 0000 0\n"             // no device minor
      "1000-2000 r-xp 00000000 00:00\n"              // no inode
      "10000000000000000-1 r-xp 00000000 00:00 0\n"  // past 64 bits
      "\n"
      "1000-2000 r-xp 00000000 00:00 0 /ok");
  EXPECT_EQ(maps.malformed_lines, 7u);
  ASSERT_EQ(maps.mappings.size(), 1u);
  EXPECT_EQ(maps.mappings[0].name, "/ok");
}

TEST(ProcFilesTest, EnvironmentAndCommandLine) {
  using namespace std::string_literals;
  const std::string environ =
      "PATH=/bin\0JITSCOPE_OUTPUT_DIR_X=no\0JITSCOPE_OUTPUT_DIR=/a=b\0JITSCOPE_OUTPUT_DIR=2\0"s;
  EXPECT_EQ(FindEnvironmentValue(environ, "JITSCOPE_OUTPUT_DIR"), "/a=b");
  EXPECT_EQ(FindEnvironmentValue(environ, "PATH"), "/bin");
  EXPECT_EQ(FindEnvironmentValue(environ, "HOME"), std::nullopt);
  EXPECT_EQ(FindEnvironmentValue("HOME\0=x"s, "HOME"), std::nullopt);
  EXPECT_EQ(SplitNulSeparated("jitvm\0a b.jv\0\0x"s),
            (std::vector<std::string>{"jitvm", "a b.jv", "", "x"}));
  EXPECT_EQ(SplitNulSeparated(""), std::vector<std::string>{});
}

TEST(ProcFilesTest, StatusFields) {
  const std::string status =
      "Name:\tjitvm\nUmask:\t0022\nUid:\t1000\t1001\t1002\t1003\n"
      "CapEff:\t000001fffeffffff\nUidX:\t5\n";
  EXPECT_EQ(FindStatusField(status, "Name"), "jitvm");
  EXPECT_EQ(FindStatusField(status, "Uid"), "1000\t1001\t1002\t1003");
  EXPECT_EQ(FindStatusField(status, "Gid"), std::nullopt);
  EXPECT_EQ(StatusRealUid(status), 1000u);
  EXPECT_EQ(StatusEffectiveCapabilities(status), 0x1fffeffffffull);
  EXPECT_EQ(StatusRealUid("Uid:\tx\n"), std::nullopt);
  EXPECT_EQ(StatusEffectiveCapabilities("CapEff:\t12 34\n"), std::nullopt);
  EXPECT_EQ(StatusEffectiveCapabilities("CapEff:\t10000000000000000\n"), std::nullopt);
}

// The pid inside the process's own namespace is the last of NSpid's, one per level.
TEST(ProcFilesTest, NamespacePid) {
  EXPECT_EQ(StatusNamespacePid("Name:\tnode\nNSpid:\t4321\n"), 4321);
  EXPECT_EQ(StatusNamespacePid("Name:\tnode\nNSpid:\t4321\t1\nNSsid:\t0\n"), 1);
  EXPECT_EQ(StatusNamespacePid("NSpid:\t4321\t17\t2\n"), 2);
  EXPECT_EQ(StatusNamespacePid("NSpid:\t4321\t7"), 7) << "no final newline";
}

// What a status file written by something else, or a kernel older than 4.1, can hold: never a
// pid that is not one.
TEST(ProcFilesTest, NamespacePidOfHostileStatus) {
  for (const char* bad : {"", "Name:\tnode\n", "NSpid:\n", "NSpid:\t\n", "NSpid:\t4321\tx\n",
                          "NSpid:\t4321\t-1\n", "NSpid:\t4321\t0\n", "NSpid:\t4321\t99999999999\n",
                          "NSpid:\t4321\t\t1\n", "NSpid:\t4321 1\n", "NSpid:\t+1\n", "NSpidX:\t1\n",
                          "nspid:\t1\n", "NSpid:\t0x10\n", "NSpid:\t4321\t1\r\n"}) {
    EXPECT_EQ(StatusNamespacePid(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(StatusNamespacePid(std::string("NSpid:\t12\0\t3\n", 13)), std::nullopt);
  // The first NSpid line is the kernel's; a second cannot come from it.
  EXPECT_EQ(StatusNamespacePid("NSpid:\t9\t3\nNSpid:\t5\n"), 3);
  EXPECT_EQ(StatusNamespacePid(std::string(100000, '\n') + "NSpid:\t9\t3\n"), 3);
}

TEST(ProcFilesTest, TaskIds) {
  EXPECT_EQ(ParseTaskId("1234"), 1234);
  for (const char* bad : {".", "..", "", "0", "01", "-1", "12a", "99999999999"}) {
    EXPECT_EQ(ParseTaskId(bad), std::nullopt) << bad;
  }
}

TEST(ProcFilesTest, OwnProcessIsReadable) {
  base::StatusOr<std::vector<pid_t>> threads = ListThreads(::getpid());
  ASSERT_TRUE(threads.ok()) << threads.status().message();
  EXPECT_NE(std::find(threads->begin(), threads->end(), ::getpid()), threads->end());
  base::StatusOr<std::string> maps = ReadProcFile("/proc/self/maps", 1 << 26);
  ASSERT_TRUE(maps.ok()) << maps.status().message();
  EXPECT_EQ(ParseProcMaps(*maps).malformed_lines, 0u);
  base::StatusOr<std::string> small = ReadProcFile("/proc/self/maps", 16);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.status().message(), "/proc/self/maps: longer than 16 bytes");
  EXPECT_EQ(ListThreads(0).status().errno_value(), ENOENT);
}

TEST(AttachRecordsTest, CollectorOutputDirectory) {
  using namespace std::string_literals;
  EXPECT_EQ(CollectorOutputDir("A=1\0"s, "/home/me"), "");  // no collector configured
  EXPECT_EQ(CollectorOutputDir("INTEL_JIT_PROFILER64=/c.so\0"s, "/home/me"), "/home/me");
  // The ITT API's alone: a process whose only reports are its tasks.
  EXPECT_EQ(CollectorOutputDir("INTEL_LIBITTNOTIFY64=/c.so\0"s, "/home/me"), "/home/me");
  EXPECT_EQ(CollectorOutputDir("INTEL_JIT_PROFILER64=/c.so\0JITSCOPE_OUTPUT_DIR=t\0"s, "/w/"),
            "/w/t");
  EXPECT_EQ(CollectorOutputDir("INTEL_JIT_PROFILER64=/c.so\0JITSCOPE_OUTPUT_DIR=/abs\0"s, ""),
            "/abs");
  EXPECT_EQ(CollectorOutputDir("INTEL_JIT_PROFILER64=/c.so\0JITSCOPE_OUTPUT_DIR=t\0"s, ""), "");
}

TEST(AttachRecordsTest, SynthesizedRecordsDecodeAsTheKernelsOwn) {
  const ProcMapping mapping{0x1000, 0x3000, 0x2000, true, 8, 1, 99, "/usr/lib/libv8.so"};
  base::StatusOr<session::PerfRecord> mmap =
      session::ParsePerfRecord(MakeMmap2Record(10, 11, 555, mapping));
  ASSERT_TRUE(mmap.ok()) << mmap.status().message();
  const auto* decoded = std::get_if<session::Mapping>(&*mmap);
  ASSERT_NE(decoded, nullptr);
  EXPECT_EQ(decoded->pid, 10u);
  EXPECT_EQ(decoded->tid, 11u);
  EXPECT_EQ(decoded->time_ns, 555u);
  EXPECT_EQ(decoded->start, 0x1000u);
  EXPECT_EQ(decoded->length, 0x2000u);
  EXPECT_EQ(decoded->file_offset, 0x2000u);
  EXPECT_EQ(decoded->filename, "/usr/lib/libv8.so");

  base::StatusOr<session::PerfRecord> anon =
      session::ParsePerfRecord(MakeMmap2Record(10, 10, 1, ProcMapping{0, 8, 0, true, 0, 0, 0, ""}));
  ASSERT_TRUE(anon.ok());
  EXPECT_EQ(std::get<session::Mapping>(*anon).filename, "//anon");

  // A name of a multiple of 8 bytes still gets its NUL, as the kernel pads.
  const std::string comm_bytes = MakeCommRecord(10, 12, 556, "worker-1");
  EXPECT_EQ(comm_bytes.size(), 8u + 8u + 16u + 16u);
  base::StatusOr<session::PerfRecord> comm = session::ParsePerfRecord(comm_bytes);
  ASSERT_TRUE(comm.ok()) << comm.status().message();
  const auto* name = std::get_if<session::Comm>(&*comm);
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->pid, 10u);
  EXPECT_EQ(name->tid, 12u);
  EXPECT_EQ(name->time_ns, 556u);
  EXPECT_FALSE(name->exec);
  EXPECT_EQ(name->name, "worker-1");
}

}  // namespace
}  // namespace jitscope::record
