// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "support/objdump.h"

#include <cctype>
#include <regex>
#include <sstream>
#include <string_view>
#include <utility>

#include "support/files.h"
#include "support/hex.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace jitscope::test_support {
namespace {

std::string Mnemonic(const std::string& text) { return text.substr(0, text.find(' ')); }

std::string Operands(const std::string& text) {
  const size_t space = text.find(' ');
  return space == std::string::npos ? "" : text.substr(space + 1);
}

// The condition of a jcc, setcc or cmovcc in one spelling: objdump writes je, jae, ja, jge, jg
// where Zydis writes jz, jnb, jnbe, jnl, jnle for the same encodings (Intel's SDM lists both).
std::string CanonicalCondition(const std::string& mnemonic) {
  static const std::map<std::string, std::string> kConditions = {
      {"e", "z"},   {"ne", "nz"}, {"c", "b"},   {"nae", "b"}, {"nc", "nb"},
      {"ae", "nb"}, {"na", "be"}, {"a", "nbe"}, {"nge", "l"}, {"ge", "nl"},
      {"ng", "le"}, {"g", "nle"}, {"pe", "p"},  {"po", "np"}};
  for (const std::string prefix : {"j", "set", "cmov"}) {
    if (!mnemonic.starts_with(prefix)) continue;
    const auto condition = kConditions.find(mnemonic.substr(prefix.size()));
    if (condition != kConditions.end()) return prefix + condition->second;
  }
  return mnemonic;
}

bool SameMnemonic(std::string a, std::string b) {
  static const std::map<std::string, std::string> kAliases = {
      {"cqto", "cqo"},     {"cltd", "cdq"},     {"movabs", "mov"},   {"movzbl", "movzx"},
      {"movzwl", "movzx"}, {"movsbq", "movsx"}, {"movslq", "movsxd"}};
  for (std::string* name : {&a, &b}) {
    const auto alias = kAliases.find(*name);
    if (alias != kAliases.end()) *name = alias->second;
    *name = CanonicalCondition(*name);
  }
  if (a == b) return true;
  auto suffixed = [](const std::string& longer, const std::string& shorter) {
    return longer.size() == shorter.size() + 1 && longer.compare(0, shorter.size(), shorter) == 0 &&
           std::string("bwlqxyz").find(longer.back()) != std::string::npos;
  };
  return suffixed(a, b) || suffixed(b, a);
}

// objdump names the predicate of cmpps, cmppd, cmpss, cmpsd and their VEX and EVEX forms in the
// mnemonic ("vcmpnleps %zmm1,%zmm0,%k1"); Zydis gives it as the immediate it is encoded as
// ("vcmpps $0x6,%zmm1,%zmm0,%k1"). The predicates by immediate: Intel SDM vol. 2A, CMPPS, table
// 3-1; the SSE forms have the first 8.
std::string PredicateAsImmediate(const std::string& text) {
  static const char* const kPredicates[] = {
      "eq",    "lt",     "le",     "unord",    "neq",    "nlt",    "nle",    "ord",
      "eq_uq", "nge",    "ngt",    "false",    "neq_oq", "ge",     "gt",     "true",
      "eq_os", "lt_oq",  "le_oq",  "unord_s",  "neq_us", "nlt_uq", "nle_uq", "ord_s",
      "eq_us", "nge_uq", "ngt_uq", "false_os", "neq_os", "ge_oq",  "gt_oq",  "true_us"};
  static const std::regex kPseudo("^(v?)cmp([a-z_]+)(ps|pd|ss|sd) (.*)$");
  std::smatch match;
  if (!std::regex_match(text, match, kPseudo)) return text;
  const size_t count = match[1].length() == 0 ? 8 : 32;
  for (size_t i = 0; i < count; ++i) {
    if (match[2] == kPredicates[i]) {
      return match[1].str() + "cmp" + match[3].str() + " $" + Hex(i) + "," + match[4].str();
    }
  }
  return text;
}

}  // namespace

base::StatusOr<std::map<uint64_t, ListedInstruction>> ObjdumpListing(std::span<const uint8_t> bytes,
                                                                     uint64_t address) {
  const std::string objdump = JITSCOPE_OBJDUMP;
  if (objdump.ends_with("-NOTFOUND")) {
    return base::Status::Error(
        "objdump was not found when the build was configured: install binutils (scripts/setup) "
        "and configure again");
  }
  const TempDir dir;
  const std::string path = dir.path() + "/code.bin";
  if (!WriteFile(path, std::string(bytes.begin(), bytes.end()))) {
    return base::Status::Error("cannot write %s", path.c_str());
  }
  const ProcessResult run = RunProgram(
      {objdump, "-D", "-b", "binary", "-m", "i386:x86-64", "--adjust-vma=" + Hex(address), path});
  if (!run.ok()) return base::Status::Error("%s", run.Describe().c_str());
  // "   4:\t48 83 ec 20          \tsub    $0x20,%rsp". objdump shows 7 bytes a line: a longer
  // instruction goes on with lines of bytes alone ("   b:\t10 00 00 "), which add to its length.
  std::map<uint64_t, ListedInstruction> listing;
  ListedInstruction* last = nullptr;
  std::istringstream in(run.out);
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(":\t");
    if (colon == std::string::npos) continue;
    const size_t tab = line.find('\t', colon + 2);
    const std::string hex =
        line.substr(colon + 2, tab == std::string::npos ? tab : tab - colon - 2);
    std::istringstream byte_list(hex);
    int count = 0;
    for (std::string byte; byte_list >> byte;) ++count;
    if (tab == std::string::npos) {
      if (last == nullptr) {
        return base::Status::Error("objdump: a line of bytes before any instruction: %s",
                                   line.c_str());
      }
      last->length += count;
      continue;
    }
    const uint64_t offset = std::stoull(line.substr(0, colon), nullptr, 16) - address;
    last = &listing[offset];
    *last = {offset, count, line.substr(tab + 1)};
  }
  return listing;
}

std::string Normalise(std::string text) {
  const size_t comment = text.find(" #");
  if (comment != std::string::npos) text.resize(comment);
  const size_t label = text.find(" <");
  if (label != std::string::npos) text.resize(label);
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  out = std::regex_replace(out, std::regex("0x0*([0-9a-f])"), "0x$1");
  // An encoded zero displacement (disp8 0, which a base of rbp or r13 needs): objdump shows it
  // ("0x0(%rbp)"), Zydis leaves it out ("(%rbp)"). The length comparison sees the encoding.
  out = std::regex_replace(out, std::regex("(^|[ ,*:])0x0\\("), "$1(");
  out = std::regex_replace(out, std::regex(" %ds:\\(%rsi\\),%es:\\(%rdi\\)$"), "");
  // The long nop (0f 1f /0): Zydis shows the ModRM.reg register, which is the /0 opcode
  // extension, as an operand ("nop %ax,(%rax,%rax,1)"); objdump gives its size as a suffix
  // ("nopw 0x0(%rax,%rax,1)").
  static const std::pair<const char*, const char*> kNops[] = {
      {"nop %ax,", "nopw "}, {"nop %eax,", "nopl "}, {"nop %rax,", "nopq "}};
  for (const auto& [zydis, objdump] : kNops) {
    if (out.starts_with(zydis)) out = objdump + out.substr(std::string_view(zydis).size());
  }
  // 66 90, which Intel's SDM names the 2-byte nop and objdump "xchg %ax,%ax".
  if (out == "xchg %ax,%ax") out = "nop";
  return PredicateAsImmediate(out);
}

bool SameInstruction(const std::string& a, const std::string& b) {
  return SameMnemonic(Mnemonic(a), Mnemonic(b)) && Operands(a) == Operands(b);
}

std::vector<std::string> DifferencesFromObjdump(
    std::span<const ListedInstruction> ours, const std::map<uint64_t, ListedInstruction>& listing) {
  std::vector<std::string> differences;
  for (const ListedInstruction& our : ours) {
    const std::string a = Normalise(our.text);
    const std::string where = "at " + Hex(our.offset) + ": ours \"" + a + "\" (" +
                              std::to_string(our.length) + " bytes), objdump ";
    const auto theirs = listing.find(our.offset);
    if (theirs == listing.end()) {
      // objdump's sweep is out of step with our flow here: name the instruction it decoded
      // across this offset, if any.
      auto covering = listing.upper_bound(our.offset);
      const bool covered =
          covering != listing.begin() &&
          (--covering,
           covering->first + static_cast<uint64_t>(covering->second.length) > our.offset);
      differences.push_back(where + "has no instruction there" +
                            (covered ? " (its \"" + Normalise(covering->second.text) + "\" at " +
                                           Hex(covering->first) + " covers it)"
                                     : ""));
      continue;
    }
    const std::string b = Normalise(theirs->second.text);
    if (our.length != theirs->second.length || !SameInstruction(a, b)) {
      differences.push_back(where + "\"" + b + "\" (" + std::to_string(theirs->second.length) +
                            " bytes)");
    }
  }
  return differences;
}

}  // namespace jitscope::test_support
