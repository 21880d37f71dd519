// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The files a symbol index is built from (symbolize/source_set.h): which process each belongs
// to, and, while the process runs, up to when the jitdumps its engine writes are whole.
#include "jitscope/symbolize/source_set.h"

#include <sys/stat.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/jitdump_writer.h"
#include "support/files.h"
#include "support/jvm_table_builder.h"
#include "support/temp_dir.h"

namespace jitscope::symbolize {
namespace {

// The copies record keeps of a process in another pid namespace name its pid there (perf-1.map):
// in a directory given as that process's, a file is its, whatever its name or header says.
TEST(SourceSetTest, FilesOfADirectoryGivenAsAProcesssAreItsWhateverTheyName) {
  test_support::TempDir dir;
  const std::string copies = dir.path() + "/pid-4321";
  ASSERT_EQ(::mkdir(copies.c_str(), 0700), 0);
  {
    std::ofstream map(copies + "/perf-1.map");
    map << "1000 10 nsFunction\n";
  }
  auto plain = SourceSet::Open({dir.path()});
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->pids(), std::set<uint32_t>{1});
  auto owned = SourceSet::Open({dir.path()}, {{dir.path() + "/./pid-4321", 4321}});
  ASSERT_TRUE(owned.ok()) << owned.status().message();
  EXPECT_EQ(owned->pids(), std::set<uint32_t>{4321});
  SymbolIndex index = owned->BuildIndex(4321);
  Resolution resolution;
  ASSERT_TRUE(index.Resolve(0x1004, kLatest, resolution));
  ASSERT_FALSE(resolution.frames.empty());
  EXPECT_EQ(resolution.frames[0].name, "nsFunction");
}

// A JVM's files: HotSpot's perf map, whose `Interpreter` line says where its interpreter is, and
// the agent's JVM table, whose methods name the process's interpreter frames.
TEST(SourceSetTest, AJvmsInterpreterAndMethodsAreFoundInItsFiles) {
  test_support::TempDir dir;
  ASSERT_TRUE(test_support::WriteFile(dir.path() + "/perf-55.map",
                                      "7f0000100000 17de0 Interpreter\n"
                                      "7f0000200000 40 Interpreters are not it\n"
                                      "7f0000300000 80 void Work.run()\n"));
  test_support::JvmTableBuilder table(55);
  table.AddMethod(0, {0x7f0000001000, 0, 0, false, "Work", "run", "()V", "Work.java", {}});
  ASSERT_TRUE(test_support::WriteFile(dir.path() + "/jvm-55.jsm", table.bytes()));
  auto set = SourceSet::Open({dir.path()});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->pids(), std::set<uint32_t>{55});
  const std::vector<SourceSet::CodeRange> interpreter = set->InterpreterCode(55);
  ASSERT_EQ(interpreter.size(), 1u);
  EXPECT_EQ(interpreter[0].start, 0x7f0000100000u);
  EXPECT_EQ(interpreter[0].size, 0x17de0u);
  EXPECT_TRUE(set->InterpreterCode(56).empty());
  const JavaMethods methods = set->JavaMethodsOf(55);
  ASSERT_TRUE(methods.Find(0x7f0000001000, 10));
  EXPECT_EQ(methods.Find(0x7f0000001000, 10)->name, "Work.run()V");
  EXPECT_TRUE(set->JavaMethodsOf(56).empty());
}

constexpr uint32_t kPid = 77;

// A jitdump of process kPid: its header, then a CODE_LOAD at each of `times`, of 16 bytes of
// code but the last, of `last_code_size`.
std::vector<uint8_t> Jitdump(const std::vector<uint64_t>& times, uint64_t last_code_size = 16) {
  std::vector<uint8_t> bytes;
  formats::AppendJitdumpHeader(bytes, kPid, 1);
  uint64_t address = 0x10000;
  for (uint64_t time : times) {
    const uint64_t code_size = time == times.back() ? last_code_size : 16;
    formats::JitdumpCodeLoadFields load;
    load.timestamp = time;
    load.pid = kPid;
    load.tid = kPid;
    load.code_address = address;
    load.code_size = code_size;
    load.code_index = time;
    load.name = "f";
    EXPECT_TRUE(formats::AppendJitdumpCodeLoadPrefix(bytes, load));
    bytes.insert(bytes.end(), code_size, 0xc3);
    address += 0x1000;
  }
  return bytes;
}

// WholeUpTo(kPid) of a set of `jitdumps`, each written as a file of its own.
std::optional<uint64_t> WholeUpTo(const std::vector<std::vector<uint8_t>>& jitdumps) {
  test_support::TempDir dir;
  for (size_t i = 0; i < jitdumps.size(); ++i) {
    const std::string path = dir.path() + "/" + std::to_string(i) + "-jit-77.dump";
    EXPECT_TRUE(test_support::WriteFile(path, std::string(jitdumps[i].begin(), jitdumps[i].end())));
  }
  auto sources = SourceSet::Open({dir.path()});
  EXPECT_TRUE(sources.ok()) << sources.status().message();
  return sources.ok() ? sources->WholeUpTo(kPid) : std::optional<uint64_t>(0);
}

// LLVM's listener writes each object's records and flushes them before the code runs: a file
// that ends where a record ends holds every load up to when it was read.
TEST(SourceSetWholeUpTo, AJitdumpWrittenRecordByRecordIsWholeAsItStands) {
  const std::vector<uint8_t> jitdump = Jitdump({100, 200});
  ASSERT_NE(jitdump.size() % 4096, 0u);
  EXPECT_EQ(WholeUpTo({jitdump}), std::nullopt);
  EXPECT_EQ(WholeUpTo({}), std::nullopt);
}

// A file that ends inside a record is being written, or flushed a block at a time from a stdio
// buffer, which may still hold loads: whole up to its last whole record.
TEST(SourceSetWholeUpTo, AJitdumpThatEndsInsideARecordIsWholeUpToItsLastRecord) {
  std::vector<uint8_t> jitdump = Jitdump({100, 200, 300});
  jitdump.resize(jitdump.size() - 5);
  EXPECT_EQ(WholeUpTo({jitdump}), 200u);
}

// A stdio buffer flushes whole blocks (4 KiB and their multiples); a file of such a size ends
// where a record ends only by chance, and its buffer may hold more.
TEST(SourceSetWholeUpTo, AJitdumpOfAWholeNumberOfBlocksIsWholeUpToItsLastRecord) {
  const std::vector<uint8_t> short_of_it = Jitdump({100, 200});
  const uint64_t code_size = 16 + 4096 - short_of_it.size();
  const std::vector<uint8_t> jitdump = Jitdump({100, 200}, code_size);
  ASSERT_EQ(jitdump.size(), 4096u);
  EXPECT_EQ(WholeUpTo({jitdump}), 200u);
  EXPECT_EQ(WholeUpTo({Jitdump({100, 200, 300}), jitdump}), 200u);
}

// A writer that made the file longer than its records (zero bytes) writes where it pleases.
TEST(SourceSetWholeUpTo, AJitdumpEndingInZeroBytesIsWholeUpToItsLastRecord) {
  std::vector<uint8_t> jitdump = Jitdump({100, 200});
  jitdump.resize(jitdump.size() + 24, 0);
  EXPECT_EQ(WholeUpTo({jitdump}), 200u);
}

}  // namespace
}  // namespace jitscope::symbolize
