// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// End to end: build/bin/jitvm runs a sample program under the real collector
// (INTEL_JIT_PROFILER64), and `jitscope dump --json` of the trace must show every event kind
// the example JIT is designed to report (jit_reporter.h), with the API's rules holding:
// V2 loads with a module per tier, split functions (two regions, one id), nested inline loads
// inside their parent and not overlapping their siblings, unloads of replaced baseline code,
// later code at a reused address, and line tables in end-offset form. The code bytes it records
// are the code jitvm ran: with and without frame pointers (objdump disassembles them).
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checker.h"
#include "interpreter.h"
#include "output.h"
#include "support/files.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/traces.h"
#include "trace_helpers.h"

namespace jitscope::jitvm {
namespace {

using nlohmann::json;
using test_support::FindTrace;
using test_support::RunProgram;
using test_support::TempDir;

struct Region {
  uint64_t address;
  uint64_t size;
  json lines;
  uint64_t end() const { return address + size; }
  bool Overlaps(const Region& other) const {
    return address < other.end() && other.address < end();
  }
  bool Contains(const Region& inner) const {
    return inner.address >= address && inner.end() <= end();
  }
};

struct Method {
  std::string name;
  std::string module;
  json source;
  std::vector<Region> regions;
  uint64_t loaded_at = 0;
  uint64_t unloaded_at = 0;  // 0: never
};

struct Inline {
  uint32_t id;
  uint32_t parent;
  std::string name;
  json source;
  Region region;
};

struct TraceModel {
  std::map<uint32_t, Method> methods;  // V2 loads by id
  std::vector<Inline> inlines;         // in trace order
  std::vector<uint32_t> unloads;
  std::set<std::string> events;
};

std::string RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr ? resolved : path;
}

// Runs jitvm under the collector and returns the dump, checking what holds for every run.
std::vector<json> RunUnderCollector(const std::vector<std::string>& jitvm_args,
                                    std::string* out = nullptr) {
  TempDir dir;
  std::vector<std::string> argv = {JITVM_BINARY};
  argv.insert(argv.end(), jitvm_args.begin(), jitvm_args.end());
  const auto run = RunProgram(
      argv, {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR}, {"JITSCOPE_OUTPUT_DIR", dir.path()}});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  if (out != nullptr) *out = run.out;
  const base::StatusOr<std::string> trace = FindTrace(dir.path());
  EXPECT_TRUE(trace.ok()) << trace.status().message();
  if (!trace.ok()) return {};
  std::string error;
  std::vector<json> records = DumpJson(JITSCOPE_BINARY, *trace, error);
  EXPECT_EQ(error, "");
  EXPECT_GE(records.size(), 2u);
  if (records.size() < 2) return {};
  EXPECT_EQ(records.front()["type"], "header");
  const json& summary = records.back();
  EXPECT_EQ(summary["type"], "summary");
  EXPECT_EQ(summary["rejected"], json::object()) << "the collector refused events";
  EXPECT_EQ(summary["torn_records"], 0);
  return std::vector<json>(records.begin() + 1, records.end() - 1);
}

TraceModel Model(const std::vector<json>& records) {
  TraceModel model;
  uint64_t last_time = 0;
  for (const json& r : records) {
    const uint64_t time = r["timestamp"];
    EXPECT_GE(time, last_time) << "timestamps go backwards at " << r.dump();
    last_time = time;
    const std::string event = r["event"];
    model.events.insert(event);
    if (event == "METHOD_LOAD_FINISHED_V2") {
      Method& m = model.methods[r["method_id"].get<uint32_t>()];
      if (m.regions.empty()) {
        m.name = r["name"];
        m.module = r["module"];
        m.source = r["source_file"];
        m.loaded_at = time;
      } else {
        // A further region of a split function repeats the symbolic information.
        EXPECT_EQ(r["name"], m.name);
        EXPECT_EQ(r["module"], m.module);
        EXPECT_EQ(r["source_file"], m.source);
      }
      m.regions.push_back({r["address"], r["size"], r["lines"]});
    } else if (event == "CODE_BYTES") {
      // Every region's machine code, whole: jitvm's code is always readable.
      EXPECT_EQ(r["code"].get<std::string>().size(), 2 * r["size"].get<size_t>()) << r.dump();
    } else if (event == "METHOD_INLINE_LOAD_FINISHED") {
      model.inlines.push_back({r["method_id"], r["parent_method_id"], r["name"], r["source_file"],
                               Region{r["address"], r["size"], r["lines"]}});
    } else if (event == "METHOD_UNLOAD_START") {
      const uint32_t id = r["method_id"];
      model.unloads.push_back(id);
      EXPECT_EQ(model.methods.count(id), 1u) << "unload of an unknown method " << id;
      if (model.methods.count(id) != 0) model.methods[id].unloaded_at = time;
    }
  }
  return model;
}

// An end-offset line table that covers the region exactly, with lines of one function.
void ExpectValidLineTable(const Region& region, uint32_t first_line, uint32_t last_line,
                          const std::string& what) {
  ASSERT_FALSE(region.lines.empty()) << what << " has no line table";
  uint64_t previous = 0;
  for (const json& entry : region.lines) {
    const uint64_t offset = entry["offset"];
    const uint32_t line = entry["line"];
    EXPECT_GT(offset, previous) << what << ": offsets must grow (each ends a range)";
    EXPECT_GE(line, first_line) << what;
    EXPECT_LE(line, last_line) << what;
    previous = offset;
  }
  EXPECT_EQ(previous, region.size) << what << ": the last range must end at the region's end";
}

const Function* FindFunction(const Program& program, const std::string& name) {
  for (const Function& f : program.functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(JitvmTrace, HotspotReportsEveryEventKindAsDesigned) {
  const std::string path = std::string(JITVM_PROGRAMS_DIR) + "/hotspot.jv";
  auto program = LoadProgram(path);
  ASSERT_TRUE(program.ok()) << program.status().message();
  std::string out;
  const std::vector<json> records = RunUnderCollector({"--hot-threshold=5", path, "12"}, &out);
  ASSERT_FALSE(records.empty());

  // The program computed what the interpreter computes.
  Output reference;
  ASSERT_TRUE(Interpret(*program, std::vector<int64_t>{12}, reference).ok());
  EXPECT_EQ(out, reference.captured());

  const TraceModel model = Model(records);
  EXPECT_EQ(model.events, (std::set<std::string>{"METHOD_LOAD_FINISHED_V2", "CODE_BYTES",
                                                 "METHOD_INLINE_LOAD_FINISHED",
                                                 "METHOD_UNLOAD_START", "SHUTDOWN"}));
  EXPECT_EQ(records.back()["event"], "SHUTDOWN") << "SHUTDOWN comes last";

  // Methods per module and name.
  std::map<std::string, std::map<std::string, std::vector<uint32_t>>> by_module;
  for (const auto& [id, m] : model.methods) by_module[m.module][m.name].push_back(id);
  const std::string source = RealPath(path);
  // Stubs: no source, no lines.
  ASSERT_EQ(by_module["jitvm-stubs"].size(), 2u);
  for (const char* stub : {"jitvm_runtime_gate", "jitvm_lazy_compile"}) {
    ASSERT_EQ(by_module["jitvm-stubs"][stub].size(), 1u) << stub;
    const Method& m = model.methods.at(by_module["jitvm-stubs"][stub][0]);
    EXPECT_TRUE(m.source.is_null());
    ASSERT_EQ(m.regions.size(), 1u);
    EXPECT_TRUE(m.regions[0].lines.empty());
  }
  // Baseline: every function, once, one region, a line table within the function.
  const std::set<std::string> all = {"main", "series", "checksum", "mix", "rotate", "report"};
  std::set<std::string> baseline_names;
  for (const auto& [name, ids] : by_module["jitvm-baseline"]) {
    baseline_names.insert(name);
    ASSERT_EQ(ids.size(), 1u) << name << " compiled by the baseline tier more than once";
    const Method& m = model.methods.at(ids[0]);
    const Function* f = FindFunction(*program, name);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(m.source, source);
    ASSERT_EQ(m.regions.size(), 1u) << name;
    ExpectValidLineTable(m.regions[0], f->line, f->end_line, "baseline " + name);
  }
  EXPECT_EQ(baseline_names, all);
  // Optimized: the hot functions, each a split function: a hot and a cold region under one id.
  const std::set<std::string> hot = {"series", "checksum", "mix", "rotate"};
  std::set<std::string> optimized_names;
  std::set<uint32_t> optimized_ids;
  for (const auto& [name, ids] : by_module["jitvm-optimized"]) {
    optimized_names.insert(name);
    ASSERT_EQ(ids.size(), 1u) << name;
    optimized_ids.insert(ids[0]);
    const Method& m = model.methods.at(ids[0]);
    const Function* f = FindFunction(*program, name);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(m.source, source);
    ASSERT_EQ(m.regions.size(), 2u) << name << " is not split into a hot and a cold region";
    EXPECT_FALSE(m.regions[0].Overlaps(m.regions[1])) << name;
    ExpectValidLineTable(m.regions[0], f->line, f->end_line, "optimized " + name + " (hot)");
    ExpectValidLineTable(m.regions[1], f->line, f->end_line, "optimized " + name + " (cold)");
    EXPECT_GT(m.loaded_at, model.methods.at(by_module["jitvm-baseline"][name][0]).loaded_at);
  }
  EXPECT_EQ(optimized_names, hot);

  // Inline tree: checksum > mix > rotate, rotate; mix > rotate, rotate. Each inline region lies
  // in its parent's (hot) region, siblings do not overlap, and the parent's own line table
  // keeps one line (the call's) over the inlined range.
  std::map<uint32_t, const Inline*> inline_by_id;
  std::map<uint32_t, std::vector<const Inline*>> children;
  for (const Inline& i : model.inlines) {
    Region parent_region;
    std::string parent_function;
    if (auto it = inline_by_id.find(i.parent); it != inline_by_id.end()) {
      parent_region = it->second->region;
      parent_function = it->second->name;
    } else {
      ASSERT_EQ(optimized_ids.count(i.parent), 1u)
          << "inline " << i.name << " has a parent that is neither optimized code nor an inline";
      parent_region = model.methods.at(i.parent).regions[0];
      parent_function = model.methods.at(i.parent).name;
    }
    EXPECT_TRUE(parent_region.Contains(i.region)) << i.name << " lies outside its parent";
    for (const Inline* sibling : children[i.parent]) {
      EXPECT_FALSE(sibling->region.Overlaps(i.region)) << "siblings overlap: " << i.name;
    }
    const uint32_t call_line =
        LineAt(parent_region.lines, i.region.address - parent_region.address);
    for (uint64_t offset = i.region.address; offset < i.region.end(); ++offset) {
      ASSERT_EQ(LineAt(parent_region.lines, offset - parent_region.address), call_line)
          << "the parent's line over inlined " << i.name << " must be the call's line";
    }
    const Function* caller = FindFunction(*program, parent_function);
    ASSERT_NE(caller, nullptr);
    EXPECT_GT(call_line, caller->line);
    EXPECT_LT(call_line, caller->end_line);
    const Function* callee = FindFunction(*program, i.name);
    ASSERT_NE(callee, nullptr);
    EXPECT_EQ(i.source, source);
    ExpectValidLineTable(i.region, callee->line, callee->end_line, "inline " + i.name);
    inline_by_id[i.id] = &i;
    children[i.parent].push_back(&i);
  }
  auto shape = [&](uint32_t id, auto&& self) -> std::string {
    std::string text;
    for (const Inline* child : children[id])
      text += child->name + "(" + self(child->id, self) + ")";
    return text;
  };
  std::map<std::string, std::string> trees;
  for (uint32_t id : optimized_ids) trees[model.methods.at(id).name] = shape(id, shape);
  EXPECT_EQ(trees, (std::map<std::string, std::string>{{"checksum", "mix(rotate()rotate())"},
                                                       {"mix", "rotate()rotate()"},
                                                       {"rotate", ""},
                                                       {"series", ""}}));

  // Unloads: exactly the replaced baseline code, after its replacement was loaded.
  std::set<uint32_t> expected_unloads;
  for (const std::string& name : hot) expected_unloads.insert(by_module["jitvm-baseline"][name][0]);
  EXPECT_EQ(std::set<uint32_t>(model.unloads.begin(), model.unloads.end()), expected_unloads);
  EXPECT_EQ(model.unloads.size(), expected_unloads.size()) << "an id was unloaded twice";
  for (uint32_t id : model.unloads) {
    const Method& m = model.methods.at(id);
    const uint32_t replacement = by_module["jitvm-optimized"][m.name][0];
    EXPECT_GT(m.unloaded_at, model.methods.at(replacement).loaded_at) << m.name;
  }

  // Memory: a new load never overlaps code that is still loaded, and some later code lands
  // where unloaded code was.
  std::vector<std::pair<uint64_t, Method>> by_time;
  for (const auto& [id, m] : model.methods) by_time.emplace_back(m.loaded_at, m);
  int reused = 0;
  for (const auto& [id, m] : model.methods) {
    for (const Region& region : m.regions) {
      for (const auto& [other_id, other] : model.methods) {
        if (other_id == id) continue;
        for (const Region& other_region : other.regions) {
          if (!region.Overlaps(other_region)) continue;
          // Two methods share bytes only one after the other: the earlier one unloaded first.
          const Method& earlier = other.loaded_at < m.loaded_at ? other : m;
          const Method& later = other.loaded_at < m.loaded_at ? m : other;
          ASSERT_NE(earlier.unloaded_at, 0u)
              << later.name << " was loaded over " << earlier.name << ", which was never unloaded";
          EXPECT_LT(earlier.unloaded_at, later.loaded_at);
          if (&later == &m) ++reused;
        }
      }
    }
  }
  EXPECT_GE(reused, 1) << "no code was placed where unloaded code had been";
}

// objdump's disassembly of `code` (hex, as dump --json prints it), one "mnemonic operands" per
// instruction with the spacing collapsed: {"push %rbp", "mov %rsp,%rbp", ...}.
std::vector<std::string> Disassemble(const TempDir& dir, const std::string& hex) {
  const std::string path = dir.path() + "/code.bin";
  {
    std::ofstream file(path, std::ios::binary);
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
      file.put(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
  }
  const auto run = RunProgram({OBJDUMP, "-D", "-b", "binary", "-m", "i386:x86-64", path});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::string> instructions;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    // "   1:\t48 89 e5             \tmov    %rsp,%rbp"
    const size_t first_tab = line.find('\t');
    const size_t second_tab = line.find('\t', first_tab == std::string::npos ? 0 : first_tab + 1);
    if (first_tab == std::string::npos || second_tab == std::string::npos) continue;
    std::istringstream words(line.substr(second_tab + 1));
    std::string instruction, word;
    while (words >> word) instruction += (instruction.empty() ? "" : " ") + word;
    instructions.push_back(instruction);
  }
  return instructions;
}

TEST(JitvmTrace, CodeWithoutFramePointersSetsUpNoRbpFrame) {
  const std::string path = std::string(JITVM_PROGRAMS_DIR) + "/hotspot.jv";
  for (bool frame_pointers : {true, false}) {
    SCOPED_TRACE(frame_pointers ? "with frame pointers" : "--no-frame-pointers");
    std::vector<std::string> args = {"--hot-threshold=5", path, "12"};
    if (!frame_pointers) args.insert(args.begin(), "--no-frame-pointers");
    const std::vector<json> records = RunUnderCollector(args);
    TempDir dir;
    std::set<uint32_t> loaded;  // method ids
    std::set<std::string> modules;
    size_t regions = 0, functions = 0;
    bool entry = false;  // the last load was a method's first region: where it is called
    for (const json& r : records) {
      if (r["event"] == "METHOD_LOAD_FINISHED_V2") {
        entry = loaded.insert(r["method_id"].get<uint32_t>()).second;
        modules.insert(r["module"]);
      }
      if (r["event"] != "CODE_BYTES") continue;
      ++regions;
      functions += entry;
      const std::vector<std::string> code = Disassemble(dir, r["code"]);
      ASSERT_GE(code.size(), 2u) << r.dump();
      const bool sets_up_frame = std::find(code.begin(), code.end(), "mov %rsp,%rbp") != code.end();
      if (frame_pointers) {
        // Every function and stub starts with the frame-pointer prologue.
        if (entry) {
          EXPECT_EQ(code[0], "push %rbp") << r.dump();
          EXPECT_EQ(code[1], "mov %rsp,%rbp") << r.dump();
        }
      } else {
        EXPECT_FALSE(sets_up_frame) << r.dump();
        EXPECT_NE(code[0], "push %rbp") << r.dump();
      }
    }
    // 2 stubs, 6 baseline functions, 4 optimized ones with a cold region each.
    EXPECT_EQ(modules, (std::set<std::string>{"jitvm-stubs", "jitvm-baseline", "jitvm-optimized"}));
    EXPECT_EQ(regions, 16u);
    EXPECT_EQ(functions, 12u);
  }
}

TEST(JitvmTrace, GeneratedProgramReportsEveryFunction) {
  TempDir dir;
  const std::string path = dir.path() + "/many.jv";
  const auto generated = RunProgram({JITVM_BINARY, "--generate=1100"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  ASSERT_TRUE(test_support::WriteFile(path, generated.out)) << path;
  auto program = LoadProgram(path);
  ASSERT_TRUE(program.ok()) << program.status().message();
  const std::vector<json> records = RunUnderCollector({path});
  const TraceModel model = Model(records);
  std::set<std::string> names;
  std::set<uint64_t> addresses;
  std::map<std::string, std::vector<uint32_t>> lines_of;
  for (const auto& [id, m] : model.methods) {
    if (m.module != "jitvm-baseline") continue;
    names.insert(m.name);
    ASSERT_EQ(m.regions.size(), 1u);
    addresses.insert(m.regions[0].address);
    const Function* f = FindFunction(*program, m.name);
    ASSERT_NE(f, nullptr) << m.name;
    ExpectValidLineTable(m.regions[0], f->line, f->end_line, m.name);
    for (const json& entry : m.regions[0].lines) lines_of[m.name].push_back(entry["line"]);
  }
  // The lines in code order: prologue (fn line), the two statements, the epilogue (closing
  // brace), then the slow paths: stack overflow and tier-up (fn line), division checks.
  EXPECT_EQ(lines_of["f1"], (std::vector<uint32_t>{6, 7, 8, 9, 6, 8})) << "y / 8";
  EXPECT_EQ(lines_of["f2"], (std::vector<uint32_t>{10, 11, 12, 13, 10})) << "y * 9";
  EXPECT_EQ(lines_of["f3"], (std::vector<uint32_t>{14, 15, 16, 17, 14})) << "floats";
  // f0..f1099, g0 (1000 calls), g1 (100 calls) and main: 1103 functions, each compiled once at
  // its own address.
  EXPECT_EQ(names.size(), 1103u);
  EXPECT_EQ(addresses.size(), 1103u);
  for (const char* name : {"f0", "f777", "f1099", "g0", "g1", "main"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
  EXPECT_TRUE(model.unloads.empty()) << "nothing is hot, nothing is replaced";
}

// --repeat-for: main again until the process has used that much CPU time. fib.jv prints one
// line per run, the same each time; its code is compiled once and reused by every run.
TEST(JitvmTrace, RepeatForRunsMainAgainUntilItsCpuTime) {
  const std::string fib = std::string(JITVM_PROGRAMS_DIR) + "/fib.jv";
  const auto once = RunProgram({JITVM_BINARY, fib, "15"});
  ASSERT_TRUE(once.ok()) << once.Describe();
  rusage before{};
  ::getrusage(RUSAGE_CHILDREN, &before);
  std::string out;
  const std::vector<json> records = RunUnderCollector({"--repeat-for=0.2", fib, "15"}, &out);
  rusage after{};
  ::getrusage(RUSAGE_CHILDREN, &after);
  const double used = static_cast<double>(after.ru_utime.tv_sec - before.ru_utime.tv_sec) +
                      static_cast<double>(after.ru_utime.tv_usec - before.ru_utime.tv_usec) / 1e6 +
                      static_cast<double>(after.ru_stime.tv_sec - before.ru_stime.tv_sec) +
                      static_cast<double>(after.ru_stime.tv_usec - before.ru_stime.tv_usec) / 1e6;
  EXPECT_GE(used, 0.2);
  ASSERT_GT(out.size(), once.out.size());
  ASSERT_EQ(out.size() % once.out.size(), 0u) << out;
  for (size_t at = 0; at < out.size(); at += once.out.size()) {
    ASSERT_EQ(out.substr(at, once.out.size()), once.out) << "run " << at / once.out.size();
  }
  const TraceModel model = Model(records);
  std::set<std::string> names;
  for (const auto& [id, m] : model.methods) {
    EXPECT_TRUE(names.insert(m.module + "!" + m.name).second) << m.name << " compiled twice";
  }
}

TEST(JitvmTrace, RepeatForTakesSeconds) {
  const std::string fib = std::string(JITVM_PROGRAMS_DIR) + "/fib.jv";
  for (const char* value : {"x", "-1", "", "1e9"}) {
    const auto run = RunProgram({JITVM_BINARY, std::string("--repeat-for=") + value, fib, "5"});
    EXPECT_EQ(run.exit_code, 2) << value;
    EXPECT_EQ(run.err, "jitvm: --repeat-for needs a number of seconds up to 86400, not '" +
                           std::string(value) + "'\njitvm: try 'jitvm --help'\n");
  }
}

}  // namespace
}  // namespace jitscope::jitvm
