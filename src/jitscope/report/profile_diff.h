// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Two runs compared (`jitscope report --diff-base OLD NEW`): their functions matched by name, and
// their stacks by the functions on them, each count put beside the other as a share of its own
// run's samples, so runs of different lengths compare.
//
// A function is matched across the runs by its name, whether inlined, and its module's display
// name (ModuleDisplayName: a file's base name, so a library in another directory is the same
// library) — but the module only where both runs have the name in a module in common: a JIT's
// tiers (jitvm-baseline, jitvm-optimized) are matched tier by tier when both runs have them, and a
// function one run named through a perf map ("[jit]") and the other through the collector's trace
// is matched by name alone. A process's root frame ("jitvm (pid 4242)") is matched by its command
// name: pids differ from run to run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jitscope/report/profile.h"

namespace jitscope::report {

// One function as the two runs have it: samples with it as the leaf (self) and anywhere on the
// stack (total, once per sample).
struct FunctionChange {
  uint32_t function = 0;  // index into ProfileDiff::functions
  uint64_t self_base = 0, self_new = 0;
  uint64_t total_base = 0, total_new = 0;
};

// One stack of matched functions, root last as in Stack, and its samples in each run.
struct StackChange {
  std::vector<uint32_t> frames;  // indices into ProfileDiff::functions, leaf first
  uint64_t base = 0;
  uint64_t now = 0;
};

struct ProfileDiff {
  // The matched functions: a Location each (its module "" where the match is by name alone), and
  // the label the flame graphs show it by (FrameLabels' " [tier]" where a name has several).
  std::vector<Location> functions;
  std::vector<std::string> labels;
  std::vector<StackChange> stacks;      // heaviest in the new run first, then in the base
  std::vector<FunctionChange> changes;  // the largest change of self share first
  uint64_t base_total = 0;
  uint64_t new_total = 0;
  std::string base_command, new_command;
  uint64_t sample_period_ns = 0;      // the new run's
  std::vector<std::string> warnings;  // each run's, saying which
  // A's share of its run's samples minus B's of its: the change, in points of a percent / 100.
  double SelfChange(const FunctionChange& c) const;
  double TotalChange(const FunctionChange& c) const;
};

ProfileDiff DiffProfiles(const Profile& base, const Profile& now);

}  // namespace jitscope::report
