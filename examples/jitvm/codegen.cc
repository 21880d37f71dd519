// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "codegen.h"

#include <xbyak/xbyak.h>

#include "function_compiler.h"

namespace jitscope::jitvm {

const char* TierName(Tier tier) { return tier == Tier::kBaseline ? "baseline" : "optimized"; }

Compiler::Compiler(const Program& program, const RuntimeLinks& links)
    : program_(program), links_(links), buffer_(kMaxCodeBytes) {
  generator_ = std::make_unique<Xbyak::CodeGenerator>(buffer_.size(), buffer_.data());
  generator_->setDefaultJmpNEAR(true);
}

Compiler::~Compiler() = default;

base::StatusOr<CompiledCode> Compiler::Compile(int32_t function, const CodegenOptions& options) {
  generator_->reset();  // also clears xbyak's (thread-local) error
  FunctionCompiler compiler(*generator_, program_, links_, options, function);
  return compiler.Run();
}

}  // namespace jitscope::jitvm
