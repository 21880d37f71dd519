// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "frame_plan.h"

#include <algorithm>
#include <numeric>

namespace jitscope::jitvm {
namespace {

// System V callee-saved registers, by x86 register number: rbx, r12, r13, r14, r15, and rbp
// where it is no frame pointer.
constexpr uint8_t kLocalGprs[] = {3, 12, 13, 14, 15, 5};
constexpr size_t kLocalGprsWithFramePointer = 5;
constexpr uint8_t kFirstLocalXmm = 8;
constexpr uint8_t kLocalXmmCount = 8;

class Planner {
 public:
  Planner(const Program& program, InlinePolicy policy, bool rbp_for_locals)
      : program_(program),
        policy_(policy),
        gpr_count_(rbp_for_locals ? std::size(kLocalGprs) : kLocalGprsWithFramePointer) {}

  FramePlan Plan(int32_t function, bool optimize) {
    AddInstance(function, -1, 0, 0);
    if (optimize) AssignRegisters();
    for (size_t i = 0; i < plan_.homes.size(); ++i) {
      if (plan_.homes[i].kind == Home::Kind::kSlot) plan_.homes[i].slot = plan_.slot_count++;
    }
    for (size_t i = 0; i < plan_.saved_xmms.size(); ++i) {
      plan_.xmm_save_slots.push_back(plan_.slot_count++);
    }
    return std::move(plan_);
  }

 private:
  // Adds the instance of `function` whose body sits `loop_depth` loops deep in the compiled
  // function, then the instances it inlines.
  void AddInstance(int32_t function, int32_t parent, uint32_t depth, uint32_t loop_depth) {
    const int32_t index = static_cast<int32_t>(plan_.instances.size());
    InlineInstance instance;
    instance.function = function;
    instance.parent = parent;
    instance.depth = depth;
    instance.first_home = static_cast<uint32_t>(plan_.homes.size());
    plan_.instances.push_back(std::move(instance));
    const Function& f = program_.functions[function];
    plan_.homes.resize(plan_.homes.size() + f.locals.size());
    types_.reserve(plan_.homes.size());
    for (const Local& local : f.locals) {
      types_.push_back(local.type);
      weights_.push_back(0);
    }
    for (uint32_t p = 0; p < f.param_count; ++p) Use(index, p, loop_depth);
    for (const auto& stmt : f.body) Walk(index, *stmt, loop_depth);
  }

  void Use(int32_t instance, int32_t local, uint32_t loop_depth) {
    const uint64_t weight = uint64_t{1} << (3 * std::min<uint32_t>(loop_depth, 15));
    weights_[plan_.instances[instance].first_home + local] += weight;
  }

  bool ShouldInline(int32_t instance, int32_t callee) const {
    if (policy_.budget == 0 || program_.functions[callee].node_count > policy_.budget) {
      return false;
    }
    if (plan_.instances[instance].depth + 1 > policy_.max_depth) return false;
    for (int32_t i = instance; i >= 0; i = plan_.instances[i].parent) {
      if (plan_.instances[i].function == callee) return false;
    }
    return true;
  }

  void Walk(int32_t instance, const Stmt& stmt, uint32_t loop_depth) {
    if (stmt.local >= 0) Use(instance, stmt.local, loop_depth);
    const uint32_t inner = stmt.kind == StmtKind::kWhile ? loop_depth + 1 : loop_depth;
    if (stmt.expr) Walk(instance, *stmt.expr, inner);
    for (const auto& s : stmt.body) Walk(instance, *s, inner);
    for (const auto& s : stmt.else_body) Walk(instance, *s, loop_depth);
  }

  void Walk(int32_t instance, const Expr& e, uint32_t loop_depth) {
    for (const auto& operand : e.operands) Walk(instance, *operand, loop_depth);
    if (e.kind == ExprKind::kLocal) Use(instance, e.index, loop_depth);
    if (e.kind == ExprKind::kCall && ShouldInline(instance, e.index)) {
      const int32_t child = static_cast<int32_t>(plan_.instances.size());
      plan_.instances[instance].inlined_calls.emplace(&e, child);
      AddInstance(e.index, instance, plan_.instances[instance].depth + 1, loop_depth);
    }
  }

  void AssignRegisters() {
    std::vector<size_t> order(plan_.homes.size());
    std::iota(order.begin(), order.end(), 0);
    // Heaviest first; ties go to the earlier local, so the plan is deterministic.
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return weights_[a] > weights_[b]; });
    size_t next_gpr = 0;
    uint8_t next_xmm = 0;
    for (size_t i : order) {
      if (weights_[i] == 0) break;
      Home& home = plan_.homes[i];
      if (types_[i] == Type::kInt && next_gpr < gpr_count_) {
        home.kind = Home::Kind::kGpr;
        home.reg = kLocalGprs[next_gpr++];
        plan_.saved_gprs.push_back(home.reg);
      } else if (types_[i] == Type::kFloat && next_xmm < kLocalXmmCount) {
        home.kind = Home::Kind::kXmm;
        home.reg = kFirstLocalXmm + next_xmm++;
        plan_.saved_xmms.push_back(home.reg);
      }
    }
  }

  const Program& program_;
  const InlinePolicy policy_;
  const size_t gpr_count_;  // how many of kLocalGprs locals may have
  FramePlan plan_;
  std::vector<Type> types_;        // per home
  std::vector<uint64_t> weights_;  // per home
};

}  // namespace

FramePlan PlanFrame(const Program& program, int32_t function, bool optimize, InlinePolicy policy,
                    bool rbp_for_locals) {
  if (!optimize) policy.budget = 0;
  return Planner(program, policy, rbp_for_locals).Plan(function, optimize);
}

}  // namespace jitscope::jitvm
