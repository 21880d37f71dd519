// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Decides, before any code is emitted, what a compiled function's frame looks like: which calls
// the optimizing tier inlines (recursively, up to a depth), where every local of the function
// and of each inlined instance lives, and which callee-saved registers the prologue saves.
//
// Baseline: no inlining; every local lives in a stack slot.
// Optimizing: locals are weighted by their uses, each use counting 8x more per enclosing loop;
// the heaviest ints get rbx, r12-r15 (callee-saved in the System V ABI, so they survive calls
// into C++), and rbp last when the code keeps no frame pointer (it is callee-saved too: the
// native caller may still need its value), and the heaviest floats get xmm8-xmm15. System V has no
// callee-saved xmm registers, so jitvm code adds one convention of its own: xmm8-xmm15 are
// preserved across calls — a function that uses one saves it, and the runtime gate saves all eight
// around calls into C++.
//
// A call is inlined when the callee's size (Function::node_count) is within the budget, the
// inlining depth stays within the limit, and the callee is not already being expanded on the
// path from the root (no recursive unrolling).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ast.h"

namespace jitscope::jitvm {

struct Home {
  enum class Kind : uint8_t { kSlot, kGpr, kXmm };
  Kind kind = Kind::kSlot;
  uint8_t reg = 0;    // kGpr: x86 register number; kXmm: xmm register number
  uint32_t slot = 0;  // kSlot: index of the 8-byte stack slot
};

struct InlineInstance {
  int32_t function = -1;
  int32_t parent = -1;  // index of the enclosing instance; -1 for the compiled function itself
  uint32_t depth = 0;   // 0 for the compiled function, 1 for its inlined callees, ...
  uint32_t first_home = 0;
  // The calls in this instance's body that are expanded inline, and their instances.
  std::unordered_map<const Expr*, int32_t> inlined_calls;
};

struct FramePlan {
  std::vector<InlineInstance> instances;  // [0] is the compiled function
  std::vector<Home> homes;                // the locals of each instance, from first_home on
  std::vector<uint8_t> saved_gprs;        // callee-saved registers to push, in push order
  std::vector<uint8_t> saved_xmms;        // xmm registers to save in the frame...
  std::vector<uint32_t> xmm_save_slots;   // ...and the slot of each
  uint32_t slot_count = 0;                // stack slots for locals and saved xmm registers

  const Home& HomeOf(int32_t instance, int32_t local) const {
    return homes[instances[instance].first_home + local];
  }
};

struct InlinePolicy {
  uint32_t budget = 0;     // largest callee node_count to inline; 0 disables inlining
  uint32_t max_depth = 0;  // deepest nesting of inlined instances
};

// `optimize` selects the optimizing tier's register allocation; inlining follows `policy`.
// `rbp_for_locals`: the code keeps no frame pointer, so rbp may hold a local.
FramePlan PlanFrame(const Program& program, int32_t function, bool optimize, InlinePolicy policy,
                    bool rbp_for_locals = false);

}  // namespace jitscope::jitvm
