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
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/formats/jitdump_writer.h"
#include "jitscope/trace/writer.h"
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

// Copied (record's unwinding while it records), a directory's files are copied only when their
// first bytes may be a JIT file's, and the set found is the one mapping them finds: a perf map
// whose first line is longer than those bytes is found too, and a binary file longer than them
// without a newline is copied to tell.
TEST(SourceSetTest, CopiedADirectorysFilesAreReadWholeOnlyWhenTheyMayBeJitFiles) {
  test_support::TempDir dir;
  const std::string long_name(5000, 'f');
  ASSERT_TRUE(test_support::WriteFile(dir.path() + "/perf-61.map", "1000 10 " + long_name + "\n"));
  ASSERT_TRUE(test_support::WriteFile(dir.path() + "/perf-62.map", "2000 10 short\n"));
  ASSERT_TRUE(test_support::WriteFile(dir.path() + "/samples", std::string(1 << 20, 'x') + "\n"));
  ASSERT_TRUE(
      test_support::WriteFile(dir.path() + "/lines", "not a map\n" + std::string(9000, 'y')));
  ASSERT_TRUE(test_support::WriteFile(dir.path() + "/small", "tiny"));
  base::CopyBuffers buffers;
  auto copied = SourceSet::Open({dir.path()}, {}, FileHolding::kCopied, &buffers);
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  auto mapped = SourceSet::Open({dir.path()});
  ASSERT_TRUE(mapped.ok()) << mapped.status().message();
  EXPECT_EQ(copied->pids(), (std::set<uint32_t>{61, 62}));
  EXPECT_EQ(copied->pids(), mapped->pids());
  EXPECT_EQ(copied->file_count(), mapped->file_count());
  // Copied: the two maps, and `samples` (its first line is longer than the bytes looked at).
  EXPECT_EQ(buffers.count(), 3u);
  SymbolIndex index = copied->BuildIndex(61);
  Resolution resolution;
  ASSERT_TRUE(index.Resolve(0x1004, kLatest, resolution));
  ASSERT_FALSE(resolution.frames.empty());
  EXPECT_EQ(resolution.frames[0].name, long_name);
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

// A perf map whose engine died, or was copied, in the middle of a line: the lines before it name
// their code, and the one cut short is left out and said, not read as a name cut short.
TEST(SourceSetTest, APerfMapsLastLineCutShortIsLeftOutAndSaid) {
  test_support::TempDir dir;
  const std::string path = dir.path() + "/perf-66.map";
  ASSERT_TRUE(test_support::WriteFile(path, "1000 10 whole\n2000 10 cut sh"));
  auto set = SourceSet::Open({dir.path()});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(
      set->problems(),
      std::vector<std::string>{path + ": its last line (14 bytes) has no newline: it was cut short "
                                      "while it was written, and is left out"});
  SymbolIndex index = set->BuildIndex(66);
  Resolution resolution;
  ASSERT_TRUE(index.Resolve(0x1004, kLatest, resolution));
  ASSERT_FALSE(resolution.frames.empty());
  EXPECT_EQ(resolution.frames[0].name, "whole");
  EXPECT_FALSE(index.Resolve(0x2004, kLatest, resolution));
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

// Writes the trace `directory`/`name` of `identity`, in which method 1000, `method`, was loaded at
// `time` at [address, address + size).
void WriteOneLoadTrace(const std::string& directory, const std::string& name,
                       const trace::TraceIdentity& identity, uint64_t time, uint64_t address,
                       uint64_t size, const std::string& method) {
  auto fd = base::CreateExclusive(directory, name, 0600);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  auto writer = trace::TraceWriter::Create(std::move(fd).value(), identity);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  trace::CodeEvent code;
  code.api_event = trace::kEventMethodLoadFinished;
  code.method_id = 1000;
  code.address = address;
  code.size = size;
  code.name = method;
  ASSERT_EQ((*writer)->Append(code, time, identity.pid), trace::TraceWriter::AppendResult::kOk);
}

// A trace supersedes the jitdump its collector wrote beside it whatever names their directory:
// `jitscope report perf.data` found the trace as ./jit-<pid>.jsc and the jitdump by the absolute
// path perf recorded, took them for two directories and read both, and the jitdump's loads
// overrode the trace's (its inline frames were lost). Here the directory is named through a link.
TEST(SourceSetTest, ATraceSupersedesItsJitdumpWhateverPathNamesTheirDirectory) {
  test_support::TempDir dir;
  const std::string real = dir.path() + "/real", link = dir.path() + "/link";
  ASSERT_EQ(::mkdir(real.c_str(), 0700), 0);
  ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
  WriteOneLoadTrace(real, "jit-77.jsc", {kPid, "/jit", 1, 1, {}}, 10, 0x10000, 16, "from_trace");
  const std::vector<uint8_t> jitdump = Jitdump({2000});  // "f" at 0x10000, later
  ASSERT_TRUE(
      test_support::WriteFile(real + "/jit-77.dump", std::string(jitdump.begin(), jitdump.end())));
  auto set = SourceSet::Open({link + "/jit-77.jsc", real + "/jit-77.dump"});
  ASSERT_TRUE(set.ok()) << set.status().message();
  Resolution resolution;
  const SymbolIndex index = set->BuildIndex(kPid);  // what the resolution's names point into
  ASSERT_TRUE(index.Resolve(0x10000, kLatest, resolution));
  EXPECT_EQ(resolution.frames.front().name, "from_trace");
}

// A process that exec'd: its old program's trace (jit-88.jsc) and its new one's (jit-88.1.jsc),
// each of its own program image, whose method ids both start at 1000.
class SourceSetExecTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kExecPid = 88;
  // Writes a trace of program image `image` that started at `start` and loaded, at `start` + 10,
  // method 1000 named `name` at `address` (64 bytes).
  void WriteTrace(const std::string& name, uint8_t image, uint64_t start, uint64_t address,
                  const std::string& method) {
    trace::TraceIdentity identity{kExecPid, "/usr/bin/execjit", start, start, {}};
    identity.image.fill(image);
    WriteOneLoadTrace(dir_.path(), name, identity, start + 10, address, 64, method);
  }
  // What the set names at each address@time, "??" for nothing.
  static std::vector<std::string> Names(const SourceSet& set,
                                        const std::vector<std::pair<uint64_t, uint64_t>>& queries) {
    const SymbolIndex index = set.BuildIndex(kExecPid);
    std::vector<std::string> names;
    for (const auto& [address, time] : queries) {
      Resolution resolution;
      names.push_back(index.Resolve(address, time, resolution)
                          ? std::string(resolution.frames.front().name)
                          : std::string("??"));
    }
    return names;
  }
  test_support::TempDir dir_;
};

// The new program's method 1000 is not the old program's (one split method whose first name
// wins), and the old program's code ends where the new program's trace starts.
TEST_F(SourceSetExecTest, ANewProgramImagesMethodsAreItsOwnAndTheOldCodeEndsAtItsStart) {
  WriteTrace("jit-88.jsc", 1, 100, 0x10000, "gen_0");
  WriteTrace("jit-88.1.jsc", 2, 1000, 0x20000, "gen_1");
  // A perf map has no time: it holds for the whole process, exec or not. (Beside the traces, the
  // trace would supersede it, as a companion the same collector wrote.)
  const std::string maps = dir_.path() + "/maps";
  ASSERT_EQ(::mkdir(maps.c_str(), 0700), 0);
  std::ofstream(maps + "/perf-88.map") << "30000 40 mapped\n";
  auto set = SourceSet::Open(
      {dir_.path() + "/jit-88.jsc", dir_.path() + "/jit-88.1.jsc", maps + "/perf-88.map"});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(
      Names(
          *set,
          {{0x10000, 500}, {0x10000, 1200}, {0x20000, 1200}, {0x20000, kLatest}, {0x30000, 1200}}),
      (std::vector<std::string>{"gen_0", "??", "gen_1", "gen_1", "mapped"}));
  // The unwinder's view: two versions, each of one region, the old one ended by the exec.
  const CodeHistory history = set->BuildCodeHistory(kExecPid);
  EXPECT_EQ(history.version_count(), 2u);
  EXPECT_EQ(history.Find(0x10000, 1200), nullptr);
  const CodeVersion* old_code = history.Find(0x10000, 500);
  ASSERT_NE(old_code, nullptr);
  EXPECT_EQ(old_code->invalidated_ns, 1000u);
  const CodeVersion* new_code = history.Find(0x20000, 1200);
  ASSERT_NE(new_code, nullptr);
  EXPECT_EQ(new_code->regions.size(), 1u);
}

// An exec a recording saw (a COMM record) ends the code before it where it happened, also when
// the new program writes no trace.
TEST_F(SourceSetExecTest, AnExecNotedEndsTheCodeBeforeIt) {
  WriteTrace("jit-88.jsc", 1, 100, 0x10000, "gen_0");
  auto set = SourceSet::Open({dir_.path()});
  ASSERT_TRUE(set.ok()) << set.status().message();
  set->NoteExecs(kExecPid, {700});
  EXPECT_EQ(Names(*set, {{0x10000, 600}, {0x10000, 700}}),
            (std::vector<std::string>{"gen_0", "??"}));
  EXPECT_EQ(set->BuildCodeHistory(kExecPid).Find(0x10000, 800), nullptr);
  // Another process's exec changes nothing here.
  auto other = SourceSet::Open({dir_.path()});
  ASSERT_TRUE(other.ok());
  other->NoteExecs(kExecPid + 1, {700});
  EXPECT_EQ(Names(*other, {{0x10000, 800}}), std::vector<std::string>{"gen_0"});
}

// Traces written before the header named their image (and traces of the same image) are one
// program, as they always were: the second file's method 1000 is the first's.
TEST_F(SourceSetExecTest, TracesOfOneImageAreOneProgram) {
  WriteTrace("jit-88.jsc", 0, 100, 0x10000, "first");
  WriteTrace("jit-88.1.jsc", 0, 1000, 0x20000, "second");
  auto set = SourceSet::Open({dir_.path()});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(Names(*set, {{0x10000, 1200}, {0x20000, 1200}}),
            (std::vector<std::string>{"first", "first"}));
}

}  // namespace
}  // namespace jitscope::symbolize
