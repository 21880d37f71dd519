// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/record/eh_frame_subset.h"

#include <dwarf.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

#include "jitscope/formats/call_frame_instructions.h"

namespace jitscope::record {
namespace {

// Reads .eh_frame records, failing (ok = false) rather than reading past their end.
class Reader {
 public:
  Reader(std::string_view bytes, size_t at, size_t end) : bytes_(bytes), at_(at), end_(end) {}
  size_t at() const { return at_; }
  size_t left() const { return end_ - at_; }
  void Skip(size_t size) {
    if (Has(size)) at_ += size;
  }
  bool ok() const { return ok_; }
  uint64_t Fixed(size_t size) {
    uint64_t value = 0;
    if (!Has(size)) return 0;
    std::memcpy(&value, bytes_.data() + at_, size);  // little-endian
    at_ += size;
    return value;
  }
  uint64_t Uleb() {
    uint64_t value = 0;
    for (int shift = 0; Has(1); shift += 7) {
      const auto byte = static_cast<uint8_t>(bytes_[at_++]);
      if (shift < 64) value |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return value;
    }
    return 0;
  }
  std::string_view String() {
    const size_t nul = bytes_.find('\0', at_);
    if (nul == std::string_view::npos || nul >= end_) {
      ok_ = false;
      return {};
    }
    const std::string_view s = bytes_.substr(at_, nul - at_);
    at_ = nul + 1;
    return s;
  }

 private:
  bool Has(size_t size) {
    if (ok_ && size <= end_ - at_) return true;
    ok_ = false;
    return false;
  }
  std::string_view bytes_;
  size_t at_, end_;
  bool ok_ = true;
};

// The size of a pointer encoded with `encoding`, 0 when it has no fixed size.
size_t PointerSize(uint8_t encoding) {
  switch (encoding & 0x0f) {
    case DW_EH_PE_absptr:
    case DW_EH_PE_udata8:
    case DW_EH_PE_sdata8:
      return 8;
    case DW_EH_PE_udata4:
    case DW_EH_PE_sdata4:
      return 4;
    case DW_EH_PE_udata2:
    case DW_EH_PE_sdata2:
      return 2;
    default:
      return 0;
  }
}

// Whether libdw may run the instructions (formats/call_frame_instructions.h): a subset with
// hostile ones is not made, the section is kept whole.
bool InstructionsAreSane(std::string_view bytes, size_t pointer_size) {
  return formats::CallFrameInstructionsAreSane(
      {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, pointer_size);
}

int64_t SignExtend(uint64_t value, size_t size) {
  if (size == 8) return static_cast<int64_t>(value);
  const int shift = 64 - static_cast<int>(size) * 8;
  return static_cast<int64_t>(value << shift) >> shift;
}

struct Cie {
  uint8_t fde_encoding = DW_EH_PE_absptr;
  uint8_t lsda_encoding = DW_EH_PE_omit;
  bool augmented = false;     // 'z': FDEs have augmentation data
  size_t personality_at = 0;  // relative to the CIE, 0: none to move
  uint8_t personality_encoding = DW_EH_PE_omit;
};

struct Record {
  size_t at = 0, size = 0;  // the whole record, its length included
  bool cie = false;
  size_t cie_at = 0;       // an FDE's CIE
  size_t pc_begin_at = 0;  // relative to the record
  size_t lsda_at = 0;      // relative to the record, 0: none to move
  bool kept = false;
};

// Adds `delta` to the pc-relative pointer of `size` bytes at `at` of `out`; false if it no longer
// fits.
bool Move(std::string& out, size_t at, size_t size, int64_t delta) {
  uint64_t raw = 0;
  std::memcpy(&raw, out.data() + at, size);
  const int64_t value = SignExtend(raw, size) + delta;
  if (size < 8) {
    const int64_t limit = int64_t{1} << (size * 8 - 1);
    if (value < -limit || value >= limit) return false;
  }
  const auto moved = static_cast<uint64_t>(value);
  std::memcpy(out.data() + at, &moved, size);
  return true;
}

}  // namespace

std::optional<std::string> EhFrameSubset(std::string_view eh_frame, uint64_t address,
                                         const std::vector<uint64_t>& pcs) {
  std::map<size_t, Cie> cies;
  std::vector<Record> records;
  for (size_t at = 0; at + 4 <= eh_frame.size();) {
    Reader header(eh_frame, at, eh_frame.size());
    const uint64_t length = header.Fixed(4);
    if (length == 0) break;  // the terminator
    if (length == 0xffffffff || length > eh_frame.size() - at - 4 || length < 4) {
      return std::nullopt;
    }
    Record record;
    record.at = at;
    record.size = 4 + static_cast<size_t>(length);
    Reader in(eh_frame, at + 4, at + record.size);
    const uint64_t id = in.Fixed(4);
    if (id == 0) {
      record.cie = true;
      Cie cie;
      const uint64_t version = in.Fixed(1);
      const std::string_view augmentation = in.String();
      if (augmentation.find("eh") != std::string_view::npos) return std::nullopt;
      in.Uleb();  // code alignment
      in.Uleb();  // data alignment (signed: its bytes are all that matter here)
      if (version == 1) {
        in.Fixed(1);
      } else {
        in.Uleb();
      }
      size_t instructions_at = 0;  // where the augmentation data ends, for 'z'
      if (!augmentation.empty() && augmentation[0] == 'z') {
        cie.augmented = true;
        const uint64_t data_size = in.Uleb();
        instructions_at = in.at() + static_cast<size_t>(std::min<uint64_t>(data_size, record.size));
        for (const char c : augmentation.substr(1)) {
          if (c == 'R') {
            cie.fde_encoding = static_cast<uint8_t>(in.Fixed(1));
          } else if (c == 'L') {
            cie.lsda_encoding = static_cast<uint8_t>(in.Fixed(1));
          } else if (c == 'P') {
            cie.personality_encoding = static_cast<uint8_t>(in.Fixed(1));
            const size_t size = PointerSize(cie.personality_encoding);
            if (size == 0) return std::nullopt;
            const uint8_t applied = cie.personality_encoding & 0x70;
            if (applied == DW_EH_PE_pcrel) {
              cie.personality_at = in.at() - at;
            } else if (applied != DW_EH_PE_absptr) {
              return std::nullopt;
            }
            in.Fixed(size);
          } else if (c != 'S' && c != 'B' && c != 'G') {
            return std::nullopt;
          }
        }
      } else if (!augmentation.empty()) {
        return std::nullopt;
      }
      if (!in.ok()) return std::nullopt;
      if (instructions_at == 0) instructions_at = in.at();
      if (instructions_at > at + record.size ||
          !InstructionsAreSane(eh_frame.substr(instructions_at, at + record.size - instructions_at),
                               PointerSize(cie.fde_encoding))) {
        return std::nullopt;
      }
      cies[at] = cie;
    } else {
      const size_t id_at = at + 4;
      if (id > id_at) return std::nullopt;
      record.cie_at = id_at - id;
      const auto cie = cies.find(record.cie_at);
      if (cie == cies.end()) return std::nullopt;
      const uint8_t encoding = cie->second.fde_encoding;
      const size_t size = PointerSize(encoding);
      const uint8_t applied = encoding & 0x70;
      if (size == 0 || (encoding & DW_EH_PE_indirect) != 0 ||
          (applied != DW_EH_PE_pcrel && applied != DW_EH_PE_absptr)) {
        return std::nullopt;
      }
      record.pc_begin_at = in.at() - at;
      const int64_t raw = SignExtend(in.Fixed(size), size);
      const uint64_t range = in.Fixed(size);
      const uint64_t begin = static_cast<uint64_t>(raw) +
                             (applied == DW_EH_PE_pcrel ? address + at + record.pc_begin_at : 0);
      size_t instructions_at = 0;
      if (cie->second.augmented) {
        const uint64_t data_size = in.Uleb();
        instructions_at = in.at() + static_cast<size_t>(std::min<uint64_t>(data_size, record.size));
        const uint8_t lsda = cie->second.lsda_encoding;
        if (lsda != DW_EH_PE_omit) {
          const size_t lsda_size = PointerSize(lsda);
          if (lsda_size == 0) return std::nullopt;
          if ((lsda & 0x70) == DW_EH_PE_pcrel) {
            record.lsda_at = in.at() - at;
          } else if ((lsda & 0x70) != DW_EH_PE_absptr) {
            return std::nullopt;
          }
          in.Fixed(lsda_size);
        }
      }
      if (!in.ok()) return std::nullopt;
      if (instructions_at == 0) instructions_at = in.at();
      if (instructions_at > at + record.size ||
          !InstructionsAreSane(eh_frame.substr(instructions_at, at + record.size - instructions_at),
                               size)) {
        return std::nullopt;
      }
      const auto pc = std::lower_bound(pcs.begin(), pcs.end(), begin);
      record.kept = pc != pcs.end() && *pc - begin < range;
    }
    records.push_back(record);
    at += record.size;
  }

  // The CIEs the kept FDEs use are kept too.
  std::map<size_t, size_t> moved_to;  // a kept CIE's offset → its offset in the part
  for (const Record& record : records) {
    if (!record.cie && record.kept) moved_to[record.cie_at] = 0;
  }
  std::string out;
  for (const Record& record : records) {
    if (record.cie ? !moved_to.contains(record.at) : !record.kept) continue;
    const size_t to = out.size();
    out.append(eh_frame.substr(record.at, record.size));
    const auto delta = static_cast<int64_t>(record.at) - static_cast<int64_t>(to);
    if (record.cie) {
      moved_to[record.at] = to;
      const Cie& cie = cies[record.at];
      if (cie.personality_at != 0 &&
          !Move(out, to + cie.personality_at, PointerSize(cie.personality_encoding), delta)) {
        return std::nullopt;
      }
      continue;
    }
    const uint32_t cie_pointer = static_cast<uint32_t>(to + 4 - moved_to[record.cie_at]);
    std::memcpy(out.data() + to + 4, &cie_pointer, sizeof(cie_pointer));
    const Cie& cie = cies[record.cie_at];
    if ((cie.fde_encoding & 0x70) == DW_EH_PE_pcrel &&
        !Move(out, to + record.pc_begin_at, PointerSize(cie.fde_encoding), delta)) {
      return std::nullopt;
    }
    if (record.lsda_at != 0 &&
        !Move(out, to + record.lsda_at, PointerSize(cie.lsda_encoding), delta)) {
      return std::nullopt;
    }
  }
  out.append(4, '\0');
  return out;
}

}  // namespace jitscope::record
