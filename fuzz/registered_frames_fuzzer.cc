// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the file of registered unwind tables (formats/registered_frames.h), the
// FDE ranges read from each table (formats/eh_frame_ranges.h), and the walk's reading of the
// table (unwind::CfiModule::FromEhFrame) at the code each FDE claims.
#include <cstddef>
#include <cstdint>

#include "jitscope/formats/eh_frame_ranges.h"
#include "jitscope/formats/registered_frames.h"
#include "jitscope/unwind/cfi_module.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  formats::EhFrameLength({data, size});
  auto parsed = formats::ParseRegisteredFrames({data, size}, "frames-1.jsf");
  if (!parsed.ok()) return 0;
  for (const formats::FrameRegistration& registration : parsed->registrations) {
    auto module = unwind::CfiModule::FromEhFrame(registration.eh_frame, registration.address);
    if (!module.ok()) continue;
    for (const formats::CodeRange& range : registration.ranges) {
      (*module)->Find(range.begin);
      (*module)->Find(range.begin + (range.end - range.begin) / 2);
      (*module)->Find(range.end - 1);
    }
  }
  return 0;
}
