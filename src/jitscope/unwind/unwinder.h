// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The walk: a sample's registers and stack copy → its call stack, one step per frame over one
// register file. Each step finds the code at the frame's pc (AddressSpace), the CFI row there
// (CfiModule), computes the CFA and the caller's registers from it (dwarf_expression.h), reading
// memory only from the stack copy. Signal frames are followed: the frame after one was
// interrupted, not calling, so its pc is looked up as is; every other caller's pc is a return
// address and is looked up one byte back, inside its call instruction.
//
// JIT code has no CFI unless its engine supplied some (V8's jitdump unwinding info), which the
// walk uses as an ELF file's. Elsewhere the address space hands out rules derived from its code
// bytes (derived_rules.h), which the walk applies as CFI rows; so does code of an ELF file that
// its CFI does not describe (V8's builtins in the node binary: elf_functions.h), with rules
// derived from the file's bytes. Bytes may be stale (an engine
// patched the code after reporting it), so the return address a derived step finds must be
// call-consistent: where it lies in JIT code, a call the analysis found must end there; otherwise
// the walk stops (kNotAfterCall) rather than go on from a wrong frame. Where it lies in an ELF
// file, the file's bytes before it must decode as a call ending there (call_check.h).
//
// HotSpot's interpreter is walked by its frame layout (hotspot_interpreter.h) wherever the address
// space says the code at a pc is the interpreter's: before any CFI or derived row, which cannot
// describe it. A derived step may return into the interpreter (compiled code returns into its
// return entries, which no call precedes); the interpreter's own steps are checked as derived
// steps are.
//
// Each walk ends with a reason. kOutermost is the only complete end: CFI said the return address
// is undefined (the thread's entry, `_start` or `clone3`), or it is 0, or the frame is in the code
// the kernel starts a process at (an ELF entry point up to its first call, which ld.so's `_start`
// has without CFI: call_check.h). Every other reason is
// where a walk was cut short, and a report counts them (UnwindStats). Code without CFI or a
// derived rule ends the walk with kNoRule.
//
// Not thread-safe: a walk caches CFI rows in the modules.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "jitscope/unwind/cfi_module.h"
#include "jitscope/unwind/derived_rules.h"
#include "jitscope/unwind/hotspot_interpreter.h"
#include "jitscope/unwind/registers.h"
#include "jitscope/unwind/stack_memory.h"

namespace jitscope::unwind {

enum class StopReason : uint8_t {
  kOutermost,            // the thread's entry: the stack is complete
  kNoRule,               // no CFI for the pc (no module, JIT code, a file without it)
  kStackCopyTooShort,    // a rule reads past the end of the sample's stack copy
  kUnreadableMemory,     // a rule reads memory the sample does not hold, or needs a lost register
  kLoop,                 // the caller's stack pointer is not above the callee's
  kDepthLimit,           // more frames than UnwindLimits::max_frames
  kNoRegisters,          // the sample carries no user registers (abi NONE)
  kNotAfterCall,         // a derived step found a return address that follows no call
  kBadInterpreterFrame,  // a HotSpot interpreter frame failed its checks (hotspot_interpreter.h)
};
inline constexpr size_t kStopReasonCount = 9;

// "end of stack", "no rule", "stack copy too short", ...
const char* StopReasonName(StopReason reason);

// Where the rule of a step came from.
enum class RuleSource : uint8_t {
  kCfi,            // an ELF file's call-frame information
  kEngineTables,   // the unwind tables a JIT engine supplied for its code
  kDerived,        // rules derived from JIT code's bytes
  kFrameRecords,   // an ELF frame record past the stack copy, read by the kernel (frame_records.h)
  kInterpreter,    // HotSpot's interpreter frame layout (hotspot_interpreter.h)
  kCaptured,       // rules derived from code record read from the running process
  kNativeDerived,  // rules derived from an ELF file's code that its CFI does not describe
};
inline constexpr size_t kRuleSourceCount = 7;

// "CFI", "engine tables", "derived", "frame records past the copy", "interpreter frames",
// "derived from code read while recording", "derived from native code without CFI"
const char* RuleSourceName(RuleSource source);

// The code at a pc: an ELF file's (module), or JIT code's (derived), whose rules take the pc
// itself. JIT code may also have a module: the unwind tables its engine supplied (bias 0), whose
// rows come before the derived ones; JIT code whose bytes are unknown may have only those.
// HotSpot's interpreter is `interpreter`, whatever else it has: its frame layout is its rule.
struct ModuleAt {
  CfiModule* module = nullptr;
  uint64_t bias = 0;  // pc - bias is the address in the module's file
  const DerivedRules* derived = nullptr;
  bool interpreter = false;
  // The derived rules are of code record read from the running process (RuleSource::kCaptured),
  // not of code a JIT file or an ELF file holds.
  bool captured = false;
};

// Which module holds the code at a pc; implemented over a session's mappings (report) or the
// running process (tests).
class AddressSpace {
 public:
  virtual ~AddressSpace() = default;
  virtual bool Find(uint64_t pc, ModuleAt& found) = 0;
  // The code at `address` as the walk's sample ran it, into `out`: how many bytes are known from
  // `address` on (0: none, the default). The interpreter's step reads the instruction a running
  // frame is at.
  virtual size_t ReadCode(uint64_t address, std::span<uint8_t> out) {
    (void)address;
    (void)out;
    return 0;
  }
};

struct UnwoundFrame {
  UnwoundFrame() = default;
  UnwoundFrame(uint64_t frame_pc, bool frame_activation)
      : pc(frame_pc), activation(frame_activation) {}

  uint64_t pc = 0;
  // The pc is exact (the sampled instruction, or one a signal interrupted), not a return
  // address: symbolize it as is, not one byte back.
  bool activation = false;
  // A HotSpot interpreter frame's Method* and bcp, as its slots hold them.
  std::optional<InterpreterFrame> interpreter;
  bool operator==(const UnwoundFrame&) const = default;
};

struct UnwindLimits {
  size_t max_frames = 256;
};

struct UnwindResult {
  std::vector<UnwoundFrame> frames;  // the sampled pc first
  StopReason reason = StopReason::kOutermost;
  // The registers of the last frame, when the walk stopped because a step could not be taken
  // (kStackCopyTooShort, kUnreadableMemory); left as an earlier walk set it otherwise.
  RegisterFile stopped;
  std::array<uint32_t, kRuleSourceCount> steps{};  // the steps taken, by their rule's source
  void CountStep(RuleSource source) { ++steps[static_cast<size_t>(source)]; }
};

void Unwind(const RegisterFile& registers, const StackMemory& stack, AddressSpace& space,
            const UnwindLimits& limits, UnwindResult& result);

struct UnwindStats {
  std::array<uint64_t, kStopReasonCount> stops{};
  std::array<uint64_t, kRuleSourceCount> steps{};
  // The walks that took a step by rules derived from code read from the running process.
  uint64_t walks_on_captured = 0;
  void Count(StopReason reason) { ++stops[static_cast<size_t>(reason)]; }
  void CountSteps(const UnwindResult& walk) {
    for (size_t i = 0; i < kRuleSourceCount; ++i) steps[i] += walk.steps[i];
    if (walk.steps[static_cast<size_t>(RuleSource::kCaptured)] > 0) ++walks_on_captured;
  }
  uint64_t Of(StopReason reason) const { return stops[static_cast<size_t>(reason)]; }
  uint64_t StepsBy(RuleSource source) const { return steps[static_cast<size_t>(source)]; }
  // The reasons some walk ended for, in the reasons' order: (StopReasonName, count).
  std::vector<std::pair<std::string, uint64_t>> Ends() const;
  // The sources some step's rule came from, in their order: (RuleSourceName, count).
  std::vector<std::pair<std::string, uint64_t>> Steps() const;
};

// "12 end of stack, 3 no rule": a list of Ends() or Steps() as the tools print it.
std::string DescribeCounts(const std::vector<std::pair<std::string, uint64_t>>& counts);

}  // namespace jitscope::unwind
