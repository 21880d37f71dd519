// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The two shared stubs every jitvm process has, emitted once per Vm:
//
//  - The runtime gate: JIT code calls C++ (print, raise, the compilers) through it. It saves
//    xmm8-xmm15 (preserved by jitvm's convention, clobbered by C++) and hands the C++ function
//    its own frame pointer, from which the runtime walks the JIT frames (stack_walk.h).
//    In: rdi, rsi, rdx = the first three arguments, r10 = the RuntimeFunction.
//
//  - The lazy-compile stub: every entry of the entry table starts out pointing here. A call of
//    a function that has no code yet arrives with r11 = &entries[f] (the call sequence loads
//    it), saves the argument registers, asks the runtime to compile f, and jumps to the new
//    code with the arguments restored — so compilation happens at the first call.
//
// Both keep frame pointers, so stacks stay walkable through them, unless `frame_pointers` is
// false (codegen.h): then they leave rbp alone and keep rsp-relative frames, like the code.
#pragma once

#include <cstdint>

#include "code_heap.h"
#include "codegen.h"
#include "jitscope/base/status.h"

namespace jitscope::jitvm {

struct StubCode {
  uint8_t* code = nullptr;
  uint32_t size = 0;
};

struct Stubs {
  StubCode gate;
  StubCode lazy_compile;
};

// Emits both stubs into `heap`. `compile_on_first_call(vm, &entries[f], 0, frame)` must return
// the address of f's code.
base::StatusOr<Stubs> EmitStubs(CodeHeap& heap, void* vm, RuntimeFunction compile_on_first_call,
                                bool frame_pointers);

}  // namespace jitscope::jitvm
