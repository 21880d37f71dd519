// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/report/jit_advice.h"

#include <fmt/format.h>

namespace jitscope::report {
namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The program's own name, or a library that betrays the engine, starts with one of `names`
// ("libjvm" matches libjvm.so; "node" matches node, nodejs and node-20).
bool LooksLike(std::string_view program, const std::vector<session::Mapping>& mappings,
               std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (BaseName(program).starts_with(name)) return true;
    for (const session::Mapping& mapping : mappings) {
      if (BaseName(mapping.filename).starts_with(name)) return true;
    }
  }
  return false;
}

}  // namespace

std::string HowToReportJitCode(std::string_view program,
                               const std::vector<session::Mapping>& mappings) {
  if (LooksLike(program, mappings, {"node", "libnode"})) {
    return "run node with --perf-prof (or --perf-basic-prof)";
  }
  if (LooksLike(program, mappings, {"java", "libjvm"})) {
    return "start java with -agentpath:<jitscope>/lib/libjvmti_opagent.so (jitscope's JVMTI "
           "agent), or with -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit; a running "
           "JVM: jitscope record -p PID --jvm-agent (or --jvm-perf-map)";
  }
  if (LooksLike(program, mappings, {"postgres", "llvmjit"})) {
    return "set jit_profiling_support = on in PostgreSQL (LLVM engines: register LLVM's perf or "
           "Intel JIT event listener)";
  }
  if (LooksLike(program, mappings, {"libdnnl", "libmkldnn"})) {
    return "set DNNL_JIT_PROFILE=1 (or ONEDNN_JIT_PROFILE=1) for oneDNN";
  }
  return "switch on the engine's JIT reporting (an engine that uses the Intel JIT Profiling API "
         "needs no switch: jitscope record sets INTEL_JIT_PROFILER64; others write a perf map or "
         "jitdump when asked)";
}

std::string DescribeUnnamedJitCode(uint64_t anonymous, uint64_t total, std::string_view program,
                                   const std::vector<session::Mapping>& mappings,
                                   const std::vector<std::string>& missing) {
  if (total == 0 || anonymous * 100 <= total) return "";
  const std::string share = fmt::format(
      "{:.1f}% of samples ({}) are in anonymous executable memory that no JIT file names: ",
      100.0 * static_cast<double>(anonymous) / static_cast<double>(total), anonymous);
  if (!missing.empty()) {
    // The JIT did report its code: the file is what is gone (a session recorded before sessions
    // kept their processes' jitdumps, moved without them, or the file deleted since).
    const std::string which =
        missing.size() == 1 ? missing.front() + ", which is"
                            : fmt::format("{} and {} other jitdump{}, which are", missing.front(),
                                          missing.size() - 1, missing.size() == 2 ? "" : "s");
    return share + fmt::format(
                       "the JIT wrote {} no longer there and not kept in the session (moved or "
                       "deleted since the recording); to name its code, give the jitdump's new "
                       "place with --jit PATH",
                       which);
  }
  return share + fmt::format("code a JIT did not report; to name it, {}",
                             HowToReportJitCode(program, mappings));
}

}  // namespace jitscope::report
