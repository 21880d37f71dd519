// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the part of an .eh_frame a compact copy keeps (record/eh_frame_subset.h),
// which reads the .eh_frame of any file a session touched: whatever the bytes, it returns a part
// or nothing, and a part reads as an .eh_frame (unwind::CfiModule::FromEhFrame) at the same
// pcs. Input: the section's address (8 bytes), a pc (8 bytes), then the section's bytes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "jitscope/record/eh_frame_subset.h"
#include "jitscope/unwind/cfi_module.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  if (size < 16) return 0;
  uint64_t address = 0, pc = 0;
  std::memcpy(&address, data, 8);
  std::memcpy(&pc, data + 8, 8);
  const std::string_view eh_frame(reinterpret_cast<const char*>(data + 16), size - 16);
  const std::optional<std::string> part = record::EhFrameSubset(eh_frame, address, {pc});
  if (!part) return 0;
  auto module = unwind::CfiModule::FromEhFrame(
      {reinterpret_cast<const uint8_t*>(part->data()), part->size()}, address);
  if (module.ok()) (*module)->Find(pc);
  return 0;
}
