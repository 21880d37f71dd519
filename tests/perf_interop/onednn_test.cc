// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Debian's oneDNN, unmodified, as the collector's client (onednn_workload.cc). oneDNN reports
// each kernel through its bundled copy of Intel's stub when DNNL_JIT_PROFILE has bit 1, and
// writes its own perf jitdump when it has bit 4 (into $JITDUMPDIR/.debug/jit/dnnl.XXXXXX/), so
// with DNNL_JIT_PROFILE=5 one run yields both: every kernel in oneDNN's own dump must be in our
// trace (address, size, name, code bytes) and our jitdump (the same), in the same order. The
// kernels' bytes from our trace then decode with jitscope's decoder as objdump decodes them. And
// perf itself reads our jitdump of a oneDNN run.
#include <glob.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jitdump_test_reader.h"
#include "jitscope/disasm/control_flow.h"
#include "jitscope/trace/reader.h"
#include "perf_tools.h"
#include "support/hex.h"
#include "support/objdump.h"
#include "support/temp_dir.h"

namespace jitscope::testing {
namespace {

using test_support::RunProgram;
using test_support::TempDir;

// (address, size, name) of one kernel load.
using Kernel = std::tuple<uint64_t, uint64_t, std::string>;

std::vector<Kernel> KernelsOf(const TestJitdump& dump) {
  std::vector<Kernel> kernels;
  for (const TestJitdumpRecord* load : dump.Loads()) {
    kernels.emplace_back(load->code_address, load->code.size(), load->name);
  }
  return kernels;
}

// oneDNN with its primitive cache off: it frees each primitive's kernels when the primitive goes.
const std::map<std::string, std::string> kNoPrimitiveCache = {
    {"DNNL_PRIMITIVE_CACHE_CAPACITY", "0"}, {"ONEDNN_PRIMITIVE_CACHE_CAPACITY", "0"}};

// What the comparison of kernels with objdump covered.
struct Compared {
  size_t instructions = 0;  // compared: reached ones, and padding
  size_t padding = 0;       // nops between reached instructions, which no flow reaches
  size_t avx = 0;           // v-prefixed
  size_t zmm = 0;           // on a zmm register
  uint64_t code = 0;        // bytes from the entry to the end of the last instruction reached
  uint64_t covered = 0;     // bytes of those in instructions compared

  void Add(const Compared& other) {
    instructions += other.instructions;
    padding += other.padding;
    avx += other.avx;
    zmm += other.zmm;
    code += other.code;
    covered += other.covered;
  }
};

using test_support::HexDigits;

// The nops that fill bytes [from, to) of `bytes` exactly, or nothing when those bytes are anything
// else.
std::optional<std::vector<disasm::Instruction>> Padding(const disasm::Decoder& decoder,
                                                        std::span<const uint8_t> bytes,
                                                        uint64_t address, uint64_t from,
                                                        uint64_t to) {
  std::vector<disasm::Instruction> nops;
  while (from < to) {
    const auto nop = decoder.Decode(bytes.subspan(from, to - from), address + from);
    if (!nop || nop->raw.mnemonic != ZYDIS_MNEMONIC_NOP) return std::nullopt;
    nops.push_back(*nop);
    from += nop->length;
  }
  return nops;
}

// Compares our decoding of one kernel (`bytes` at `address`) with objdump's, as the test below
// says, adding a failure that names `kernel` for each difference.
Compared CompareWithObjdump(const disasm::Decoder& decoder, std::span<const uint8_t> bytes,
                            uint64_t address, const std::string& kernel) {
  Compared compared;
  const disasm::ReachedCode reached = disasm::FollowControlFlow(decoder, bytes, address);
  if (reached.instructions.empty()) ADD_FAILURE() << kernel << ": no instruction reached";
  for (uint64_t undecodable : reached.undecodable) {
    ADD_FAILURE() << kernel << ": flow reaches offset 0x" << HexDigits(undecodable - address)
                  << ", which our decoder cannot decode";
  }
  std::vector<test_support::ListedInstruction> ours;
  auto compare = [&](const disasm::Instruction& instruction) {
    ours.push_back({instruction.address - address, instruction.length,
                    decoder.Format(instruction, disasm::Syntax::kAtt)});
    if (ours.back().text.starts_with('v')) ++compared.avx;
    if (ours.back().text.find("%zmm") != std::string::npos) ++compared.zmm;
  };
  for (const disasm::Instruction& instruction : reached.instructions) {
    const uint64_t offset = instruction.address - address;
    const uint64_t end = offset + instruction.length;
    if (offset > compared.code) {
      if (const auto nops = Padding(decoder, bytes, address, compared.code, offset)) {
        for (const disasm::Instruction& nop : *nops) compare(nop);
        compared.padding += nops->size();
        compared.covered += offset - compared.code;
      }
    }
    // Overlapping instructions (a jump into the middle of one) count their bytes once.
    if (end > compared.code) {
      compared.covered += end - std::max(offset, compared.code);
      compared.code = end;
    }
    compare(instruction);
  }
  compared.instructions = ours.size();
  const auto objdump = test_support::ObjdumpListing(bytes, address);
  if (!objdump.ok()) {
    ADD_FAILURE() << kernel << ": " << objdump.status().message();
    return compared;
  }
  for (const std::string& difference : test_support::DifferencesFromObjdump(ours, *objdump)) {
    ADD_FAILURE() << kernel << " " << difference;
  }
  return compared;
}

class OnednnTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  // The environment of a oneDNN run reporting to our collector.
  std::map<std::string, std::string> Environment(const std::string& jit_profile,
                                                 const std::string& formats) const {
    return {{"INTEL_JIT_PROFILER64", JITSCOPE_COLLECTOR},
            {"JITSCOPE_FORMATS", formats},
            {"JITSCOPE_OUTPUT_DIR", dir_.path()},
            {"DNNL_JIT_PROFILE", jit_profile},
            {"ONEDNN_JIT_PROFILE", jit_profile},
            {"JITDUMPDIR", Path("onednn")},
            {"OMP_NUM_THREADS", "1"}};
  }

  // What RunAndCompare found: oneDNN's kernels, in load order, and each one's code bytes as our
  // trace recorded them (CODE_BYTES) through Intel's stub.
  struct Run {
    std::vector<Kernel> kernels;
    std::vector<std::vector<uint8_t>> traced_code;
  };

  // Runs the workload with DNNL_JIT_PROFILE=5 and compares oneDNN's dump with our outputs.
  Run RunAndCompare(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& extra_env) {
    std::vector<std::string> command = {JITSCOPE_ONEDNN_WORKLOAD};
    command.insert(command.end(), args.begin(), args.end());
    std::map<std::string, std::string> env = Environment("5", "trace,jitdump");
    for (const auto& [name, value] : extra_env) env[name] = value;
    const ProcessResult run = RunProgram(command, env);
    EXPECT_TRUE(run.ok()) << run.Describe();
    EXPECT_NE(std::string::npos, run.out.find("\ndone\n")) << run.Describe();
    const long pid = FindNumber(run.out, "pid");
    if (pid <= 0) {
      ADD_FAILURE() << run.Describe();
      return {};
    }
    const std::string dump_name = "jit-" + std::to_string(pid) + ".dump";

    // oneDNN's own dump, in the directory it made under $JITDUMPDIR.
    glob_t found{};
    const std::string pattern = Path("onednn/.debug/jit/dnnl.*/" + dump_name);
    EXPECT_EQ(0, ::glob(pattern.c_str(), 0, nullptr, &found)) << "no " << pattern;
    const std::string theirs_path = found.gl_pathc == 1 ? found.gl_pathv[0] : "";
    ::globfree(&found);
    auto theirs = ReadTestJitdump(theirs_path);
    auto ours = ReadTestJitdump(Path(dump_name));
    auto trace = trace::TraceFile::Open(Path("jit-" + std::to_string(pid) + ".jsc"));
    if (!theirs.ok() || !ours.ok() || !trace.ok()) {
      ADD_FAILURE() << "oneDNN's dump: " << theirs.status().message()
                    << "; ours: " << ours.status().message()
                    << "; trace: " << trace.status().message();
      return {};
    }

    Run result{KernelsOf(*theirs), {}};
    const std::vector<Kernel>& kernels = result.kernels;
    EXPECT_FALSE(kernels.empty()) << "oneDNN generated no kernels";
    // The trace: every load, in time order, with oneDNN's address, size and name, each followed
    // by its code bytes.
    std::vector<Kernel> traced;
    uint64_t previous = 0;
    for (const trace::Record& record : trace->trace().records) {
      if (const auto* bytes = std::get_if<trace::CodeBytesEvent>(&record.event)) {
        EXPECT_EQ(result.traced_code.size() + 1, traced.size()) << "code bytes of no load";
        if (!traced.empty()) {
          EXPECT_EQ(std::get<0>(traced.back()), bytes->address);
        }
        result.traced_code.emplace_back(bytes->bytes.begin(), bytes->bytes.end());
      }
      const auto* code = std::get_if<trace::CodeEvent>(&record.event);
      if (code == nullptr) continue;
      EXPECT_EQ(trace::kEventMethodLoadFinished, code->api_event);
      EXPECT_GT(record.timestamp, previous);
      previous = record.timestamp;
      traced.emplace_back(code->address, code->size, std::string(code->name.value_or("")));
    }
    EXPECT_EQ(kernels, traced);
    EXPECT_EQ(0u, trace->trace().stats.torn_records);
    // Our jitdump and our trace: the same loads, and the code bytes oneDNN wrote for each.
    EXPECT_EQ(kernels, KernelsOf(*ours));
    const auto their_loads = theirs->Loads();
    const auto our_loads = ours->Loads();
    for (size_t i = 0; i < their_loads.size() && i < our_loads.size(); ++i) {
      EXPECT_EQ(their_loads[i]->code, our_loads[i]->code)
          << "load " << i << " (" << their_loads[i]->name << ") has other code bytes";
    }
    EXPECT_EQ(their_loads.size(), result.traced_code.size());
    for (size_t i = 0; i < their_loads.size() && i < result.traced_code.size(); ++i) {
      EXPECT_EQ(their_loads[i]->code, result.traced_code[i])
          << "load " << i << " (" << their_loads[i]->name << ") has other code bytes in the trace";
    }
    return result;
  }

  TempDir dir_;
};

TEST_F(OnednnTest, EveryKernelOneDnnDumpsIsInOurTraceAndJitdump) {
  const std::vector<Kernel> kernels = RunAndCompare({"primitives"}, {}).kernels;
  // Convolution, matmul, eltwise and reorder each need at least one kernel.
  EXPECT_GE(kernels.size(), 4u);
}

TEST_F(OnednnTest, WithoutThePrimitiveCacheEveryLoadIsKeptInTimeOrder) {
  // oneDNN frees each primitive's kernels when the primitive goes and reuses the memory, without
  // any unload event: only time order tells the kernels at one address apart.
  const std::vector<Kernel> kernels = RunAndCompare({"many", "48"}, kNoPrimitiveCache).kernels;
  std::set<uint64_t> addresses;
  for (const Kernel& kernel : kernels) addresses.insert(std::get<0>(kernel));
  EXPECT_GE(kernels.size(), 48u);
  EXPECT_LT(addresses.size(), kernels.size()) << "no address was reused: the scenario did not "
                                                 "happen, so this test proves nothing";
}

// Every kernel oneDNN generates here, with its bytes as our trace recorded them through Intel's
// stub (no jitdump is read for them), decodes with jitscope's decoder (disasm/, what `jitscope
// annotate` shows) to the instructions objdump finds in the same bytes.
//
// Compared: the instructions control flow reaches from the kernel's entry
// (disasm::FollowControlFlow: fall-through, and direct jumps and calls within the kernel), and
// the nops that pad between them (alignment after a jump, which no flow reaches). Each must
// decode, and objdump's linear sweep of the whole kernel must list an instruction at its offset
// with the same length, mnemonic and operands (support/objdump.h normalises form only).
// Not compared: the bytes after the last instruction reached. That is data: oneDNN puts a
// kernel's constant tables after its code (here the eltwise kernels' tables, after nops up to
// their 64-byte alignment), and a linear sweep decodes them as garbage on which the two tools may
// well differ, but neither would show it in an annotation. So that this leaves out no code, the
// instructions compared must cover nearly all of each kernel's code, from its entry to the end of
// the last instruction reached: kMinCovered of it at least (all of it here).
TEST_F(OnednnTest, EveryKernelDecodesAsObjdumpDecodesIt) {
  constexpr double kMinCovered = 0.95;
  const std::optional<disasm::Decoder> decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());
  // The runs of the tests above, and as many kernels as those see at least.
  const struct {
    std::vector<std::string> args;
    std::map<std::string, std::string> env;
    size_t min_kernels;
  } workloads[] = {{{"primitives"}, {}, 4}, {{"many", "48"}, kNoPrimitiveCache, 48}};
  size_t kernels = 0;
  std::string per_run;
  Compared all;
  uint64_t all_bytes = 0;
  for (const auto& [args, env, min_kernels] : workloads) {
    const Run run = RunAndCompare(args, env);
    ASSERT_GE(run.kernels.size(), min_kernels) << args[0];
    ASSERT_EQ(run.kernels.size(), run.traced_code.size()) << args[0];
    per_run += (per_run.empty() ? "" : ", ") + args[0] + " " + std::to_string(run.kernels.size());
    for (size_t i = 0; i < run.kernels.size(); ++i) {
      const auto& [address, size, name] = run.kernels[i];
      const std::vector<uint8_t>& bytes = run.traced_code[i];
      const std::string kernel = args[0] + " kernel " + std::to_string(i) + " (" + name + " at 0x" +
                                 HexDigits(address) + ", " + std::to_string(size) + " bytes)";
      ASSERT_EQ(bytes.size(), size) << kernel << ": the trace holds no code bytes";
      const Compared compared = CompareWithObjdump(*decoder, bytes, address, kernel);
      EXPECT_GE(static_cast<double>(compared.covered),
                kMinCovered * static_cast<double>(compared.code))
          << kernel << ": the instructions compared cover only " << compared.covered << " of the "
          << compared.code << " bytes up to the end of its last instruction reached";
      ++kernels;
      all.Add(compared);
      all_bytes += bytes.size();
    }
  }
  // The kernels must be vector code on this CPU: AVX (v-prefixed) instructions were compared.
  EXPECT_GT(all.avx, 0u);
  std::printf(
      "compared %zu kernels (%s) of %llu bytes: %zu instructions (%zu of them padding nops), %zu "
      "AVX (%zu on zmm), covering %llu of the %llu bytes of code (the rest is data)\n",
      kernels, per_run.c_str(), static_cast<unsigned long long>(all_bytes), all.instructions,
      all.padding, all.avx, all.zmm, static_cast<unsigned long long>(all.covered),
      static_cast<unsigned long long>(all.code));
}

TEST_F(OnednnTest, PerfInjectOfOurJitdumpNamesOneDnnKernels) {
  const std::string unavailable = PerfUnavailable();
  ASSERT_TRUE(unavailable.empty()) << unavailable;
  // DNNL_JIT_PROFILE=1: oneDNN reports to the collector only; our jitdump is the only one.
  const ProcessResult run = PerfRecord(Path("perf.data"), {JITSCOPE_ONEDNN_WORKLOAD, "hot", "0.6"},
                                       Environment("1", "jitdump"));
  ASSERT_TRUE(run.ok()) << run.Describe();
  const long pid = FindNumber(run.out, "pid");
  auto ours = ReadTestJitdump(Path("jit-" + std::to_string(pid) + ".dump"));
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  std::set<std::string> kernel_names;
  for (const auto* load : ours->Loads()) kernel_names.insert(load->name);
  ASSERT_FALSE(kernel_names.empty());

  const ProcessResult inject = PerfInject(Path("perf.data"), Path("perf.jit.data"));
  ASSERT_TRUE(inject.ok()) << inject.Describe();
  const ProcessResult report = PerfReport(Path("perf.jit.data"), "sym");
  ASSERT_TRUE(report.ok()) << report.Describe();
  double in_kernels = 0;
  for (const auto& [name, share] : SharesByName(ParseReport(report.out, false))) {
    if (kernel_names.contains(name)) in_kernels += share;
  }
  // The convolution and matmul kernels do the work; perf must name their samples.
  EXPECT_GT(in_kernels, 30) << report.out;
}

// jitscope annotate on a oneDNN session: the hottest kernel, known only through Intel's stub (no
// jitdump), disassembled from the bytes the collector recorded, with its AVX instructions and
// the samples on them.
TEST_F(OnednnTest, AnnotateShowsTheHottestKernelsAvxInstructionsAndTheirSamples) {
  const std::string session = Path("session");
  // DNNL_JIT_PROFILE=1: oneDNN reports to the collector only.
  const ProcessResult record = RunProgram(
      {JITSCOPE_CLI, "record", "-o", session, "--", JITSCOPE_ONEDNN_WORKLOAD, "hot", "1"},
      Environment("1", "trace"));
  ASSERT_TRUE(record.ok()) << record.Describe();
  const ProcessResult run =
      RunProgram({JITSCOPE_CLI, "annotate", session, "--top", "1", "--format", "json"});
  ASSERT_TRUE(run.ok()) << run.Describe();
  const nlohmann::json root = nlohmann::json::parse(run.out);
  ASSERT_EQ(root["versions"].size(), 1u) << run.out.substr(0, 2000);
  const nlohmann::json& kernel = root["versions"][0];
  EXPECT_TRUE(kernel["code_recorded"].get<bool>()) << kernel["name"];
  const uint64_t samples = kernel["samples"];
  EXPECT_GT(samples, 50u) << "too few samples in " << kernel["name"] << " to judge";
  uint64_t on_instructions = 0, avx = 0, avx_samples = 0;
  for (const nlohmann::json& in : kernel["instructions"]) {
    const uint64_t n = in["samples"];
    on_instructions += n;
    EXPECT_TRUE(n == 0 || in["text"] != "(bad)") << "a sample on bytes that do not decode";
    if (in["text"].get<std::string>().starts_with("v")) {
      ++avx;
      avx_samples += n;
    }
  }
  EXPECT_EQ(on_instructions, samples);
  EXPECT_GT(avx, 10u) << kernel["name"];
  // The kernels are vector loops: most of their samples are on (or, by skid, just after) AVX
  // instructions (seen: 727 of 737 in jit_brgemm_kernel_t).
  EXPECT_GT(avx_samples * 2, samples) << kernel["name"];
  std::printf("%s: %llu samples, %llu AVX instructions holding %llu of them\n",
              kernel["name"].get<std::string>().c_str(), static_cast<unsigned long long>(samples),
              static_cast<unsigned long long>(avx), static_cast<unsigned long long>(avx_samples));
}

}  // namespace
}  // namespace jitscope::testing
