// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/unwind/derived_rules.h"

#include <dwarf.h>

#include <algorithm>
#include <climits>
#include <deque>
#include <optional>

namespace jitscope::unwind {
namespace {

// Inside the analysis registers are numbered as x86 encodes them (rax 0, rcx 1, rdx 2, rbx 3,
// rsp 4, rbp 5, rsi 6, rdi 7, r8-r15), which is Zydis's order of its 64-bit registers.
constexpr int kRsp = 4;
constexpr int kRbp = 5;
constexpr int kGprCount = 16;
constexpr int kDwarfOfX86[kGprCount] = {0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15};
constexpr bool kCalleeSaved[kGprCount] = {false, false, false, true,  false, true, false, false,
                                          false, false, false, false, true,  true, true,  true};
constexpr bool kCallClobbered[kGprCount] = {true, true, true, false, false, false, true,  true,
                                            true, true, true, true,  false, false, false, false};

// A register's value relative to the CFA, or kUnknown. Heights stay far from the int32 limits:
// anything beyond kMaxHeight is treated as unknown.
constexpr int32_t kUnknown = INT32_MIN;
constexpr int64_t kMaxHeight = int64_t{1} << 30;

int32_t Known(int64_t value) {
  return value > -kMaxHeight && value < kMaxHeight ? static_cast<int32_t>(value) : kUnknown;
}

struct State {
  std::array<int32_t, kGprCount> rel;  // value - CFA, or kUnknown
  std::array<SavedRegister, kGprCount> saved{};
  bool return_address = true;  // still at CFA - 8

  static State Entry() {
    State s;
    s.rel.fill(kUnknown);
    s.rel[kRsp] = -8;  // the call pushed the return address just below the CFA
    return s;
  }
  bool operator==(const State&) const = default;

  // Merges `other` into this state, field by field; true if anything changed.
  bool Merge(const State& other) {
    const State before = *this;
    for (int r = 0; r < kGprCount; ++r) {
      if (rel[r] != other.rel[r]) rel[r] = kUnknown;
      if (saved[r] != other.saved[r]) saved[r] = {SavedRegister::Where::kLost, 0};
    }
    return_address = return_address && other.return_address;
    return !(*this == before);
  }
};

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

class Transfer {
 public:
  explicit Transfer(State& s) : s_(s) {}

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
    if (base < 0 || s_.rel[base] == kUnknown) return kUnknown;
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

  // Sets g to a value the analysis follows (value - CFA), counting it as a write.
  void Set(int g, int32_t rel) {
    if (g == kRsp) {
      MoveRsp(rel);
      return;
    }
    Write(g);
    s_.rel[g] = rel;
  }

  // rsp takes a new value. Slots below it are free for the next push or signal frame, so a
  // register saved there is no longer recoverable; the return address must stay above it.
  void MoveRsp(int32_t rel) {
    s_.rel[kRsp] = rel;
    if (rel == kUnknown) return;
    if (rel > -8) s_.return_address = false;
    for (int g = 0; g < kGprCount; ++g) {
      if (s_.saved[g].where == SavedRegister::Where::kAt && s_.saved[g].offset < rel) {
        s_.saved[g] = {SavedRegister::Where::kLost, 0};
      }
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
    if (begin < 0 && -8 < end) s_.return_address = false;
  }

  // A push of register g (-1: of something else).
  void Push(int g, int width) {
    const int32_t old = s_.rel[kRsp];
    const int32_t slot = old == kUnknown ? kUnknown : Known(int64_t{old} - width);
    MoveRsp(slot);
    if (g >= 0 && width == 8 && slot != kUnknown && kCalleeSaved[g] &&
        s_.saved[g].where == SavedRegister::Where::kSame) {
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
      s_.rel[g] = kUnknown;
    }
    MoveRsp(old == kUnknown ? kUnknown : Known(int64_t{old} + width));
  }

  void Call() {
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
        return Call();
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
        if (dst >= 0 && src >= 0) return Set(dst, s_.rel[src]);
        if (ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY && src >= 0) {
          const int32_t at = Address(ops[0]);
          Store(at, 8);
          // A callee-saved register stored while it still holds the caller's value, into a
          // live slot of this frame: saved there.
          if (kCalleeSaved[src] && s_.saved[src].where == SavedRegister::Where::kSame &&
              at != kUnknown && s_.rel[kRsp] != kUnknown && at >= s_.rel[kRsp] && at <= -16) {
            s_.saved[src] = {SavedRegister::Where::kAt, at};
          }
          return;
        }
        if (dst >= 0 && ops[1].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[1].size == 64) {
          const int32_t at = Address(ops[1]);
          const bool restores = kCalleeSaved[dst] && at != kUnknown &&
                                s_.saved[dst].where == SavedRegister::Where::kAt &&
                                s_.saved[dst].offset == at;
          Write(dst);
          if (restores) s_.saved[dst] = {SavedRegister::Where::kSame, 0};
          return;
        }
        break;
      }
      case ZYDIS_MNEMONIC_LEA: {
        const int dst = Gpr64(ops[0]);
        if (dst >= 0 && raw.address_width == 64) return Set(dst, Address(ops[1]));
        break;
      }
      case ZYDIS_MNEMONIC_ADD:
      case ZYDIS_MNEMONIC_SUB: {
        const int dst = Gpr64(ops[0]);
        if (dst >= 0 && ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
          const int64_t imm = ops[1].imm.value.s;
          const int32_t old = s_.rel[dst];
          const int32_t now = old == kUnknown
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
};

struct RuleHash {
  size_t operator()(const DerivedRule& r) const {
    size_t h = static_cast<size_t>(r.cfa_register) * 1000003u ^ static_cast<size_t>(r.cfa_offset);
    for (int dwarf : kCalleeSavedDwarf) {
      const SavedRegister& s = r.saved[static_cast<size_t>(dwarf)];
      h = h * 31 + static_cast<size_t>(s.where) * 7 + static_cast<size_t>(s.offset);
    }
    return h;
  }
};

std::optional<DerivedRule> RuleOf(const State& s) {
  if (!s.return_address) return std::nullopt;
  int base = -1;
  if (s.rel[kRsp] != kUnknown) {
    base = kRsp;
  } else if (s.rel[kRbp] != kUnknown) {
    base = kRbp;
  } else {
    for (int g = 0; g < kGprCount && base < 0; ++g) {
      if (s.rel[g] != kUnknown) base = g;
    }
  }
  if (base < 0) return std::nullopt;
  DerivedRule rule;
  rule.cfa_register = kDwarfOfX86[base];
  rule.cfa_offset = -int64_t{s.rel[base]};
  for (int g = 0; g < kGprCount; ++g) {
    if (kCalleeSaved[g]) rule.saved[static_cast<size_t>(kDwarfOfX86[g])] = s.saved[g];
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

}  // namespace

DerivedRules DerivedRules::Analyze(const disasm::Decoder& decoder,
                                   std::span<const CodeRegion> regions) {
  DerivedRules result;
  if (regions.empty()) return result;
  uint64_t total_bytes = 0;
  for (const CodeRegion& region : regions) total_bytes += region.bytes.size();
  auto region_of = [&](uint64_t address) -> const CodeRegion* {
    for (const CodeRegion& region : regions) {
      if (address >= region.address && address - region.address < region.bytes.size()) {
        return &region;
      }
    }
    return nullptr;
  };

  struct Visit {
    State state;
    uint8_t length = 0;  // 0: not decoded (yet, or it does not decode)
    bool decodes = true;
  };
  std::unordered_map<uint64_t, Visit> visits;
  std::deque<uint64_t> work;
  const uint64_t entry = regions[0].address;
  if (region_of(entry) == nullptr) return result;
  visits.emplace(entry, Visit{State::Entry()});
  work.push_back(entry);
  std::vector<uint64_t> call_ends;
  // Each instruction's state can only lose facts, about 33 times at most; past that bound the
  // input is hostile or the analysis wrong, and no rule is better than a wrong one.
  const uint64_t max_steps = 40 * total_bytes + 64;
  uint64_t steps = 0;
  while (!work.empty()) {
    if (++steps > max_steps) return result;
    const uint64_t pc = work.front();
    work.pop_front();
    Visit& visit = visits.at(pc);
    const CodeRegion* region = region_of(pc);
    const auto instruction = decoder.Decode(region->bytes.subspan(pc - region->address), pc);
    if (!instruction) {
      visit.decodes = false;
      continue;
    }
    visit.length = instruction->length;
    if (instruction->IsCall()) call_ends.push_back(instruction->End());
    State after = visit.state;
    Transfer(after).Apply(*instruction);
    auto flow_to = [&](uint64_t target) {
      if (region_of(target) == nullptr) return;  // a tail jump elsewhere, or off the region
      auto [it, inserted] = visits.try_emplace(target, Visit{after});
      if (inserted || it->second.state.Merge(after)) work.push_back(target);
    };
    if (instruction->IsJump()) {
      if (const auto target = instruction->BranchTarget()) flow_to(*target);
    }
    if (!instruction->EndsFlow()) flow_to(instruction->End());
  }

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
    return_address.location = AtCfa(-8);
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

const DerivedRules& DerivedRulesCache::Add(const void* version,
                                           std::span<const CodeRegion> regions) {
  auto& rules = rules_[version];
  rules = std::make_unique<DerivedRules>(DerivedRules::Analyze(decoder_, regions));
  return *rules;
}

}  // namespace jitscope::unwind
