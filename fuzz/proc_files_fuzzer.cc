// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the /proc readers of `record -p` (record/proc_files.h): the same bytes as
// a maps file, an environment block or command line, a status file (its uid, capabilities and pid
// in its namespace) and a task entry name, and of `record --off-cpu` (record/kernel_symbols.h): a
// kallsyms file. Any bytes give values, never a crash.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "jitscope/record/attach.h"
#include "jitscope/record/kernel_symbols.h"
#include "jitscope/record/proc_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope::record;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (const ProcMapping& mapping : ParseProcMaps(bytes).mappings) {
    if (mapping.executable) (void)MakeMmap2Record(1, 1, 0, mapping);
  }
  (void)SplitNulSeparated(bytes);
  (void)CollectorOutputDir(bytes, "/cwd");
  (void)FindEnvironmentValue(bytes, "JITSCOPE_OUTPUT_DIR");
  (void)StatusRealUid(bytes);
  (void)StatusEffectiveCapabilities(bytes);
  (void)StatusNamespacePid(bytes);
  (void)ParseTaskId(bytes);
  if (const std::optional<KernelSymbols> symbols = KernelSymbols::Parse(bytes)) {
    for (uint64_t address : {uint64_t{0}, uint64_t{0xffffffff81000000}, ~uint64_t{0}}) {
      (void)symbols->Find(address);
    }
  }
  return 0;
}
