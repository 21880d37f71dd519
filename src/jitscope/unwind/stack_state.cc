// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/stack_state.h"

#include <deque>
#include <map>
#include <optional>
#include <set>

#include "jitscope/unwind/call_effect.h"

namespace jitscope::unwind::stack_state {
namespace {

constexpr bool kCallClobbered[kGprCount] = {true, true, true, false, false, false, true,  true,
                                            true, true, true, true,  false, false, false, false};

int Gpr(ZydisRegister reg) {
  const ZydisRegister enclosing = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
  if (enclosing < ZYDIS_REGISTER_RAX || enclosing > ZYDIS_REGISTER_R15) return -1;
  return static_cast<int>(enclosing - ZYDIS_REGISTER_RAX);
}

// A whole 64-bit general-purpose register operand: its number, or -1.
int Gpr64(const ZydisDecodedOperand& op) {
  if (op.type != ZYDIS_OPERAND_TYPE_REGISTER) return -1;
  if (ZydisRegisterGetClass(op.reg.value) != ZYDIS_REGCLASS_GPR64) return -1;
  return Gpr(op.reg.value);
}

// lea r, [r + 0]: a no-op engines pad code with (Mono's JIT aligns its call sites with
// lea rbp, [rbp + 0]); r keeps the caller's value, so a callee-saved r is not lost by it.
bool IsOwnAddress(int dst, const ZydisDecodedOperand& op) {
  return op.type == ZYDIS_OPERAND_TYPE_MEMORY && op.mem.index == ZYDIS_REGISTER_NONE &&
         op.mem.disp.value == 0 && ZydisRegisterGetClass(op.mem.base) == ZYDIS_REGCLASS_GPR64 &&
         Gpr(op.mem.base) == dst;
}

class Transfer {
 public:
  Transfer(State& s, CallTargets* targets) : s_(s), targets_(targets) {}

  // The address of a memory operand relative to the CFA, or kUnknown.
  int32_t Address(const ZydisDecodedOperand& op) const {
    // lea's operand is an address generation (AGEN), every other one a memory access.
    if (op.type != ZYDIS_OPERAND_TYPE_MEMORY ||
        (op.mem.type != ZYDIS_MEMOP_TYPE_MEM && op.mem.type != ZYDIS_MEMOP_TYPE_AGEN)) {
      return kUnknown;
    }
    if (op.mem.index != ZYDIS_REGISTER_NONE || op.mem.segment == ZYDIS_REGISTER_FS ||
        op.mem.segment == ZYDIS_REGISTER_GS) {
      return kUnknown;
    }
    if (ZydisRegisterGetClass(op.mem.base) != ZYDIS_REGCLASS_GPR64) return kUnknown;
    const int base = Gpr(op.mem.base);
    if (base < 0 || !IsHeight(s_.rel[base])) return kUnknown;
    return Known(int64_t{s_.rel[base]} + op.mem.disp.value);
  }

  // A write to register `g` of a value the analysis does not follow.
  void Write(int g) {
    if (g == kRsp) {
      MoveRsp(kUnknown);
      return;
    }
    s_.rel[g] = kUnknown;
    if (kCalleeSaved[g] && s_.saved[g].where == SavedRegister::Where::kSame) {
      s_.saved[g] = {SavedRegister::Where::kLost, 0};
    }
  }

  // Sets g to a value the analysis follows, counting it as a write.
  void Set(int g, int32_t value) {
    if (g == kRsp) {
      MoveRsp(value);
      return;
    }
    Write(g);
    s_.rel[g] = value;
  }

  // rsp takes a new value. Slots below it are free for the next push or signal frame, so a
  // register saved there is no longer recoverable; the return address must stay above it.
  void MoveRsp(int32_t rel) {
    if (!IsHeight(rel)) rel = kUnknown;
    s_.rel[kRsp] = rel;
    if (rel == kUnknown) return;
    if (rel > -8) s_.return_address = false;
    for (int g = 0; g < kGprCount; ++g) {
      if (s_.saved[g].where == SavedRegister::Where::kAt && s_.saved[g].offset < rel) {
        s_.saved[g] = {SavedRegister::Where::kLost, 0};
      }
    }
    for (Slot& slot : s_.slots) {
      if (slot.offset != kUnknown && slot.offset < rel) slot = {};
    }
  }

  // A store of `size` bytes at CFA + rel (kUnknown: somewhere the analysis does not follow,
  // assumed not to be this frame's save slots).
  void Store(int32_t rel, int64_t size) {
    if (rel == kUnknown) return;
    const int64_t begin = rel, end = begin + size;
    for (int g = 0; g < kGprCount; ++g) {
      const SavedRegister& saved = s_.saved[g];
      if (saved.where == SavedRegister::Where::kAt && begin < saved.offset + 8 &&
          saved.offset < end) {
        s_.saved[g] = {SavedRegister::Where::kLost, 0};
      }
    }
    for (Slot& slot : s_.slots) {
      if (slot.offset != kUnknown && begin < slot.offset + 8 && slot.offset < end) slot = {};
    }
    if (begin < 0 && -8 < end) s_.return_address = false;
    if (end > 0) s_.wrote_caller_frame = true;
  }

  // The 8-byte slot at CFA + rel now holds `value` (kUnknown: something not followed).
  void Remember(int32_t rel, int32_t value) {
    if (rel == kUnknown) return;
    Store(rel, 8);
    if (rel == -8 && value == kReturnAddress) {
      // The return address put back where the CFA rule expects it (pop; ...; push).
      s_.return_address = true;
      return;
    }
    if (value == kUnknown) return;
    for (Slot& slot : s_.slots) {
      if (slot.offset == kUnknown) {
        slot = {rel, value};
        return;
      }
    }
  }

  // A push of register g (-1: of something else).
  void Push(int g, int width) {
    const int32_t old = s_.rel[kRsp];
    const int32_t value = g >= 0 ? s_.rel[g] : kUnknown;  // push rsp pushes its old value
    const int32_t slot = old == kUnknown ? kUnknown : Known(int64_t{old} - width);
    MoveRsp(slot);
    if (slot == kUnknown) return;
    if (width != 8) {
      Store(slot, width);
      return;
    }
    Remember(slot, value);
    if (g >= 0 && kCalleeSaved[g] && s_.saved[g].where == SavedRegister::Where::kSame) {
      s_.saved[g] = {SavedRegister::Where::kAt, slot};
    }
  }

  void Pop(int g, int width) {
    const int32_t old = s_.rel[kRsp];
    if (g == kRsp) {
      MoveRsp(kUnknown);
      return;
    }
    if (g >= 0) {
      SavedRegister& saved = s_.saved[g];
      const bool restores = old != kUnknown && width == 8 &&
                            saved.where == SavedRegister::Where::kAt && saved.offset == old;
      if (kCalleeSaved[g]) {
        if (restores) {
          saved = {SavedRegister::Where::kSame, 0};
        } else if (saved.where == SavedRegister::Where::kSame || old == kUnknown) {
          saved = {SavedRegister::Where::kLost, 0};
        }
      }
      s_.rel[g] = width == 8 && old != kUnknown ? s_.ValueAt(old) : kUnknown;
    }
    MoveRsp(old == kUnknown ? kUnknown : Known(int64_t{old} + width));
  }

  void Call(const disasm::Instruction& in) {
    if (targets_ != nullptr) {
      if (const auto target = in.BranchTarget()) {
        if (const CallEffect* effect = targets_->EffectOf(*target)) {
          effect->ApplyTo(s_);
          return;
        }
      }
    }
    for (int g = 0; g < kGprCount; ++g) {
      if (kCallClobbered[g]) s_.rel[g] = kUnknown;
    }
  }

  // Everything the instruction writes that no rule above follows.
  void Generic(const disasm::Instruction& in) {
    for (uint8_t i = 0; i < in.operand_count; ++i) {
      const ZydisDecodedOperand& op = in.operands[i];
      if ((op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) == 0) continue;
      if (op.type == ZYDIS_OPERAND_TYPE_REGISTER) {
        const int g = Gpr(op.reg.value);
        if (g >= 0) Write(g);
      } else if (op.type == ZYDIS_OPERAND_TYPE_MEMORY) {
        Store(Address(op), op.size / 8);
      }
    }
  }

  void Apply(const disasm::Instruction& in) {
    const ZydisDecodedInstruction& raw = in.raw;
    const ZydisDecodedOperand* ops = in.operands.data();
    const int width = raw.operand_width / 8;
    switch (raw.mnemonic) {
      case ZYDIS_MNEMONIC_PUSH:
        if (width == 8 || width == 2) return Push(Gpr64(ops[0]), width);
        break;
      case ZYDIS_MNEMONIC_POP:
        if (width == 8 || width == 2) {
          if (ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER) return Pop(Gpr(ops[0].reg.value), width);
          Pop(-1, width);
          Store(Address(ops[0]), width);
          return;
        }
        break;
      case ZYDIS_MNEMONIC_CALL:
        return Call(in);
      case ZYDIS_MNEMONIC_LEAVE:
        // mov rsp, rbp; pop rbp.
        MoveRsp(s_.rel[kRbp]);
        return Pop(kRbp, 8);
      case ZYDIS_MNEMONIC_ENTER:
        // enter N, 0 is push rbp; mov rbp, rsp; sub rsp, N. A nesting level copies frame
        // pointers too: not followed.
        if (ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[1].imm.value.u == 0) {
          Push(kRbp, 8);
          Set(kRbp, s_.rel[kRsp]);
          const int32_t rsp = s_.rel[kRsp];
          return MoveRsp(rsp == kUnknown
                             ? kUnknown
                             : Known(int64_t{rsp} - static_cast<int64_t>(ops[0].imm.value.u)));
        }
        break;
      case ZYDIS_MNEMONIC_MOV: {
        const int dst = Gpr64(ops[0]), src = Gpr64(ops[1]);
        if (dst >= 0 && dst == src) return;  // mov r, r: a padding no-op
        if (dst >= 0 && src >= 0) return Set(dst, s_.rel[src]);
        if (ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY && src >= 0) {
          const int32_t at = Address(ops[0]);
          const bool live = at != kUnknown && s_.rel[kRsp] != kUnknown && at >= s_.rel[kRsp];
          if (live) {
            Remember(at, s_.rel[src]);
          } else {
            Store(at, 8);
          }
          // A callee-saved register stored while it still holds the caller's value, into a
          // live slot of this frame: saved there.
          if (kCalleeSaved[src] && s_.saved[src].where == SavedRegister::Where::kSame && live &&
              at <= -16) {
            s_.saved[src] = {SavedRegister::Where::kAt, at};
          }
          return;
        }
        if (dst >= 0 && ops[1].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[1].size == 64) {
          const int32_t at = Address(ops[1]);
          const bool restores = kCalleeSaved[dst] && at != kUnknown &&
                                s_.saved[dst].where == SavedRegister::Where::kAt &&
                                s_.saved[dst].offset == at;
          const int32_t value = at == kUnknown ? kUnknown : s_.ValueAt(at);
          Write(dst);
          if (restores) s_.saved[dst] = {SavedRegister::Where::kSame, 0};
          if (dst != kRsp) s_.rel[dst] = value;
          return;
        }
        break;
      }
      case ZYDIS_MNEMONIC_LEA: {
        const int dst = Gpr64(ops[0]);
        if (dst >= 0 && raw.address_width == 64 && IsOwnAddress(dst, ops[1])) return;
        if (dst >= 0 && raw.address_width == 64) return Set(dst, Address(ops[1]));
        break;
      }
      case ZYDIS_MNEMONIC_ADD:
      case ZYDIS_MNEMONIC_SUB: {
        const int dst = Gpr64(ops[0]);
        if (dst >= 0 && ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
          const int64_t imm = ops[1].imm.value.s;
          const int32_t old = s_.rel[dst];
          const int32_t now = !IsHeight(old)
                                  ? kUnknown
                                  : Known(raw.mnemonic == ZYDIS_MNEMONIC_ADD ? int64_t{old} + imm
                                                                             : int64_t{old} - imm);
          return Set(dst, now);
        }
        break;
      }
      default:
        break;
    }
    Generic(in);
  }

 private:
  State& s_;
  CallTargets* targets_;
};

}  // namespace

State State::Entry() {
  State s;
  s.rel.fill(kUnknown);
  s.rel[kRsp] = -8;  // the call pushed the return address just below the CFA
  return s;
}

bool State::Merge(const State& other) {
  const State before = *this;
  for (int r = 0; r < kGprCount; ++r) {
    if (rel[r] != other.rel[r]) rel[r] = kUnknown;
    if (saved[r] != other.saved[r]) saved[r] = {SavedRegister::Where::kLost, 0};
  }
  for (Slot& slot : slots) {
    if (slot.offset == kUnknown) continue;
    bool in_both = false;
    for (const Slot& theirs : other.slots) in_both = in_both || theirs == slot;
    if (!in_both) slot = {};
  }
  return_address = return_address && other.return_address;
  wrote_caller_frame = wrote_caller_frame || other.wrote_caller_frame;
  return !(*this == before);
}

int32_t State::ValueAt(int32_t offset) const {
  if (offset == -8 && return_address) return kReturnAddress;
  for (const Slot& slot : slots) {
    if (slot.offset == offset && offset != kUnknown) return slot.value;
  }
  return kUnknown;
}

bool State::ReturnAddressOnTop() const {
  return IsHeight(rel[kRsp]) && ValueAt(rel[kRsp]) == kReturnAddress;
}

bool State::HoldsReturnAddress() const {
  if (return_address) return true;
  for (int g = 0; g < kGprCount; ++g) {
    if (rel[g] == kReturnAddress) return true;
  }
  for (const Slot& slot : slots) {
    if (slot.offset != kUnknown && slot.value == kReturnAddress) return true;
  }
  return false;
}

void Apply(State& state, const disasm::Instruction& instruction, CallTargets* targets) {
  Transfer(state, targets).Apply(instruction);
}

const CodeRegion* RegionOf(std::span<const CodeRegion> regions, uint64_t address) {
  for (const CodeRegion& region : regions) {
    if (address >= region.address && address - region.address < region.bytes.size()) {
      return &region;
    }
  }
  return nullptr;
}

namespace {

std::optional<disasm::Instruction> DecodeAt(const disasm::Decoder& decoder,
                                            std::span<const CodeRegion> regions, uint64_t pc) {
  const CodeRegion* region = RegionOf(regions, pc);
  if (region == nullptr) return std::nullopt;
  return decoder.Decode(region->bytes.subspan(pc - region->address), pc);
}

bool IsIndirectJump(const disasm::Instruction& instruction) {
  return instruction.IsJump() && !instruction.BranchTarget();
}

// What a visit keeps of the instruction it decoded: what later checks of the exploration ask,
// without decoding it again.
void NoteInstruction(const disasm::Instruction& instruction, std::span<const CodeRegion> regions,
                     Visit& visit) {
  visit.length = instruction.length;
  visit.indirect_jump = IsIndirectJump(instruction);
  visit.ends_flow = instruction.EndsFlow();
  visit.call = instruction.IsCall();
  visit.returns = instruction.IsReturn();
  const std::optional<uint64_t> target =
      instruction.IsJump() ? instruction.BranchTarget() : std::nullopt;
  visit.jumps_out = target && RegionOf(regions, *target) == nullptr;
}

// True when `address` is inside (not at the start of) an instruction `result` decoded:
// instructions are at most 15 bytes long.
bool InsideKnownInstruction(const Exploration& result, uint64_t address) {
  for (uint64_t back = 1; back < 15 && back <= address; ++back) {
    auto it = result.visits.find(address - back);
    if (it != result.visits.end() && it->second.length > back) return true;
  }
  return false;
}

// True when an instruction `result` decoded starts inside [address + 1, address + length).
bool CoversKnownInstruction(const Exploration& result, uint64_t address, uint8_t length) {
  for (uint64_t inside = 1; inside < length; ++inside) {
    if (result.visits.contains(address + inside)) return true;
  }
  return false;
}

}  // namespace

bool IsPadding(const disasm::Instruction& instruction) {
  return instruction.raw.mnemonic == ZYDIS_MNEMONIC_NOP ||
         instruction.raw.mnemonic == ZYDIS_MNEMONIC_INT3;
}

bool OverlapsKnownInstruction(const Exploration& explored, uint64_t address, uint8_t length) {
  return InsideKnownInstruction(explored, address) ||
         CoversKnownInstruction(explored, address, length);
}

namespace {

// Runs the analysis from the instructions in `work` to a fixed point: each instruction's state
// flows to its successors, merged where paths meet. False when `steps` passes `max_steps` (the
// states are not a fixed point then, and give no rule).
bool Propagate(const disasm::Decoder& decoder, std::span<const CodeRegion> regions,
               CallTargets* targets, Exploration& result, std::deque<uint64_t>& work,
               uint64_t max_steps, uint64_t& steps) {
  while (!work.empty()) {
    if (++steps > max_steps) return false;
    const uint64_t pc = work.front();
    work.pop_front();
    Visit& visit = result.visits.at(pc);
    const CodeRegion* region = RegionOf(regions, pc);
    const auto instruction = decoder.Decode(region->bytes.subspan(pc - region->address), pc);
    if (!instruction) {
      visit.decodes = false;
      continue;
    }
    NoteInstruction(*instruction, regions, visit);
    if (visit.call) result.call_ends.push_back(instruction->End());
    State after = visit.state;
    Apply(after, *instruction, targets);
    auto flow_to = [&](uint64_t target) {
      if (RegionOf(regions, target) == nullptr) return;  // a tail jump elsewhere, or off the end
      auto [it, inserted] = result.visits.try_emplace(target, Visit{after});
      if (inserted || it->second.state.Merge(after)) work.push_back(target);
    };
    if (instruction->IsJump()) {
      if (const auto target = instruction->BranchTarget()) flow_to(*target);
    }
    if (!instruction->EndsFlow()) flow_to(instruction->End());
  }
  return true;
}

// Where the code the analysis reached leaves its regions by a direct jump, and the states it does
// so in, by target: V8's baseline code leaves through a builtin that tears its frame down
// (BaselineLeaveFrame), with the frame still up.
using Exits = std::map<uint64_t, std::vector<State>>;
Exits ExitsOf(const disasm::Decoder& decoder, std::span<const CodeRegion> regions,
              const Exploration& result) {
  Exits exits;
  for (const auto& [pc, visit] : result.visits) {
    if (!visit.decodes || visit.length == 0 || visit.indirect_jump) continue;
    const auto instruction = DecodeAt(decoder, regions, pc);
    if (!instruction || !instruction->IsJump()) continue;
    const std::optional<uint64_t> target = instruction->BranchTarget();
    if (!target || RegionOf(regions, *target) != nullptr) continue;
    exits[*target].push_back(visit.state);
  }
  return exits;
}

// Whether two states have the same frame, known: the CFA where the frame pointer says (else
// where rsp does), the caller's callee-saved registers and the return address where both say.
// The frame's other slots, the scratch registers and, in a frame-pointer frame, rsp may differ:
// a builtin that tears the frame down goes by the frame pointer (V8's callees pop their
// arguments, which the analysis takes on the ABI's word).
bool SameFrame(const State& a, const State& b) {
  const int base = IsHeight(a.rel[kRbp]) ? kRbp : kRsp;
  return IsHeight(a.rel[base]) && a.rel[base] == b.rel[base] && a.saved == b.saved &&
         a.return_address == b.return_address && a.HoldsReturnAddress() == b.HoldsReturnAddress();
}

// How a case's flow may join code the analysis knows: in a state the known one already allows
// (merging changes nothing), or with the same frame (SameFrame: what scratch registers and the
// frame's other slots hold may differ), to be merged and the analysis run on from there.
enum class Join : uint8_t { kAllowed, kSameFrame };

// Explores, from `start` in the state `seed`, code no path reached, without touching `result`:
// the visits it makes, or nullopt when the code does not hold together as a switch's case in
// that state. It must decode and stay within the regions, never overlapping an instruction
// decoded before (entering its middle, or covering its start); a `ret` must find the return
// address on top; flow that reaches code the analysis knows must arrive as `join` says; a direct
// jump out of the regions is a tail call, and must leave the return address on top too, or leave
// where the code the analysis reached leaves (`exits`), with the same frame. `steps` is the
// budget left.
std::optional<std::unordered_map<uint64_t, Visit>> ExploreCase(
    const disasm::Decoder& decoder, std::span<const CodeRegion> regions, CallTargets* targets,
    const Exploration& result, const Exits& exits, uint64_t start, const State& seed, Join join,
    uint64_t& steps) {
  std::unordered_map<uint64_t, Visit> visits;
  std::deque<uint64_t> work;
  visits.emplace(start, Visit{seed});
  work.push_back(start);
  while (!work.empty()) {
    if (steps == 0) return std::nullopt;
    --steps;
    const uint64_t pc = work.front();
    work.pop_front();
    Visit& visit = visits.at(pc);
    const auto instruction = DecodeAt(decoder, regions, pc);
    if (!instruction || CoversKnownInstruction(result, pc, instruction->length)) {
      return std::nullopt;
    }
    NoteInstruction(*instruction, regions, visit);
    if (instruction->IsReturn() && !visit.state.ReturnAddressOnTop()) return std::nullopt;
    State after = visit.state;
    Apply(after, *instruction, targets);
    bool holds = true;
    auto flow_to = [&](uint64_t target, bool jump) {
      if (RegionOf(regions, target) == nullptr) {
        bool leaves = visit.state.ReturnAddressOnTop();
        if (const auto exit = exits.find(target); !leaves && exit != exits.end()) {
          for (const State& state : exit->second) leaves = leaves || SameFrame(state, visit.state);
        }
        holds = holds && jump && leaves;
        return;
      }
      if (auto known = result.visits.find(target); known != result.visits.end()) {
        State merged = known->second.state;
        holds = holds && (join == Join::kSameFrame ? SameFrame(known->second.state, after)
                                                   : !merged.Merge(after));
        return;
      }
      // Into the middle of an instruction the analysis decoded: not code it could run.
      holds = holds && !InsideKnownInstruction(result, target);
      auto [it, inserted] = visits.try_emplace(target, Visit{after});
      if (inserted || it->second.state.Merge(after)) work.push_back(target);
    };
    if (instruction->IsJump()) {
      if (const auto target = instruction->BranchTarget()) flow_to(*target, true);
    }
    if (!instruction->EndsFlow()) flow_to(instruction->End(), false);
    if (!holds) return std::nullopt;
  }
  return visits;
}

// The cases of a switch: code after a flow-ending instruction that no path reaches, entered
// through a jump table (jmp [table + index * 8], or jmp reg after loading the entry) whose targets
// the analysis cannot read — the table is data, often not even among the bytes an engine
// reports. Such code is taken to start in the state of the indirect jumps the analysis reached
// (merged), and kept only where it holds together in that state (ExploreCase). A function's table
// jump runs inside its frame, its indirect tail calls after it is torn down (the return address on
// top): the states of jumps inside a frame are tried first. Code after one kept case is the next
// candidate. A generator's resume points (V8's baseline code of an async function) are such cases:
// entered through their own table, with the frame up. A case that rejoins the function's other
// paths with the same frame but other values in scratch registers or the frame's other slots
// (Mono's switches: each case computes into registers the join point overwrites) is kept too, its
// state merged where it joins, and the analysis run on to its fixed point again from there, so
// that the code after the join gets only what holds on every path. False when the step bound
// cuts that short.
bool ExploreJumpTableCases(const disasm::Decoder& decoder, std::span<const CodeRegion> regions,
                           CallTargets* targets, Exploration& result, uint64_t max_steps,
                           uint64_t& steps) {
  // Each round merges the cases that join with other scratch values, which may reach further
  // table jumps and further cases; a few rounds are all real code needs.
  for (int round = 0; round < 4; ++round) {
    std::optional<State> framed;     // merged states of indirect jumps inside a frame
    std::optional<State> frameless;  // and with the return address on top
    std::set<uint64_t> candidates;
    for (const auto& [pc, visit] : result.visits) {
      if (!visit.decodes || visit.length == 0) continue;
      if (visit.indirect_jump) {
        std::optional<State>& seed = visit.state.ReturnAddressOnTop() ? frameless : framed;
        if (seed) {
          seed->Merge(visit.state);
        } else {
          seed = visit.state;
        }
      }
      if (visit.ends_flow) candidates.insert(pc + visit.length);
    }
    std::vector<State> seeds;
    for (const std::optional<State>& seed : {framed, frameless}) {
      if (seed) seeds.push_back(*seed);
    }
    if (seeds.empty()) return true;
    const Exits exits = ExitsOf(decoder, regions, result);
    std::vector<std::pair<uint64_t, State>> joining;  // cases to merge, by their start
    while (!candidates.empty()) {
      uint64_t start = *candidates.begin();
      candidates.erase(candidates.begin());
      for (auto padding = DecodeAt(decoder, regions, start);
           padding && IsPadding(*padding) && !result.visits.contains(start);
           padding = DecodeAt(decoder, regions, start)) {
        start = padding->End();
      }
      if (result.visits.contains(start) || RegionOf(regions, start) == nullptr ||
          InsideKnownInstruction(result, start)) {
        continue;
      }
      std::optional<std::unordered_map<uint64_t, Visit>> visits;
      uint64_t budget = max_steps - std::min(steps, max_steps);
      for (size_t i = 0; i < seeds.size() && !visits; ++i) {
        visits = ExploreCase(decoder, regions, targets, result, exits, start, seeds[i],
                             Join::kAllowed, budget);
      }
      if (!visits) {
        for (size_t i = 0; i < seeds.size(); ++i) {
          if (ExploreCase(decoder, regions, targets, result, exits, start, seeds[i],
                          Join::kSameFrame, budget)) {
            joining.emplace_back(start, seeds[i]);
            break;
          }
        }
      }
      steps = max_steps - budget;
      if (!visits) continue;
      for (auto& [pc, visit] : *visits) {
        if (visit.call) result.call_ends.push_back(pc + visit.length);
        if (visit.ends_flow) candidates.insert(pc + visit.length);
        result.visits.emplace(pc, std::move(visit));
      }
    }
    if (joining.empty()) return true;
    std::deque<uint64_t> work;
    for (const auto& [start, seed] : joining) {
      auto [it, inserted] = result.visits.try_emplace(start, Visit{seed});
      if (inserted || it->second.state.Merge(seed)) work.push_back(start);
    }
    if (!Propagate(decoder, regions, targets, result, work, max_steps, steps)) return false;
  }
  return true;
}

}  // namespace

Exploration Explore(const disasm::Decoder& decoder, std::span<const CodeRegion> regions,
                    uint64_t entry, CallTargets* targets, bool switch_cases) {
  Exploration result;
  if (RegionOf(regions, entry) == nullptr) {
    result.complete = true;
    return result;
  }
  uint64_t total_bytes = 0;
  for (const CodeRegion& region : regions) total_bytes += region.bytes.size();
  std::deque<uint64_t> work;
  result.visits.emplace(entry, Visit{State::Entry()});
  work.push_back(entry);
  // Each instruction's state can only lose facts, about 50 times at most; past that bound the
  // input is hostile or the analysis wrong, and no rule is better than a wrong one.
  const uint64_t max_steps = 64 * total_bytes + 64;
  uint64_t steps = 0;
  if (!Propagate(decoder, regions, targets, result, work, max_steps, steps)) return result;
  if (switch_cases && !ExploreJumpTableCases(decoder, regions, targets, result, max_steps, steps)) {
    return result;
  }
  result.complete = true;
  return result;
}

}  // namespace jitscope::unwind::stack_state
