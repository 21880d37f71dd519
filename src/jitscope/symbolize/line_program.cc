// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/line_program.h"

#include <algorithm>
#include <cstring>

namespace jitscope::symbolize {
namespace {

inline uint8_t* PutVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// Most values (offset and line deltas) take one byte: that path is one load and one branch.
inline uint64_t GetVarint(const uint8_t*& p) {
  uint64_t v = *p++;
  if (v < 0x80) [[likely]]
    return v;
  v &= 0x7F;
  for (unsigned shift = 7; shift < 64; shift += 7) {
    const uint64_t byte = *p++;
    v |= (byte & 0x7F) << shift;
    if (byte < 0x80) break;
  }
  return v;
}

uint64_t FileCode(StringId file) { return file == kInheritFile ? 0 : uint64_t{file} + 1; }
StringId FileFromCode(uint64_t code) {
  return code == 0 ? kInheritFile : static_cast<StringId>(code - 1);
}

// A checkpoint lets a lookup in a long table skip to within kCheckpointEvery rows of its row:
// the decoder state before row r = k * kCheckpointEvery (the absolute offset, line and file of
// row r - 1) and where row r's bytes start, relative to the first row. Fixed width, so the
// lookup can binary-search them (read with memcpy: the program bytes have no alignment).
struct Checkpoint {
  uint32_t previous_offset;
  uint32_t position;
  uint32_t line;
  StringId file;
};
constexpr size_t kCheckpointEvery = 64;
// Shorter tables decode in about the time a binary search over checkpoints would take.
constexpr size_t kCheckpointedRows = 2 * kCheckpointEvery;

// Rows must be sorted by offset with no repeated offsets.
uint32_t Encode(base::HugeVector<uint8_t>& out, StringId region_file,
                std::span<const StartRow> rows) {
  constexpr size_t kMaxVarint = 10;
  // One before every kCheckpointEvery-th row but the first.
  const size_t checkpoints =
      rows.size() >= kCheckpointedRows ? (rows.size() - 1) / kCheckpointEvery : 0;
  const auto start = static_cast<uint32_t>(out.size());
  out.resize(start + kMaxVarint * (3 + 3 * rows.size()) + checkpoints * sizeof(Checkpoint));
  uint8_t* p = out.data() + start;
  p = PutVarint(p, FileCode(region_file));
  p = PutVarint(p, rows.size());
  uint8_t* checkpoint_at = nullptr;
  if (rows.size() >= kCheckpointedRows) {
    p = PutVarint(p, checkpoints);
    checkpoint_at = p;
    p += checkpoints * sizeof(Checkpoint);
  }
  const uint8_t* first_row = p;
  uint32_t offset = 0;
  int64_t line = 0;
  StringId file = kInheritFile;  // rows start out in the region's file
  for (size_t r = 0; r < rows.size(); ++r) {
    if (checkpoint_at != nullptr && r % kCheckpointEvery == 0 && r != 0) {
      const Checkpoint checkpoint{offset, static_cast<uint32_t>(p - first_row),
                                  static_cast<uint32_t>(line), file};
      std::memcpy(checkpoint_at, &checkpoint, sizeof(checkpoint));
      checkpoint_at += sizeof(checkpoint);
    }
    const StartRow& row = rows[r];
    const bool file_changes = row.file != file;
    p = PutVarint(p, (uint64_t{row.offset - offset} << 1) | (file_changes ? 1 : 0));
    const int64_t delta = int64_t{row.line} - line;
    p = PutVarint(p, (static_cast<uint64_t>(delta) << 1) ^ static_cast<uint64_t>(delta >> 63));
    if (file_changes) p = PutVarint(p, FileCode(row.file));
    offset = row.offset;
    line = row.line;
    file = row.file;
  }
  out.resize(static_cast<size_t>(p - out.data()));
  return start;
}

}  // namespace

uint32_t AppendEndOffsetTable(base::HugeVector<uint8_t>& out, StringId region_file,
                              std::span<const trace::LineEntry> entries) {
  // Scratch space reused across calls: a table per method must not cost allocations.
  thread_local std::vector<trace::LineEntry> sorted;
  thread_local std::vector<StartRow> rows;
  sorted.assign(entries.begin(), entries.end());
  auto by_offset = [](const auto& a, const auto& b) { return a.offset < b.offset; };
  if (!std::is_sorted(sorted.begin(), sorted.end(), by_offset)) {
    std::stable_sort(sorted.begin(), sorted.end(), by_offset);
  }
  rows.clear();
  uint32_t range_start = 0;
  for (const auto& entry : sorted) {
    // An entry whose end equals the previous end covers nothing: the earlier line keeps the
    // location ("the first line number" wins).
    if (entry.offset <= range_start) continue;
    rows.push_back({range_start, entry.line, kInheritFile});
    range_start = entry.offset;
  }
  if (!rows.empty()) rows.push_back({range_start, 0, kInheritFile});  // past the last entry
  return Encode(out, region_file, rows);
}

uint32_t AppendStartRows(base::HugeVector<uint8_t>& out, StringId region_file,
                         std::vector<StartRow>& rows) {
  auto by_offset = [](const auto& a, const auto& b) { return a.offset < b.offset; };
  if (!std::is_sorted(rows.begin(), rows.end(), by_offset)) {
    std::stable_sort(rows.begin(), rows.end(), by_offset);
  }
  rows.erase(std::unique(rows.begin(), rows.end(),
                         [](const auto& a, const auto& b) { return a.offset == b.offset; }),
             rows.end());
  for (auto& row : rows) {
    if (row.file == region_file) row.file = kInheritFile;
  }
  return Encode(out, region_file, rows);
}

uint32_t AppendRebased(base::HugeVector<uint8_t>& out, uint32_t program, uint32_t origin) {
  thread_local std::vector<StartRow> rows;
  rows.clear();
  const uint8_t* p = out.data() + program;
  const StringId region_file = FileFromCode(GetVarint(p));
  uint64_t count = GetVarint(p);
  if (count >= kCheckpointedRows) p += GetVarint(p) * sizeof(Checkpoint);
  uint32_t offset = 0;
  int64_t line = 0;
  StringId file = kInheritFile;
  while (count-- > 0) {
    const uint64_t head = GetVarint(p);
    offset += static_cast<uint32_t>(head >> 1);
    const uint64_t zigzag = GetVarint(p);
    line += static_cast<int64_t>(zigzag >> 1) ^ -static_cast<int64_t>(zigzag & 1);
    if (head & 1) file = FileFromCode(GetVarint(p));
    // The row in effect at `origin` becomes the first row; earlier rows describe code that is
    // not part of the region any more.
    if (offset <= origin) rows.clear();
    rows.push_back({offset <= origin ? 0 : offset - origin, static_cast<uint32_t>(line), file});
  }
  return Encode(out, region_file, rows);
}

LineAt LookupLine(const uint8_t* p, uint64_t target) {
  const StringId region_file = FileFromCode(GetVarint(p));
  uint64_t count = GetVarint(p);
  // The state after the rows read so far; before the first row, "no line, the region's file".
  uint64_t offset = 0;
  int64_t line = 0;
  StringId file = region_file;
  if (count >= kCheckpointedRows) {
    const uint64_t checkpoints = GetVarint(p);
    const uint8_t* table = p;
    p += checkpoints * sizeof(Checkpoint);
    auto read = [&](uint64_t i) {
      Checkpoint c;
      std::memcpy(&c, table + i * sizeof(Checkpoint), sizeof(c));
      return c;
    };
    // The last checkpoint whose previous row starts at or before the target: the answer is
    // that row or a later one.
    uint64_t low = 0;
    uint64_t high = checkpoints;
    while (low < high) {
      const uint64_t mid = low + (high - low) / 2;
      if (read(mid).previous_offset <= target) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    if (low > 0) {
      const Checkpoint c = read(low - 1);
      offset = c.previous_offset;
      line = c.line;
      file = c.file == kInheritFile ? region_file : c.file;
      count -= low * kCheckpointEvery;
      p += c.position;
    }
  }
  while (count-- > 0) {
    const uint64_t head = GetVarint(p);
    offset += head >> 1;
    if (offset > target) break;
    const uint64_t zigzag = GetVarint(p);
    line += static_cast<int64_t>(zigzag >> 1) ^ -static_cast<int64_t>(zigzag & 1);
    if (head & 1) {
      const StringId row_file = FileFromCode(GetVarint(p));
      file = row_file == kInheritFile ? region_file : row_file;
    }
  }
  return {static_cast<uint32_t>(line), file};
}

StringId ProgramFile(const uint8_t* p) { return FileFromCode(GetVarint(p)); }

}  // namespace jitscope::symbolize
