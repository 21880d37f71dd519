// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The jitvm virtual machine: runs a checked program with the interpreter or with machine code,
// and owns everything machine code needs at run time.
//
// Life of a function in the default (tiered) mode:
//  1. Its entry-table slot points at the lazy-compile stub; its first call compiles it with the
//     baseline tier (module "jitvm-baseline"), which counts its calls.
//  2. After `hot_threshold` calls the baseline prologue asks for a tier-up: the optimizing tier
//     compiles it again, at a new address (module "jitvm-optimized", inlined callees, a cold
//     region), the entry-table slot is switched, and the baseline code is retired.
//  3. Retired code may still be running (a caller further up the stack, recursion), so it is
//     freed — and METHOD_UNLOAD_START reported — only at a later compilation or at the end of
//     the run, once no return address on the stack points into it (stack_walk.h: a
//     frame-pointer walk, or a scan of the JIT frames' words when code has no frame pointers).
//     Freed memory is reused first-fit for the next code (code_heap.h).
// There is no on-stack replacement: a running activation finishes in the code it started in.
//
// Threading: a Vm is used by one thread at a time; JIT code runs on the thread that calls Run().
#pragma once

#include <csetjmp>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ast.h"
#include "code_heap.h"
#include "codegen.h"
#include "jit_reporter.h"
#include "jitscope/base/status.h"
#include "output.h"
#include "stubs.h"

namespace jitscope::jitvm {

enum class ExecutionMode : uint8_t {
  kInterpret,  // the tree-walking interpreter; no machine code
  kBaseline,   // baseline tier only
  kOptimized,  // optimizing tier for every function, from its first call
  kTiered,     // baseline first, optimizing tier once a function is hot
};

struct VmOptions {
  ExecutionMode mode = ExecutionMode::kTiered;
  uint32_t hot_threshold = 1000;  // calls of a baseline function before it is optimized (>= 1)
  InlinePolicy inlining{40, 3};   // callee size budget (node count) and depth
  bool use_jit_api = true;        // false: never call the JIT Profiling API
  bool frame_pointers = true;     // false: code without frame pointers (codegen.h)
  size_t code_heap_bytes = size_t{1} << 30;
};

struct VmStats {
  uint64_t baseline_compiles = 0;
  uint64_t optimized_compiles = 0;
  uint64_t inlined_calls = 0;  // inline regions in optimized code
  uint64_t split_functions = 0;
  uint64_t unloads = 0;     // retired code objects freed
  uint64_t compile_ns = 0;  // time spent compiling, installing and reporting
  uint64_t failed_tier_ups = 0;
};

class Vm {
 public:
  static base::StatusOr<std::unique_ptr<Vm>> Create(const Program& program,
                                                    const VmOptions& options, Output& output);
  // Frees all code, reporting METHOD_UNLOAD_START for each method still loaded.
  ~Vm();
  Vm(const Vm&) = delete;
  Vm& operator=(const Vm&) = delete;

  // Runs main(args...) and returns its result (raw bits). A runtime error ("division by zero",
  // "stack overflow") ends the run with an error status.
  base::StatusOr<uint64_t> Run(std::span<const int64_t> args);

  const VmStats& stats() const { return stats_; }
  // True if a profiler takes the JIT Profiling API's reports.
  bool profiled() const { return reporter_.active(); }
  const CodeHeap* heap() const { return heap_.get(); }
  // Tells profilers the process is done with JIT code (SHUTDOWN).
  void ReportShutdown() { reporter_.ReportShutdown(); }

 private:
  // A compiled function placed in the code heap.
  struct CodeObject {
    Tier tier = Tier::kBaseline;
    int32_t function = -1;
    uint32_t method_id = 0;
    uint8_t* hot = nullptr;
    uint32_t hot_size = 0;
    uint8_t* cold = nullptr;
    uint32_t cold_size = 0;
    bool Contains(uintptr_t address) const;
  };

  Vm(const Program& program, const VmOptions& options, Output& output);
  base::Status Initialize();

  // Compiles `function` with `tier`, places and reports it, and makes it the function's code.
  base::Status CompileAndInstall(int32_t function, Tier tier, const uint64_t* frame);
  // Frees retired code that no frame returns into (all of it when `frame` is nullptr).
  void ReclaimRetired(const uint64_t* frame);
  void Free(const CodeObject& code);
  Tier FirstTier() const;

  // Runtime functions (codegen.h RuntimeFunction), called from JIT code through the gate.
  static uint64_t RuntimePrint(void* vm, uint64_t bits, uint64_t type, const uint64_t* frame);
  static uint64_t RuntimeRaise(void* vm, uint64_t error, uint64_t line, const uint64_t* frame);
  static uint64_t RuntimeTierUp(void* vm, uint64_t function, uint64_t, const uint64_t* frame);
  static uint64_t RuntimeCompileOnFirstCall(void* vm, uint64_t entry_slot, uint64_t,
                                            const uint64_t* frame);
  // Ends the current Run() with `error_`: unwinds the JIT frames with longjmp.
  [[noreturn]] void AbortRun();

  const Program& program_;
  const VmOptions options_;
  Output& output_;
  JitReporter reporter_;
  VmStats stats_;

  std::unique_ptr<CodeHeap> heap_;
  Stubs stubs_;
  std::vector<uint32_t> stub_method_ids_;
  std::vector<uint64_t> entries_;       // the entry table (codegen.h)
  std::vector<int32_t> call_counters_;  // baseline call countdowns
  uintptr_t stack_limit_ = 0;
  const uint64_t* run_frame_ = nullptr;  // Run()'s frame: every JIT frame lies below it
  std::unique_ptr<Compiler> compiler_;

  std::vector<std::optional<CodeObject>> current_;  // each function's code, if compiled
  std::vector<CodeObject> retired_;                 // replaced, not yet freed

  std::jmp_buf abort_jump_;
  base::Status error_;
  uint64_t result_ = 0;
};

}  // namespace jitscope::jitvm
