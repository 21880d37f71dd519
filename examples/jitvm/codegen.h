// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiles one jitvm function to x86-64 machine code with xbyak. One code generator serves both
// tiers; the tier decides how much it works:
//
//   baseline                              optimizing
//   locals in stack slots                 locals in registers (frame_plan.h), the rest in slots
//   every operand through a stack temp    locals and constants used directly as operands
//   calls through the entry table         small callees inlined, the others through the table
//   no constant folding                   constants folded with semantics.h
//   slow paths at the end of the code     slow paths in a separate cold region (split function)
//   counts calls, asks for a tier-up      no counter
//
// Code conventions (every function, both tiers, and the stubs of stubs.h):
//  - System V: arguments in rdi, rsi, rdx, rcx, r8, r9 (floats as raw bits), result in rax (a
//    float as raw bits); rbx, rbp, r12-r15 are preserved; plus xmm8-xmm15 are preserved
//    (frame_plan.h says why).
//  - By default every function keeps a frame pointer: push rbp; mov rbp, rsp; so perf,
//    debuggers and the VM itself (stack_walk.h) can walk call stacks through JIT code. Without
//    frame pointers (CodegenOptions::frame_pointers false, `jitvm --no-frame-pointers`) a
//    function pushes only the callee-saved registers it uses, addresses its slots from rsp, and
//    the optimizing tier may keep a local in rbp: a profiler must unwind such code from its
//    bytes, as it must for many real engines.
//  - rsp stays 16-byte aligned for the whole body: temporaries live in frame slots, not pushes.
//    So rsp never moves between the prologue and the epilogue, which is what lets slots be
//    addressed from it.
//  - Calls between functions go through the entry table (RuntimeLinks::entries), so a function
//    recompiled at a new address is picked up by every caller without patching code.
//  - The prologue compares rsp with the stack limit and raises "stack overflow" below it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ast.h"
#include "compiled_code.h"
#include "frame_plan.h"
#include "jitscope/base/status.h"

namespace Xbyak {
class CodeGenerator;
}

namespace jitscope::jitvm {

// A C++ function that JIT code calls through the runtime gate. `frame` is the gate's frame. With
// frame pointers, frame[0] is the calling JIT frame's rbp and frame[1] the return address into
// JIT code, the start of a frame-pointer walk (stack_walk.h); without, frame[0] is that return
// address, the lowest word of the JIT frames a scan reads (stack_walk.h).
using RuntimeFunction = uint64_t (*)(void* vm, uint64_t a, uint64_t b, const uint64_t* frame);

// The addresses compiled code refers to; all stay valid for the life of the Vm.
struct RuntimeLinks {
  void* vm = nullptr;                 // first argument of every runtime function
  const uint64_t* entries = nullptr;  // entries[f]: where a call of function f goes
  int32_t* call_counters = nullptr;   // baseline code counts calls of f down in [f]
  const uintptr_t* stack_limit = nullptr;
  const void* gate = nullptr;         // calls the RuntimeFunction in r10 (stubs.h)
  RuntimeFunction print = nullptr;    // (vm, bits, type) prints a value
  RuntimeFunction raise = nullptr;    // (vm, RuntimeError, line) never returns
  RuntimeFunction tier_up = nullptr;  // (vm, function) returns optimized code or 0
};

struct CodegenOptions {
  Tier tier = Tier::kBaseline;
  bool count_calls = false;    // baseline: call tier_up after call_counters[f] calls
  InlinePolicy inlining;       // optimizing tier only
  bool frame_pointers = true;  // false: no rbp frame, slots addressed from rsp (see above)
};

class Compiler {
 public:
  // The largest function either tier compiles.
  static constexpr size_t kMaxCodeBytes = 4 << 20;

  Compiler(const Program& program, const RuntimeLinks& links);
  ~Compiler();
  Compiler(const Compiler&) = delete;
  Compiler& operator=(const Compiler&) = delete;

  // The returned code points into this compiler's buffer until the next Compile().
  base::StatusOr<CompiledCode> Compile(int32_t function, const CodegenOptions& options);

 private:
  const Program& program_;
  const RuntimeLinks links_;
  std::vector<uint8_t> buffer_;
  std::unique_ptr<Xbyak::CodeGenerator> generator_;
};

}  // namespace jitscope::jitvm
