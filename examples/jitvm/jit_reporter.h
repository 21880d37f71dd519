// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Everything jitvm tells a profiler, through the Intel JIT Profiling API (include/jitprofiling.h,
// seeds 000 and 001):
//
//  - each compiled function: METHOD_LOAD_FINISHED_V2 with its name, the program's source file,
//    a module per tier ("jitvm-baseline", "jitvm-optimized") and a line table. Every compiled
//    code object gets its own method id, so a function's baseline and optimized code are two
//    methods (Intel's guide keeps the first module name reported for an id);
//  - the optimizing tier's cold region: a second METHOD_LOAD_FINISHED_V2 with the same method
//    id, name, source file and module and its own line table (a split function, Intel's guide
//    "Analyzing Split Functions");
//  - each inlined call: METHOD_INLINE_LOAD_FINISHED with a fresh id, the id of the method or
//    inline instance it sits in as parent, the callee's name and its own line table; regions of
//    siblings never overlap (Intel's guide "Exploring Inline Functions");
//  - the stubs: METHOD_LOAD_FINISHED_V2 in module "jitvm-stubs", without lines;
//  - code that is freed: METHOD_UNLOAD_START with the method id, before the memory is reused;
//  - the end of the process: SHUTDOWN.
// All of it is reported after the code is written and before it first runs (Intel's reference).
//
// Cost without a profiler: Create() asks iJIT_IsProfilingActive() once; when nothing is running
// (no collector, or one whose Initialize returned 0) no line table is built and the API is
// never called again.
#pragma once

#include <cstdint>
#include <vector>

#include "ast.h"
#include "compiled_code.h"

namespace jitscope::jitvm {

inline constexpr const char* kBaselineModule = "jitvm-baseline";
inline constexpr const char* kOptimizedModule = "jitvm-optimized";
inline constexpr const char* kStubModule = "jitvm-stubs";

class JitReporter {
 public:
  // `use_api` false: never call the API at all (to measure what even asking costs).
  explicit JitReporter(bool use_api);

  bool active() const { return active_; }

  // Reports `code` placed at `hot` (and `cold` for a split function); returns the method id,
  // or 0 when inactive.
  uint32_t ReportMethod(const Program& program, const CompiledCode& code, const uint8_t* hot,
                        const uint8_t* cold);
  uint32_t ReportStub(const char* name, const uint8_t* code, uint32_t size);
  void ReportUnload(uint32_t method_id);
  void ReportShutdown();

 private:
  uint32_t NewMethodId();

  bool active_ = false;
  std::vector<uint32_t> inline_ids_;  // scratch, reused between methods
};

}  // namespace jitscope::jitvm
