// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The importers on files written, during the test, by the real programs that produce them:
// Node's V8 (`node --perf-prof`), LLVM's MCJIT (`lli-14 -jit-kind=mcjit`, whose
// PerfJITEventListener writes a jitdump under $JITDUMPDIR) and oneDNN (DNNL_JIT_PROFILE=4). Each
// test resolves addresses through the whole pipeline (format detection, reader, importer, index)
// and checks names and, where the producer wrote them, lines. A missing producer fails the test.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "jitscope/base/files.h"
#include "jitscope/formats/jitdump_reader.h"
#include "jitscope/symbolize/source_set.h"
#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/v8_names.h"

namespace jitscope::symbolize {
namespace {

namespace fs = std::filesystem;

using test_support::RunProgram;
using test_support::TempDir;
using test_support::WriteFile;

void RequireTool(const std::string& tool) {
  ASSERT_TRUE(RunProgram({"/bin/sh", "-c", "command -v " + tool}).ok())
      << tool << " is not installed: run scripts/setup (this test needs the real program)";
}

// The single jit-*.dump file under `dir`.
std::string FindJitdump(const std::string& dir) {
  std::string found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("jit-") && name.ends_with(".dump")) {
      EXPECT_TRUE(found.empty()) << "more than one jitdump under " << dir;
      found = entry.path().string();
    }
  }
  EXPECT_FALSE(found.empty()) << "no jit-*.dump under " << dir;
  return found;
}

struct Loaded {
  SymbolIndex index;
  std::optional<base::MappedFile> file;  // what `dump` points into
  formats::ParsedJitdump dump;
};

// Builds the index from the directory (as `jitscope resolve DIR` does) and parses the jitdump
// directly, to know what to ask.
std::unique_ptr<Loaded> Load(const std::string& dir) {
  auto loaded = std::make_unique<Loaded>();
  auto sources = SourceSet::Open({dir});
  EXPECT_TRUE(sources.ok()) << sources.status().message();
  if (!sources.ok()) return loaded;
  EXPECT_TRUE(sources->problems().empty()) << sources->problems().front();
  loaded->index = sources->BuildIndex(std::nullopt);
  auto file = base::MappedFile::Open(FindJitdump(dir));
  EXPECT_TRUE(file.ok());
  if (!file.ok()) return loaded;
  loaded->file = std::move(file).value();
  auto dump = formats::ParseJitdump({loaded->file->data(), loaded->file->size()}, "jitdump");
  EXPECT_TRUE(dump.ok());
  if (!dump.ok()) return loaded;
  EXPECT_TRUE(dump->error.ok()) << dump->error.message();
  loaded->dump = std::move(dump).value();
  return loaded;
}

// Every CODE_LOAD resolves, at its own time, to itself: its name, code_index and region.
void ExpectEveryLoadResolvesToItself(const Loaded& loaded) {
  Resolution r;
  size_t checked = 0;
  const auto& records = loaded.dump.records;
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& rec = records[i];
    if (rec.kind != formats::JitdumpRecordKind::kCodeLoad || rec.code_size == 0) continue;
    // A later load at the same address and the same nanosecond legitimately wins.
    bool shadowed = false;
    for (size_t j = i + 1; j < records.size() && records[j].timestamp == rec.timestamp; ++j) {
      shadowed |= records[j].code_addr < rec.code_addr + rec.code_size &&
                  rec.code_addr < records[j].code_addr + records[j].code_size;
    }
    if (shadowed) continue;
    ASSERT_TRUE(loaded.index.Resolve(rec.code_addr, rec.timestamp, r)) << rec.name;
    ASSERT_FALSE(r.frames.empty());
    EXPECT_EQ(r.frames.back().name, rec.name);
    EXPECT_EQ(r.frames.back().method_id, rec.code_index);
    EXPECT_EQ(r.region.start, rec.code_addr);
    EXPECT_EQ(r.region.size, rec.code_size);
    EXPECT_EQ(r.region.loaded, rec.timestamp);
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

const formats::JitdumpRecord* FindLoad(const Loaded& loaded,
                                       const std::function<bool(std::string_view)>& matches,
                                       bool with_lines) {
  for (const auto& rec : loaded.dump.records) {
    if (rec.kind == formats::JitdumpRecordKind::kCodeLoad && matches(rec.name) &&
        (!with_lines || rec.line_count > 0)) {
      return &rec;
    }
  }
  return nullptr;
}

const formats::JitdumpRecord* FindLoad(const Loaded& loaded, const std::string& name_part,
                                       bool with_lines) {
  return FindLoad(
      loaded, [&](std::string_view name) { return name.find(name_part) != std::string_view::npos; },
      with_lines);
}

// The lines the index gives over every byte of a code region.
std::set<uint32_t> LinesOver(const Loaded& loaded, const formats::JitdumpRecord& rec,
                             std::string* file) {
  std::set<uint32_t> lines;
  Resolution r;
  for (uint64_t a = rec.code_addr; a < rec.code_addr + rec.code_size; ++a) {
    if (!loaded.index.Resolve(a, rec.timestamp, r)) continue;
    if (r.frames.back().line != 0) lines.insert(r.frames.back().line);
    if (file && !r.frames.back().file.empty()) *file = r.frames.back().file;
  }
  return lines;
}

TEST(RealProducers, NodePerfProf) {
  RequireTool("node");
  TempDir dir;
  ASSERT_TRUE(WriteFile(dir.path() + "/fib.js",
                        "function fibonacci(n) {\n"
                        "  return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);\n"
                        "}\n"
                        "let total = 0;\n"
                        "for (let i = 0; i < 300; ++i) total += fibonacci(18);\n"
                        "if (total !== 775200) throw new Error('wrong total ' + total);\n"));
  const auto node = RunProgram({"node", "--perf-prof", "fib.js"}, {}, {.cwd = dir.path()});
  ASSERT_TRUE(node.ok()) << node.Describe();
  const auto loaded_ptr = Load(dir.path());
  const Loaded& loaded = *loaded_ptr;
  ExpectEveryLoadResolvesToItself(loaded);
  // V8 wrote line tables for compiled JavaScript: every byte of every compiled fibonacci resolves
  // to its lines (1, the declaration, or 2, the body) in fib.js (Node 20 writes that name from
  // freed memory; the reader takes it from the code's name), and the optimized (TurboFan, "*")
  // code starts on line 1.
  std::set<uint32_t> all_lines;
  size_t with_lines = 0;
  for (const auto& rec : loaded.dump.records) {
    if (rec.name.find("fibonacci") == std::string_view::npos || rec.line_count == 0) continue;
    EXPECT_NE(rec.name.find("fib.js:1"), std::string_view::npos) << rec.name;
    std::string file;
    const std::set<uint32_t> lines = LinesOver(loaded, rec, &file);
    EXPECT_EQ(file, dir.path() + "/fib.js") << rec.name;
    EXPECT_TRUE(std::includes(std::set<uint32_t>{1, 2}.begin(), std::set<uint32_t>{1, 2}.end(),
                              lines.begin(), lines.end()))
        << rec.name << ": " << ::testing::PrintToString(lines);
    all_lines.insert(lines.begin(), lines.end());
    ++with_lines;
  }
  EXPECT_GT(with_lines, 0u) << "V8 wrote no DEBUG_INFO for fibonacci";
  EXPECT_TRUE(all_lines.contains(2));
  const auto* optimized = FindLoad(
      loaded,
      [](std::string_view name) {
        const auto parsed = test_support::ParseV8CodeName(name);
        return parsed && parsed->tier == '*' && parsed->function == "fibonacci";
      },
      true);
  ASSERT_NE(optimized, nullptr) << "fibonacci was not optimized by TurboFan";
  Resolution r;
  ASSERT_TRUE(loaded.index.Resolve(optimized->code_addr, optimized->timestamp, r));
  EXPECT_EQ(r.frames.back().line, 1u);
  // The V8 header-size bias (0x40) was recognised in this file.
  EXPECT_EQ(loaded.dump.stats.line_address_bias, 0x40u);
}

TEST(RealProducers, LliMcjit) {
  RequireTool("lli-14");
  RequireTool("clang-14");
  TempDir dir;
  ASSERT_TRUE(WriteFile(dir.path() + "/t.c",
                        "int work(int n) {\n"
                        "  int s = 0;\n"
                        "  for (int i = 0; i < n; ++i)\n"
                        "    s += i * 3;\n"
                        "  return s;\n"
                        "}\n"
                        "int main(void) { return work(10) == 135 ? 0 : 1; }\n"));
  const auto clang = RunProgram({"clang-14", "-g", "-O0", "-S", "-emit-llvm", "t.c", "-o", "t.ll"},
                                {}, {.cwd = dir.path()});
  ASSERT_TRUE(clang.ok()) << clang.Describe();
  const auto lli = RunProgram({"lli-14", "-jit-kind=mcjit", "t.ll"}, {{"JITDUMPDIR", dir.path()}},
                              {.cwd = dir.path()});
  ASSERT_TRUE(lli.ok()) << lli.Describe();
  const auto loaded_ptr = Load(dir.path());
  const Loaded& loaded = *loaded_ptr;
  ExpectEveryLoadResolvesToItself(loaded);
  // LLVM adds 0x40 to every line address (LLVM's PerfJITEventListener.cpp); after removing it, the
  // function's first byte is its opening line and every line of its body appears.
  EXPECT_EQ(loaded.dump.stats.line_address_bias, 0x40u);
  const auto* work = FindLoad(loaded, "work", true);
  ASSERT_NE(work, nullptr);
  Resolution r;
  ASSERT_TRUE(loaded.index.Resolve(work->code_addr, work->timestamp, r));
  EXPECT_EQ(r.frames.back().name, "work");
  EXPECT_EQ(r.frames.back().line, 1u);
  std::string file;
  EXPECT_EQ(LinesOver(loaded, *work, &file), (std::set<uint32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(file, dir.path() + "/t.c");
  const auto* main_fn = FindLoad(loaded, "main", true);
  ASSERT_NE(main_fn, nullptr);
  EXPECT_EQ(LinesOver(loaded, *main_fn, nullptr), (std::set<uint32_t>{7}));
}

TEST(RealProducers, OneDnnJitdump) {
  TempDir dir;
  const auto client =
      RunProgram({JITSCOPE_DNNL_CLIENT}, {{"DNNL_JIT_PROFILE", "4"}, {"JITDUMPDIR", dir.path()}});
  ASSERT_TRUE(client.ok()) << client.Describe();
  const auto loaded_ptr = Load(dir.path());
  const Loaded& loaded = *loaded_ptr;
  ExpectEveryLoadResolvesToItself(loaded);
  // The ReLU and the reorder kernels; oneDNN writes names but no lines.
  std::set<std::string> names;
  for (const auto& rec : loaded.dump.records) names.insert(std::string(rec.name));
  EXPECT_TRUE(names.contains("jit_uni_kernel")) << ::testing::PrintToString(names);
  EXPECT_GE(names.size(), 2u) << ::testing::PrintToString(names);
  Resolution r;
  const auto* kernel = FindLoad(loaded, "jit_uni_kernel", false);
  ASSERT_TRUE(loaded.index.Resolve(kernel->code_addr + kernel->code_size - 1, kLatest, r));
  EXPECT_EQ(r.frames.back().name, "jit_uni_kernel");
  EXPECT_EQ(r.frames.back().line, 0u);
  EXPECT_FALSE(loaded.index.Resolve(kernel->code_addr + kernel->code_size, kernel->timestamp, r) &&
               r.frames.back().name == "jit_uni_kernel");
}

}  // namespace
}  // namespace jitscope::symbolize
