// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/derived_rules.h"

#include <dwarf.h>

#include <algorithm>
#include <optional>

#include "jitscope/unwind/stack_state.h"

namespace jitscope::unwind {
namespace {

using stack_state::IsHeight;
using stack_state::kDwarfOfX86;
using stack_state::kGprCount;
using stack_state::kRbp;
using stack_state::kRsp;
using stack_state::State;

struct RuleHash {
  size_t operator()(const DerivedRule& r) const {
    size_t h = static_cast<size_t>(r.cfa_register) * 1000003u ^ static_cast<size_t>(r.cfa_offset) ^
               static_cast<size_t>(r.return_address_offset) << 20;
    for (int dwarf : kCalleeSavedDwarf) {
      const SavedRegister& s = r.saved[static_cast<size_t>(dwarf)];
      h = h * 31 + static_cast<size_t>(s.where) * 7 + static_cast<size_t>(s.offset);
    }
    return h;
  }
};

// The CFA by rbp where rbp holds a height, as compilers' CFI does in frame-pointer code: a
// frame pointer stays right across calls whose effect on rsp the analysis takes on the ABI's
// word (V8's callees pop their arguments), while rsp's height may not.
std::optional<DerivedRule> RuleOf(const State& s) {
  int32_t return_address = -8;
  if (!s.return_address) {
    // Popped and pushed back below the CFA: in a slot the analysis follows, or nowhere known.
    return_address = stack_state::kUnknown;
    for (const stack_state::Slot& slot : s.slots) {
      if (slot.offset != stack_state::kUnknown && slot.value == stack_state::kReturnAddress) {
        return_address = slot.offset;
      }
    }
    if (return_address == stack_state::kUnknown) return std::nullopt;
  }
  int base = -1;
  if (IsHeight(s.rel[kRbp])) {
    base = kRbp;
  } else if (IsHeight(s.rel[kRsp])) {
    base = kRsp;
  } else {
    for (int g = 0; g < kGprCount && base < 0; ++g) {
      if (IsHeight(s.rel[g])) base = g;
    }
  }
  if (base < 0) return std::nullopt;
  DerivedRule rule;
  rule.cfa_register = kDwarfOfX86[base];
  rule.cfa_offset = -int64_t{s.rel[base]};
  rule.return_address_offset = return_address;
  for (int g = 0; g < kGprCount; ++g) {
    if (stack_state::kCalleeSaved[g]) rule.saved[static_cast<size_t>(kDwarfOfX86[g])] = s.saved[g];
  }
  return rule;
}

Dwarf_Op Op(uint8_t atom, uint64_t number = 0) {
  Dwarf_Op op{};
  op.atom = atom;
  op.number = number;
  return op;
}

// The location CFA + offset, as libdw would hand out an offset(N) rule.
std::vector<Dwarf_Op> AtCfa(int64_t offset) {
  return {Op(DW_OP_call_frame_cfa), Op(DW_OP_consts, static_cast<uint64_t>(offset)),
          Op(DW_OP_plus)};
}

// Whether `candidate`, explored from an entry taken on trust, holds together as a function that
// starts there, with what `accepted` knows: it is all code; it returns, and every `ret` finds the
// return address on top, as does every jump out of the regions (a tail call); and where it meets
// accepted code it decodes the same instructions with the same rules. Code that is not a
// function's entry fails: the middle of a function (a stub's tail, a block reached only through a
// table) meets its function's code in another state, or reaches its epilogue with the stack not
// as a call left it, or never returns.
bool Agrees(std::span<const CodeRegion> regions, const stack_state::Exploration& candidate,
            const stack_state::Exploration& accepted) {
  if (!candidate.complete) return false;
  size_t returns = 0;
  for (const auto& [pc, visit] : candidate.visits) {
    const CodeRegion* region = stack_state::RegionOf(regions, pc);
    if (!visit.decodes || region == nullptr) return false;
    const auto known = accepted.visits.find(pc);
    if (known != accepted.visits.end()) {
      if (known->second.length != visit.length || !known->second.decodes ||
          RuleOf(known->second.state) != RuleOf(visit.state)) {
        return false;
      }
    } else if (stack_state::OverlapsKnownInstruction(accepted, pc, visit.length)) {
      return false;
    }
    // The exploration is complete: it decoded every instruction it visited, and kept what
    // this asks of it.
    const bool on_top = visit.state.ReturnAddressOnTop();
    if (visit.returns) {
      if (!on_top) return false;
      ++returns;
    }
    if (visit.jumps_out && !on_top) return false;
  }
  return returns > 0;
}

// Where the code the analysis from the block's start reached does nothing but leave the block by
// jumps, with the stack as the call left it (no call, no return), and what follows such a jump
// (direct, unconditional) is unreached: the ends of those jumps, sorted. An engine that patches a
// jump over a function's first instruction leaves the rest of that instruction after the jump,
// and the function's code after that: HotSpot makes compiled code not entrant, once better code
// replaces it, with a 5-byte jmp to a VM stub over its verified entry's stack bang, and the frames
// already in that code return into it.
std::vector<uint64_t> EntryJumpsOut(const disasm::Decoder& decoder,
                                    std::span<const CodeRegion> regions,
                                    const stack_state::Exploration& explored) {
  std::vector<uint64_t> ends;
  for (const auto& [pc, visit] : explored.visits) {
    if (!visit.decodes || visit.call || !visit.state.ReturnAddressOnTop()) return {};
    if (!visit.ends_flow) continue;
    const CodeRegion* region = stack_state::RegionOf(regions, pc);
    if (region == nullptr) return {};
    const auto instruction = decoder.Decode(region->bytes.subspan(pc - region->address), pc);
    if (!instruction || !instruction->IsJump()) return {};
    const std::optional<uint64_t> target = instruction->BranchTarget();
    if (target && stack_state::RegionOf(regions, *target) == nullptr &&
        !explored.visits.contains(instruction->End())) {
      ends.push_back(instruction->End());
    }
  }
  std::sort(ends.begin(), ends.end());
  return ends;
}

// The functions laid end to end after the first (CodeBlock::kFunctionsEndToEnd): a sweep of each
// region finds the code that follows an instruction after which control never goes on, padding
// skipped, where no accepted exploration reached; each such entry is explored in address order
// and kept when it agrees with those before it. After a jump by which the first function's code
// leaves the block (EntryJumpsOut: it may be a jump patched over that function's first
// instruction), each of the next bytes within one instruction's length is such an entry in turn,
// until one is kept: the instruction the jump overwrote may run past it. `explored` holds the
// first function's exploration, and receives the kept ones'.
void ExploreFunctionsEndToEnd(const disasm::Decoder& decoder, std::span<const CodeRegion> regions,
                              CallTargets* targets, stack_state::Exploration& explored) {
  uint64_t total_bytes = 0;
  for (const CodeRegion& region : regions) total_bytes += region.bytes.size();
  const std::vector<uint64_t> entry_jumps_out = EntryJumpsOut(decoder, regions, explored);
  // Below this address, every byte is tried as an entry (after an entry's jump out).
  uint64_t resume_before = 0;
  // The instructions the further entries' explorations may visit in all, so that a block of many
  // entries whose paths run through the same code stays linear in its size.
  uint64_t budget = 4 * total_bytes + 64;
  for (const CodeRegion& region : regions) {
    const uint64_t end = region.address + region.bytes.size();
    bool after_flow_end = false;
    for (uint64_t pc = region.address; pc < end;) {
      const auto known = explored.visits.find(pc);
      if (known != explored.visits.end() && known->second.decodes && known->second.length > 0) {
        after_flow_end = known->second.ends_flow;
        pc += known->second.length;
        if (std::binary_search(entry_jumps_out.begin(), entry_jumps_out.end(), pc)) {
          resume_before = pc + ZYDIS_MAX_INSTRUCTION_LENGTH;
        }
        continue;
      }
      const auto instruction = decoder.Decode(region.bytes.subspan(pc - region.address), pc);
      if (!instruction ||
          stack_state::OverlapsKnownInstruction(explored, pc, instruction->length)) {
        after_flow_end = false;
        ++pc;
        continue;
      }
      const bool padding = stack_state::IsPadding(*instruction);
      const bool resuming = pc < resume_before;
      if ((after_flow_end || resuming) && !padding && budget > 0) {
        stack_state::Exploration candidate =
            stack_state::Explore(decoder, regions, pc, targets, /*switch_cases=*/true);
        budget -= std::min<uint64_t>(budget, candidate.visits.size());
        if (Agrees(regions, candidate, explored)) {
          for (auto& [at, visit] : candidate.visits) explored.visits.try_emplace(at, visit);
          explored.call_ends.insert(explored.call_ends.end(), candidate.call_ends.begin(),
                                    candidate.call_ends.end());
          resume_before = 0;
          continue;  // pc is an accepted instruction now
        }
      }
      if (resuming) {
        after_flow_end = false;
        ++pc;
        continue;
      }
      if (!padding) after_flow_end = instruction->EndsFlow();
      pc += instruction->length;
    }
  }
}

}  // namespace

DerivedRules DerivedRules::Analyze(const disasm::Decoder& decoder,
                                   std::span<const CodeRegion> regions, CallTargets* targets,
                                   CodeBlock block) {
  DerivedRules result;
  if (regions.empty()) return result;
  stack_state::Exploration explored =
      stack_state::Explore(decoder, regions, regions[0].address, targets, /*switch_cases=*/true);
  if (!explored.complete) return result;
  if (block == CodeBlock::kFunctionsEndToEnd) {
    ExploreFunctionsEndToEnd(decoder, regions, targets, explored);
  }
  const auto& visits = explored.visits;
  std::vector<uint64_t>& call_ends = explored.call_ends;

  // Per byte of each region: the rule of the instruction covering it. Bytes two decodings
  // claim with different rules, or that an instruction without a rule covers, get none.
  constexpr uint16_t kUnset = kNoRule;
  constexpr uint16_t kConflict = 0xfffe;
  std::unordered_map<DerivedRule, uint16_t, RuleHash> rule_ids;
  for (const CodeRegion& region : regions) {
    result.regions_.push_back({region.address, std::vector<uint16_t>(region.bytes.size(), kUnset)});
  }
  for (const auto& [pc, visit] : visits) {
    if (!visit.decodes || visit.length == 0) continue;
    ++result.instructions_;
    uint16_t id = kConflict;
    if (const auto rule = RuleOf(visit.state)) {
      auto [it, inserted] =
          rule_ids.try_emplace(*rule, static_cast<uint16_t>(result.rules_.size()));
      if (inserted) {
        if (result.rules_.size() < kConflict) {
          result.rules_.push_back(*rule);
        } else {
          rule_ids.erase(it);
          it = rule_ids.end();
        }
      }
      if (it != rule_ids.end()) {
        id = it->second;
        ++result.instructions_with_rules_;
      }
    }
    for (Region& region : result.regions_) {
      if (pc < region.address || pc - region.address >= region.rule_at.size()) continue;
      const uint64_t first = pc - region.address;
      const uint64_t end = std::min<uint64_t>(first + visit.length, region.rule_at.size());
      for (uint64_t i = first; i < end; ++i) {
        uint16_t& slot = region.rule_at[i];
        slot = slot == kUnset || slot == id ? id : kConflict;
      }
    }
  }
  for (Region& region : result.regions_) {
    for (uint16_t& slot : region.rule_at) {
      if (slot == kConflict) slot = kNoRule;
    }
  }
  std::sort(call_ends.begin(), call_ends.end());
  call_ends.erase(std::unique(call_ends.begin(), call_ends.end()), call_ends.end());
  result.call_ends_ = std::move(call_ends);
  result.BuildRows();
  return result;
}

void DerivedRules::BuildRows() {
  rows_.clear();
  rows_.reserve(rules_.size());
  for (const DerivedRule& rule : rules_) {
    CfiRow row;
    row.cfa = {Op(static_cast<uint8_t>(DW_OP_breg0 + rule.cfa_register),
                  static_cast<uint64_t>(rule.cfa_offset))};
    for (int dwarf : kCalleeSavedDwarf) {
      const SavedRegister& saved = rule.saved[static_cast<size_t>(dwarf)];
      RegisterRule& out = row.registers[static_cast<size_t>(dwarf)];
      switch (saved.where) {
        case SavedRegister::Where::kSame:
          out.kind = RegisterRule::Kind::kSameValue;
          break;
        case SavedRegister::Where::kAt:
          out.kind = RegisterRule::Kind::kLocation;
          out.location = AtCfa(saved.offset);
          break;
        case SavedRegister::Where::kLost:
          out.kind = RegisterRule::Kind::kUndefined;
          break;
      }
    }
    RegisterRule& return_address = row.registers[16];
    return_address.kind = RegisterRule::Kind::kLocation;
    return_address.location = AtCfa(rule.return_address_offset);
    row.return_address_register = 16;
    row.Recognize();
    rows_.push_back(std::move(row));
  }
}

const DerivedRule* DerivedRules::Find(uint64_t address) const {
  for (const Region& region : regions_) {
    if (address < region.address || address - region.address >= region.rule_at.size()) continue;
    const uint16_t id = region.rule_at[address - region.address];
    return id == kNoRule ? nullptr : &rules_[id];
  }
  return nullptr;
}

const CfiRow* DerivedRules::FindRow(uint64_t address) const {
  const DerivedRule* rule = Find(address);
  return rule == nullptr ? nullptr : &rows_[static_cast<size_t>(rule - rules_.data())];
}

bool DerivedRules::IsReturnAddress(uint64_t address) const {
  return std::binary_search(call_ends_.begin(), call_ends_.end(), address);
}

std::optional<DerivedRulesCache> DerivedRulesCache::Create() {
  auto decoder = disasm::Decoder::Create(disasm::Mode::kX86_64);
  if (!decoder) return std::nullopt;
  return DerivedRulesCache(*decoder);
}

const DerivedRules* DerivedRulesCache::Find(const void* version) const {
  auto it = rules_.find(version);
  return it == rules_.end() ? nullptr : it->second.get();
}

const DerivedRules& DerivedRulesCache::Add(const void* version, std::span<const CodeRegion> regions,
                                           CallTargets* targets, CodeBlock block) {
  auto& rules = rules_[version];
  rules = std::make_unique<DerivedRules>(DerivedRules::Analyze(decoder_, regions, targets, block));
  return *rules;
}

}  // namespace jitscope::unwind
