// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The unwinder's view of a recorded process (unwind::AddressSpace): which ELF file held the code
// at a pc, from the session's MMAP records at the sample's time, with the file's CFI opened once
// per path. The vDSO is the image the session kept (formats::kVdsoFileName), or for a perf.data
// the one perf's build-id cache holds. Anything else —
// anonymous memory, JIT code, a file that is gone — has no module, so a walk stops there with
// "no rule".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "jitscope/report/process_maps.h"
#include "jitscope/unwind/unwinder.h"

namespace jitscope::report {

class SessionAddressSpace : public unwind::AddressSpace {
 public:
  SessionAddressSpace(const ProcessMaps& maps, std::string vdso_path)
      : maps_(maps), vdso_path_(std::move(vdso_path)) {}

  // The process and time the next lookups are for.
  void At(uint32_t pid, uint64_t time_ns) {
    pid_ = pid;
    time_ns_ = time_ns;
  }

  bool Find(uint64_t pc, unwind::ModuleAt& found) override;

 private:
  unwind::CfiModule* ModuleFor(const std::string& path);

  const ProcessMaps& maps_;
  std::string vdso_path_;
  uint32_t pid_ = 0;
  uint64_t time_ns_ = 0;
  std::map<std::string, std::unique_ptr<unwind::CfiModule>> modules_;  // nullptr: unreadable
};

}  // namespace jitscope::report
