// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "vm.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

#include "interpreter.h"
#include "jitscope/base/clock.h"
#include "semantics.h"
#include "stack_limit.h"
#include "stack_walk.h"

namespace jitscope::jitvm {

bool Vm::CodeObject::Contains(uintptr_t address) const {
  const auto hot_start = reinterpret_cast<uintptr_t>(hot);
  const auto cold_start = reinterpret_cast<uintptr_t>(cold);
  return (address >= hot_start && address < hot_start + hot_size) ||
         (cold != nullptr && address >= cold_start && address < cold_start + cold_size);
}

Vm::Vm(const Program& program, const VmOptions& options, Output& output)
    : program_(program),
      options_(options),
      output_(output),
      reporter_(options.use_jit_api && options.mode != ExecutionMode::kInterpret) {}

base::StatusOr<std::unique_ptr<Vm>> Vm::Create(const Program& program, const VmOptions& options,
                                               Output& output) {
  if (options.hot_threshold == 0 || options.hot_threshold > INT32_MAX) {
    return base::Status::Error("the hot threshold must be between 1 and %d", INT32_MAX);
  }
  std::unique_ptr<Vm> vm(new Vm(program, options, output));
  if (options.mode != ExecutionMode::kInterpret) RETURN_IF_ERROR(vm->Initialize());
  return vm;
}

base::Status Vm::Initialize() {
  ASSIGN_OR_RETURN(heap_, CodeHeap::Create(options_.code_heap_bytes));
  ASSIGN_OR_RETURN(stubs_,
                   EmitStubs(*heap_, this, &RuntimeCompileOnFirstCall, options_.frame_pointers));
  stub_method_ids_.push_back(
      reporter_.ReportStub("jitvm_runtime_gate", stubs_.gate.code, stubs_.gate.size));
  stub_method_ids_.push_back(reporter_.ReportStub("jitvm_lazy_compile", stubs_.lazy_compile.code,
                                                  stubs_.lazy_compile.size));
  const size_t count = program_.functions.size();
  entries_.assign(count, reinterpret_cast<uint64_t>(stubs_.lazy_compile.code));
  call_counters_.assign(count, static_cast<int32_t>(options_.hot_threshold));
  current_.resize(count);
  RuntimeLinks links;
  links.vm = this;
  links.entries = entries_.data();
  links.call_counters = call_counters_.data();
  links.stack_limit = &stack_limit_;
  links.gate = stubs_.gate.code;
  links.print = &RuntimePrint;
  links.raise = &RuntimeRaise;
  links.tier_up = &RuntimeTierUp;
  compiler_ = std::make_unique<Compiler>(program_, links);
  return base::Status::Ok();
}

Vm::~Vm() {
  if (!heap_) return;
  // The code dies with the heap: profilers must not attribute later samples at these addresses
  // to it.
  for (const auto& code : current_) {
    if (code) reporter_.ReportUnload(code->method_id);
  }
  for (const CodeObject& code : retired_) reporter_.ReportUnload(code.method_id);
  for (uint32_t id : stub_method_ids_) reporter_.ReportUnload(id);
}

Tier Vm::FirstTier() const {
  return options_.mode == ExecutionMode::kOptimized ? Tier::kOptimized : Tier::kBaseline;
}

base::Status Vm::CompileAndInstall(int32_t function, Tier tier, const uint64_t* frame) {
  const uint64_t start = base::MonotonicNowNs();
  ReclaimRetired(frame);  // first, so the new code can land in freed memory

  CodegenOptions codegen;
  codegen.tier = tier;
  codegen.count_calls = tier == Tier::kBaseline && options_.mode == ExecutionMode::kTiered;
  codegen.inlining = options_.inlining;
  codegen.frame_pointers = options_.frame_pointers;
  ASSIGN_OR_RETURN(CompiledCode code, compiler_->Compile(function, codegen));

  CodeObject object;
  object.tier = tier;
  object.function = function;
  object.hot_size = code.hot_size;
  object.cold_size = code.cold_size;
  ASSIGN_OR_RETURN(object.hot, heap_->Allocate(code.hot_size));
  if (code.cold_size != 0) {
    auto cold = heap_->Allocate(code.cold_size);
    if (!cold.ok()) {
      heap_->Free(object.hot, code.hot_size);
      return cold.status();
    }
    object.cold = *cold;
  }
  std::memcpy(object.hot, code.code, code.hot_size);
  if (object.cold != nullptr) std::memcpy(object.cold, code.code + code.hot_size, code.cold_size);
  // Re-aim the rel32 jumps between the regions: each field ends its instruction.
  auto placed = [&](uint32_t offset) {
    return offset < code.hot_size ? object.hot + offset : object.cold + (offset - code.hot_size);
  };
  for (const Relocation& relocation : code.relocations) {
    uint8_t* field = placed(relocation.field);
    const int64_t displacement = placed(relocation.target) - (field + 4);
    // The heap is one reservation below 2 GiB (code_heap.h), so this always fits.
    const auto rel32 = static_cast<int32_t>(displacement);
    std::memcpy(field, &rel32, sizeof rel32);
  }

  object.method_id = reporter_.ReportMethod(program_, code, object.hot, object.cold);
  if (tier == Tier::kBaseline) {
    ++stats_.baseline_compiles;
  } else {
    ++stats_.optimized_compiles;
    stats_.inlined_calls += code.inlines.size();
    if (object.cold != nullptr) ++stats_.split_functions;
  }
  if (current_[function]) retired_.push_back(*current_[function]);
  current_[function] = object;
  entries_[function] = reinterpret_cast<uint64_t>(object.hot);  // callers use it from now on
  stats_.compile_ns += base::MonotonicNowNs() - start;
  return base::Status::Ok();
}

void Vm::ReclaimRetired(const uint64_t* frame) {
  if (retired_.empty()) return;
  const std::vector<uintptr_t> return_addresses =
      options_.frame_pointers ? WalkJitFrames(frame, *heap_)
                              : ScanJitReturnAddresses(frame, run_frame_, *heap_);
  std::erase_if(retired_, [&](const CodeObject& code) {
    // A return address follows its call; the call's last byte is the one inside the caller.
    for (uintptr_t address : return_addresses) {
      if (code.Contains(address - 1)) return false;
    }
    Free(code);
    return true;
  });
}

void Vm::Free(const CodeObject& code) {
  reporter_.ReportUnload(code.method_id);  // before the memory can hold anything else
  heap_->Free(code.hot, code.hot_size);
  if (code.cold != nullptr) heap_->Free(code.cold, code.cold_size);
  ++stats_.unloads;
}

base::StatusOr<uint64_t> Vm::Run(std::span<const int64_t> args) {
  if (options_.mode == ExecutionMode::kInterpret) return Interpret(program_, args, output_);
  const int32_t main = program_.main_index;
  if (args.size() != program_.functions[main].param_count) {
    return base::Status::Error("main takes %u arguments, not %zu",
                               program_.functions[main].param_count, args.size());
  }
  stack_limit_ = CurrentThreadStackLimit();
  run_frame_ = static_cast<const uint64_t*>(__builtin_frame_address(0));
  if (!current_[main]) RETURN_IF_ERROR(CompileAndInstall(main, FirstTier(), nullptr));

  uint64_t a[kMaxParams] = {};
  std::copy(args.begin(), args.end(), a);
  using Entry = uint64_t (*)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
  const auto entry = reinterpret_cast<Entry>(entries_[main]);
  error_ = base::Status::Ok();
  // A runtime error longjmps back here (AbortRun). Only JIT frames and runtime functions that
  // hold no objects with destructors lie in between.
  if (setjmp(abort_jump_) == 0) result_ = entry(a[0], a[1], a[2], a[3], a[4], a[5]);
  ReclaimRetired(nullptr);  // no JIT frame is left
  output_.Flush();
  if (!error_.ok()) return error_;
  return result_;
}

void Vm::AbortRun() { std::longjmp(abort_jump_, 1); }

uint64_t Vm::RuntimePrint(void* opaque, uint64_t bits, uint64_t type, const uint64_t*) {
  auto* vm = static_cast<Vm*>(opaque);
  vm->output_.Append(FormatValue(static_cast<Type>(type), bits));
  vm->output_.Append("\n");
  return 0;
}

uint64_t Vm::RuntimeRaise(void* opaque, uint64_t error, uint64_t line, const uint64_t*) {
  auto* vm = static_cast<Vm*>(opaque);
  vm->error_ = RuntimeErrorStatus(vm->program_, static_cast<RuntimeError>(error),
                                  static_cast<uint32_t>(line));
  vm->AbortRun();
}

uint64_t Vm::RuntimeCompileOnFirstCall(void* opaque, uint64_t entry_slot, uint64_t,
                                       const uint64_t* frame) {
  auto* vm = static_cast<Vm*>(opaque);
  const auto function =
      static_cast<int32_t>(reinterpret_cast<const uint64_t*>(entry_slot) - vm->entries_.data());
  if (!vm->current_[function]) {
    vm->error_ = vm->CompileAndInstall(function, vm->FirstTier(), frame);
    if (!vm->error_.ok()) vm->AbortRun();
  }
  return vm->entries_[function];
}

uint64_t Vm::RuntimeTierUp(void* opaque, uint64_t function, uint64_t, const uint64_t* frame) {
  auto* vm = static_cast<Vm*>(opaque);
  const auto index = static_cast<int32_t>(function);
  base::Status status = vm->CompileAndInstall(index, Tier::kOptimized, frame);
  if (!status.ok()) {
    // Keep running the baseline code, and do not ask again.
    vm->call_counters_[index] = INT32_MAX;
    if (vm->stats_.failed_tier_ups++ == 0) {
      std::fprintf(stderr, "jitvm: warning: %s; '%s' stays in the baseline tier\n",
                   status.message().c_str(), vm->program_.functions[index].name.c_str());
    }
    return 0;
  }
  return vm->entries_[index];
}

}  // namespace jitscope::jitvm
