// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// HotSpot's template interpreter frame on x86-64, a rule the engine defines
// (src/hotspot/cpu/x86/frame_x86.hpp, "Layout of asm interpreter frame", OpenJDK 9 and later):
//
//     [rbp + 8]   return address           the caller's pc
//     [rbp]       the caller's rbp         (`enter` in generate_fixed_frame)
//     [rbp - 8]   sender sp                the caller's rsp: what c2i adapters, the call stub and
//                                          the interpreter's own invokes left in r13
//     [rbp - 16]  last sp                  0 unless the frame is at a Java call (an invoke)
//     [rbp - 24]  Method*                  the method the frame runs
//     ...         mirror, mdp, cache, locals
//     [rbp - 64]  bcp                      the bytecode pointer, saved at every call out
//     [rbp - 72]  initial sp / monitor block top; the expression stack is below
//
// The interpreter's code is entered through dispatch tables, so no analysis of its bytes from a
// region's start reaches it, and compiled code returns into the interpreter's return entries with
// no call before the return address (the invoke templates push it and jump). Both are why JIT
// code's derived rules and their call-consistency check cannot walk it; this layout can, once the
// code at the pc is known to be the interpreter's (the code HotSpot names `Interpreter` in its
// JVMTI DynamicCodeGenerated event and in its perf map).
//
// rbp holds the frame's base everywhere inside a frame, but not everywhere inside the
// interpreter's code: a method entry runs before `enter` with its caller's rbp, the return
// templates jump out after `leave`, and intrinsic entries (java.lang.Math, CRC32) build no frame.
// A frame is therefore checked before the layout is applied:
//  - any frame: rbp 8-aligned, at least the nine fixed slots above rsp (the frame is complete:
//    generate_fixed_frame pushes them all before anything else runs), a sender sp above rbp (at
//    rbp + 16 or higher as invokes leave it, at rbp + 8 when a method handle's linkTo* entry
//    dropped its MemberName argument and moved the return address up over it) and within a
//    frame's reach of it, a return address that is not 0;
//  - the frame that was running (the sampled one, or one a signal interrupted), whose rbp may be
//    its caller's: its last sp is 0 (a caller is at an invoke, whose last sp is set, and so is the
//    call stub's slot there), and r13, the bcp register, is not an address of the frame's own
//    stack (inside a method entry and an invoke's last instructions r13 holds the sender sp).
//    But for the first two instructions of a return or deoptimization entry, known by their
//    bytes: there rbp is the frame returned into, which runs from then on, and its last sp is
//    still set: `mov rsp, [rbp - 16]` restores the expression stack from it and
//    `mov qword ptr [rbp - 16], 0` clears it (HotSpot's assembler encodes both so). r13 then holds
//    what the callee left; the frame's bcp is its slot's, which the entry reloads next.
// A running frame still being built is taken too, where its code says so exactly: the code
// before the pc is generate_fixed_frame's start (`push rax`, the return address the method entry
// popped; `push rbp`; `mov rbp, rsp`), then straight-line code that pushes the fixed slots one by
// one, the sender sp (r13) first, and rsp lies as far below rbp as those pushes took it. Its
// return address and the caller's rbp are then in place, the sender sp in r13 or its slot, the
// Method* in rbx (the method entries' convention) or its slot once pushed, and the bcp is the
// code base once the entry made r13 that (`lea r13, [r13 + codes]`), else unknown (0). Before
// `mov rbp, rsp` rbp is the caller's: refused, as above.
// A frame that fails is not unwound ("interpreter frame not valid"): nothing past it is trusted.
//
// The frame's Method* and bcp are kept with it, for naming the Java method it runs: the bcp is r13
// in the running frame (the slot is written only at calls out) and the slot in the others. Both are
// raw words, checked by whoever names the frame (a Method* the JVM never reported names nothing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "jitscope/unwind/registers.h"
#include "jitscope/unwind/stack_memory.h"

namespace jitscope::unwind {

// What an interpreter frame holds besides its links.
struct InterpreterFrame {
  uint64_t method = 0;  // the Method* slot
  uint64_t bcp = 0;     // r13 in the running frame, the bcp slot in the others
  bool operator==(const InterpreterFrame&) const = default;
};

enum class InterpreterStep : uint8_t {
  kOk,
  kNotAFrame,          // the checks above refused it
  kStackCopyTooShort,  // a slot lies past the end of the stack copy
};

// The code at an address as the sample ran it, into `out`: how many bytes are known from there on
// (AddressSpace::ReadCode).
using CodeReader = std::function<size_t(uint64_t address, std::span<uint8_t> out)>;

// The caller of the interpreter frame whose registers are `callee` (x86-64 only). `running`: the
// frame's pc is the instruction that ran, not a return address. `read_code` is asked for the code
// around a running frame's pc where the checks above need it. Fills `caller` with the caller's pc,
// rsp and rbp (every other register is unknown: HotSpot's Java calls save none) and `frame`.
InterpreterStep StepInterpreterFrame(const RegisterFile& callee, const StackMemory& stack,
                                     bool running, const CodeReader& read_code,
                                     RegisterFile& caller, InterpreterFrame& frame);

}  // namespace jitscope::unwind
