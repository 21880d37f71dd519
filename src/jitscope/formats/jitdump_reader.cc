// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/jitdump_reader.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "jitscope/formats/bounded_reader.h"
#include "jitscope/formats/jitdump_format.h"

namespace jitscope::formats {
namespace {

// The ELF header size of the objects old perf generated, which V8 (kElfHeaderSize) and LLVM's
// PerfJITEventListener still add to every DEBUG_INFO address (perf's genelf_debug.c, LLVM's
// PerfJITEventListener.cpp).
constexpr uint64_t kElfHeaderBias = 0x40;
// Smallest DEBUG_INFO entry: 16 bytes of fields and the NUL of an empty name.
constexpr uint64_t kMinDebugEntrySize = sizeof(JitdumpDebugEntry) + 1;
// How far past its code_addr a DEBUG_INFO entry of equal-sized entries may be: no code object is
// 4 GiB long.
constexpr uint64_t kMaxEntrySpan = uint64_t{1} << 32;
// What glibc's malloc writes over the start of a freed small block: the tcache's next link and
// key (malloc/malloc.c, tcache_entry), 8 bytes each.
constexpr size_t kFreedLinkBytes = 16;

// The script a V8 CODE_LOAD name ends with, if it is `size` bytes long. V8 names a JavaScript
// function's code "<tag>:<tier><function> <script>:<line>", and from V8 11 (Node 20) on
// "JS:<tier><function> <script>:<line>:<column>" (log.cc); the function's name may be empty
// ("JS:^ /tmp/t.js:1:1", the script's top level) and the script's may hold spaces, so the script
// is found by its size from the end, not by a separator.
std::optional<std::string_view> V8ScriptOfCodeName(std::string_view name, size_t size) {
  const size_t tag_end = name.find(':');
  if (tag_end == std::string_view::npos || tag_end == 0) return std::nullopt;
  const std::string_view tag = name.substr(0, tag_end);
  const bool letters = std::all_of(tag.begin(), tag.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
  if (!letters) return std::nullopt;
  const int fields = tag == "JS" ? 2 : 1;  // ":<column>", then ":<line>"
  for (int field = 0; field < fields; ++field) {
    const size_t colon = name.rfind(':');
    if (colon == std::string_view::npos || colon + 1 == name.size() ||
        name.find_first_not_of("0123456789", colon + 1) != std::string_view::npos) {
      return std::nullopt;
    }
    name = name.substr(0, colon);
  }
  if (name.size() < tag_end + 1 + 1 + size || name[name.size() - size - 1] != ' ') {
    return std::nullopt;
  }
  return name.substr(name.size() - size);
}

// The size a jitdump record's fields give it, when the file holds them: CODE_LOAD's fixed part,
// name and code_size bytes of code, DEBUG_INFO's entries with their names; CODE_MOVE and
// CODE_CLOSE are of fixed size. nullopt for other records, or when the fields are cut off.
std::optional<uint64_t> SizeFromFields(const BoundedReader& reader, uint32_t id, uint64_t offset) {
  switch (static_cast<JitdumpRecordId>(id)) {
    case JitdumpRecordId::kCodeLoad: {
      const std::optional<uint64_t> code_size = reader.Int<uint64_t>(offset + 40);
      const auto name = reader.CString(offset + sizeof(JitdumpCodeLoad), reader.size());
      if (!code_size || !name || *code_size > reader.size()) return std::nullopt;
      return sizeof(JitdumpCodeLoad) + name->size() + 1 + *code_size;
    }
    case JitdumpRecordId::kCodeMove:
      return sizeof(JitdumpCodeMove);
    case JitdumpRecordId::kCodeClose:
      return kRecordPrefixSize;
    case JitdumpRecordId::kCodeDebugInfo: {
      const std::optional<uint64_t> entries = reader.Int<uint64_t>(offset + 24);
      if (!entries) return std::nullopt;
      uint64_t at = offset + sizeof(JitdumpDebugInfo);
      // Each entry takes 17 bytes at the least: the loop ends within the file's size.
      for (uint64_t i = 0; i < *entries; ++i) {
        const auto name = reader.CString(at + sizeof(JitdumpDebugEntry), reader.size());
        if (!reader.Has(at, sizeof(JitdumpDebugEntry)) || !name) return std::nullopt;
        at += sizeof(JitdumpDebugEntry) + name->size() + 1;
      }
      return at - offset;
    }
    case JitdumpRecordId::kCodeUnwindingInfo:
      break;
  }
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, std::string_view file_name, bool swapped,
         ParsedJitdump& out)
      : reader_(bytes, swapped), swapped_(swapped), file_name_(file_name), out_(out) {}

  void ParseRecords(uint64_t offset) {
    WalkEnd end = WalkRecords(
        reader_, offset, file_name_,
        [&](const RecordPrefix& r) {
          switch (static_cast<JitdumpRecordId>(r.id)) {
            case JitdumpRecordId::kCodeLoad:
              return CodeLoad(r);
            case JitdumpRecordId::kCodeMove:
              return CodeMove(r);
            case JitdumpRecordId::kCodeDebugInfo:
              return DebugInfo(r.offset, r.end);
            case JitdumpRecordId::kCodeClose:
              ++out_.stats.closes;
              return true;
            case JitdumpRecordId::kCodeUnwindingInfo:
              UnwindingInfo(r);
              return true;
          }
          ++out_.stats.unknown_records;  // perf skips these by total_size too (§1.2)
          return true;
        },
        [&](uint32_t id, uint64_t at) { return SizeFromFields(reader_, id, at); });
    if (!end.error.ok()) out_.error = std::move(end.error);
    out_.records_end = end.offset;
    DropPendingDebugInfo();
    pending_eh_frame_ = {};
  }

  void Finish() { RemoveLineAddressBias(); }

 private:
  // An entry's name that did not read as a name: where its bytes lie in the file, and how many
  // entries after it repeat it ("\xff").
  struct UnreadableName {
    uint32_t entry = 0;  // in its record
    uint32_t repeats = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
  };
  struct PendingDebugInfo {
    uint64_t code_addr = 0;
    uint32_t first_line = 0;
    uint32_t line_count = 0;
    // The names that could not be read (their entries' files are nullopt), for
    // NameFreedScriptNames.
    std::vector<UnreadableName> unreadable;
  };

  // The fields CODE_LOAD and CODE_MOVE share.
  JitdumpRecord Common(const RecordPrefix& r, JitdumpRecordKind kind) const {
    JitdumpRecord record;
    record.kind = kind;
    record.offset = r.offset;
    record.timestamp = r.timestamp;
    record.pid = *reader_.Int<uint32_t>(r.offset + 16);
    record.tid = *reader_.Int<uint32_t>(r.offset + 20);
    return record;
  }

  bool CodeLoad(const RecordPrefix& r) {
    if (r.end - r.offset < sizeof(JitdumpCodeLoad) + 1) {
      return Fail(r.offset, "CODE_LOAD record too short");
    }
    JitdumpRecord record = Common(r, JitdumpRecordKind::kCodeLoad);
    record.code_addr = *reader_.Int<uint64_t>(r.offset + 32);  // perf uses code_addr, not vma
    record.code_size = *reader_.Int<uint64_t>(r.offset + 40);
    record.code_index = *reader_.Int<uint64_t>(r.offset + 48);
    // The name is found by its NUL, not from code_size: some writers omit the code bytes while
    // still reporting their size (§1.3).
    auto name = reader_.CString(r.offset + sizeof(JitdumpCodeLoad), r.end);
    if (!name) return Fail(r.offset, "CODE_LOAD name is not NUL-terminated inside the record");
    record.name = *name;
    // The code follows the name's NUL; a record too short for code_size bytes has none.
    const uint64_t code_offset = r.offset + sizeof(JitdumpCodeLoad) + name->size() + 1;
    if (code_offset <= r.end && record.code_size <= r.end - code_offset) {
      if (auto code = reader_.Span(code_offset, record.code_size)) record.code = *code;
    }
    record.eh_frame = pending_eh_frame_;
    pending_eh_frame_ = {};
    if (pending_) {
      if (pending_->code_addr != record.code_addr) ++out_.stats.mismatched_debug_infos;
      record.first_line = pending_->first_line;
      record.line_count = pending_->line_count;
      if (!pending_->unreadable.empty()) NameFreedScriptNames(*pending_, record.name);
      pending_.reset();
    }
    out_.records.push_back(record);
    ++out_.stats.code_loads;
    return true;
  }

  // Keeps the .eh_frame of an UNWINDING_INFO for the next CODE_LOAD (§1.3). The data is the
  // .eh_frame, then the .eh_frame_hdr (what perf reads, and V8 writes); a record that says its
  // data is not mapped in the process (mapped_size 0: V8's header-only blob for code without
  // unwind info) has none. A record whose sizes do not fit is counted and skipped: it holds no
  // boundary the rest of the file depends on.
  void UnwindingInfo(const RecordPrefix& r) {
    ++out_.stats.unwinding_infos;
    pending_eh_frame_ = {};
    if (r.end - r.offset < sizeof(JitdumpUnwindingInfo)) {
      ++out_.stats.unusable_unwinding_infos;
      return;
    }
    const uint64_t size = *reader_.Int<uint64_t>(r.offset + 16);
    const uint64_t header_size = *reader_.Int<uint64_t>(r.offset + 24);
    const uint64_t mapped_size = *reader_.Int<uint64_t>(r.offset + 32);
    const uint64_t data = r.offset + sizeof(JitdumpUnwindingInfo);
    if (header_size > size || size > r.end - data) {
      ++out_.stats.unusable_unwinding_infos;
      return;
    }
    // The tables are in the producer's byte order; only a file of ours is read as tables.
    if (mapped_size == 0 || size == header_size || swapped_) return;
    if (auto eh_frame = reader_.Span(data, size - header_size)) pending_eh_frame_ = *eh_frame;
  }

  bool CodeMove(const RecordPrefix& r) {
    if (r.end - r.offset < sizeof(JitdumpCodeMove))
      return Fail(r.offset, "CODE_MOVE record too short");
    JitdumpRecord record = Common(r, JitdumpRecordKind::kCodeMove);
    record.old_code_addr = *reader_.Int<uint64_t>(r.offset + 32);
    record.code_addr = *reader_.Int<uint64_t>(r.offset + 40);
    record.code_size = *reader_.Int<uint64_t>(r.offset + 48);
    record.code_index = *reader_.Int<uint64_t>(r.offset + 56);
    out_.records.push_back(record);
    ++out_.stats.code_moves;
    return true;
  }

  bool DebugInfo(uint64_t offset, uint64_t end) {
    if (end - offset < sizeof(JitdumpDebugInfo)) return Fail(offset, "DEBUG_INFO record too short");
    ++out_.stats.debug_infos;
    DropPendingDebugInfo();  // perf keeps only the latest one for the next load
    const uint64_t code_addr = *reader_.Int<uint64_t>(offset + 16);
    const uint64_t count = *reader_.Int<uint64_t>(offset + 24);
    const uint64_t body = offset + sizeof(JitdumpDebugInfo);
    if (count > (end - body) / kMinDebugEntrySize) {
      return Fail(offset, "DEBUG_INFO claims " + std::to_string(count) +
                              " entries, more than its record can hold");
    }
    const size_t first = out_.lines.size();
    std::vector<UnreadableName> unreadable;
    if (!StrictEntries(body, end, count) &&
        !EqualSizedEntries(code_addr, body, end, count, unreadable) &&
        !FirstNameUnreadable(code_addr, body, end, count, unreadable)) {
      out_.lines.resize(first);
      return Fail(offset, "DEBUG_INFO entries do not fit the record");
    }
    pending_ =
        PendingDebugInfo{code_addr, static_cast<uint32_t>(first),
                         static_cast<uint32_t>(out_.lines.size() - first), std::move(unreadable)};
    return true;
  }

  // The format as specified: packed entries, each name NUL-terminated, then at most 7 bytes of
  // zero padding (V8 pads to 8, §1.0).
  bool StrictEntries(uint64_t p, uint64_t end, uint64_t count) {
    const size_t first = out_.lines.size();
    std::optional<std::string_view> previous_file;
    for (uint64_t i = 0; i < count; ++i) {
      if (!reader_.Has(p, sizeof(JitdumpDebugEntry))) break;
      auto file = reader_.CString(p + sizeof(JitdumpDebugEntry), end);
      if (!file || p + sizeof(JitdumpDebugEntry) > end) break;
      JitdumpLineEntry entry = ReadEntry(p);
      // "\xff" alone means "the previous entry's file" (jitdump.h; no known writer uses it).
      entry.file = (*file == "\xff") ? previous_file : file;
      previous_file = entry.file;
      out_.lines.push_back(entry);
      p += sizeof(JitdumpDebugEntry) + file->size() + 1;
    }
    if (out_.lines.size() - first == count && end - p < 8 && reader_.AllZero(p, end)) return true;
    out_.lines.resize(first);
    return false;
  }

  // Node 20's V8 writes some file names as binary blobs with embedded NULs (NameFreedScriptNames
  // says why). Such entries still all have the same size, so the record splits into `count` equal
  // entries whose last byte is a NUL; their names are unreadable and dropped, their lines kept.
  // With few entries, several paddings split the record evenly (2 entries and 6 bytes of padding
  // split as 2 entries 3 bytes longer, 4 bytes of padding short): the true split has V8's
  // entries in code order (InCodeOrder). False when the record does not split so.
  bool EqualSizedEntries(uint64_t code_addr, uint64_t body, uint64_t end, uint64_t count,
                         std::vector<UnreadableName>& unreadable) {
    if (count == 0) return false;
    for (uint64_t padding = 0; padding < 8 && padding <= end - body; ++padding) {
      const uint64_t bytes = end - body - padding;
      if (bytes % count != 0 || bytes / count < kMinDebugEntrySize) continue;
      if (!reader_.AllZero(end - padding, end)) continue;
      const uint64_t stride = bytes / count;
      bool fits = true;
      for (uint64_t i = 0; i < count && fits; ++i) {
        fits = *reader_.Int<uint8_t>(body + i * stride + stride - 1) == 0;
      }
      const size_t first = out_.lines.size();
      for (uint64_t i = 0; i < count && fits; ++i) {
        const uint64_t p = body + i * stride;
        JitdumpLineEntry entry = ReadEntry(p);
        auto name = reader_.Bytes(p + sizeof(JitdumpDebugEntry), stride - kMinDebugEntrySize);
        if (name && name->find('\0') == std::string_view::npos) {
          entry.file = name;
        } else {
          unreadable.push_back({static_cast<uint32_t>(i), 0, p + sizeof(JitdumpDebugEntry),
                                stride - kMinDebugEntrySize});
        }
        out_.lines.push_back(entry);
      }
      if (fits && InCodeOrder(code_addr, first)) {
        ++out_.stats.repaired_debug_infos;
        return true;
      }
      out_.lines.resize(first);
      unreadable.clear();
    }
    return false;
  }

  // Node 18's V8 (Debian 12's) writes only the first entry's script name, from freed memory as
  // NameFreedScriptNames says, and "\xff" ("the same file") for the entries after it of the same
  // script. So the first name has NULs in it, all among its first kFreedLinkBytes (malloc's
  // links), and the record reads as specified from its end on: the first entry, its name up to
  // one of those NULs or the first one after them, then `count` - 1 entries to the record's end,
  // all in code order. At most kFreedLinkBytes + 1 tries, each a pass over the entries. False
  // when none fits.
  bool FirstNameUnreadable(uint64_t code_addr, uint64_t body, uint64_t end, uint64_t count,
                           std::vector<UnreadableName>& unreadable) {
    if (count == 0 || end - body < kMinDebugEntrySize) return false;
    const uint64_t name = body + sizeof(JitdumpDebugEntry);
    const size_t first = out_.lines.size();
    for (uint64_t nul = name; nul < end; ++nul) {
      if (*reader_.Int<uint8_t>(nul) != 0) continue;
      out_.lines.push_back(ReadEntry(body));
      if (StrictEntries(nul + 1, end, count - 1) && InCodeOrder(code_addr, first)) {
        uint32_t repeats = 0;
        while (first + 1 + repeats < out_.lines.size() && !out_.lines[first + 1 + repeats].file) {
          ++repeats;
        }
        unreadable.push_back({0, repeats, name, nul - name});
        ++out_.stats.repaired_debug_infos;
        return true;
      }
      out_.lines.resize(first);
      if (nul - name >= kFreedLinkBytes) break;  // the name's own end did not fit either
    }
    return false;
  }

  // True when the entries from out_.lines[first] on are as V8 writes them: in code order
  // (SourcePositionTableIterator), from the record's code_addr on and within kMaxEntrySpan of
  // it. A wrong split of a record reads addresses shifted into line and column bytes.
  bool InCodeOrder(uint64_t code_addr, size_t first) const {
    uint64_t previous = code_addr;
    for (size_t i = first; i < out_.lines.size(); ++i) {
      const uint64_t address = out_.lines[i].address;
      if (address < previous || address - code_addr >= kMaxEntrySpan) return false;
      previous = address;
    }
    return true;
  }

  // V8 writes a DEBUG_INFO's script names from a buffer it has already freed (perf-jit.cc,
  // LogWriteDebugInfo, Node 18 to 22: `name_storage`, which holds the copy of a script name that
  // is not a flat one-byte string, dies at the end of the block that keeps a pointer into it).
  // So a user's script name arrives as its length in freed heap: malloc's links over its first
  // kFreedLinkBytes, the name's own bytes after them. V8 writes the function's own script for
  // every entry (`raw_shared->script()`; Node 18's once, then "\xff"), the script its CODE_LOAD
  // name ends with; when that script has the name's size and its readable tail, it is their file.
  void NameFreedScriptNames(const PendingDebugInfo& info, std::string_view load_name) {
    for (const UnreadableName& name : info.unreadable) {
      const std::optional<std::string_view> script = V8ScriptOfCodeName(load_name, name.size);
      auto bytes = reader_.Bytes(name.offset, name.size);
      const size_t tail = std::min<size_t>(kFreedLinkBytes, name.size);
      if (!script || !bytes || bytes->substr(tail) != script->substr(tail)) continue;
      for (uint32_t i = name.entry; i <= name.entry + name.repeats; ++i) {
        out_.lines[info.first_line + i].file = script;
        ++out_.stats.files_from_code_names;
      }
    }
  }

  JitdumpLineEntry ReadEntry(uint64_t p) const {
    JitdumpLineEntry entry;
    entry.address = *reader_.Int<uint64_t>(p);
    entry.line = *reader_.Int<uint32_t>(p + 8);
    entry.discriminator = *reader_.Int<uint32_t>(p + 12);
    return entry;
  }

  void DropPendingDebugInfo() {
    if (!pending_) return;
    ++out_.stats.orphan_debug_infos;
    // The pending entries are the last ones appended.
    out_.lines.resize(pending_->first_line);
    pending_.reset();
  }

  // Decides, for the whole file, whether its producer added kElfHeaderBias to the DEBUG_INFO
  // addresses. A correct table lies inside [code, code + size). Evidence of plain addresses: an
  // entry in the first 0x40 bytes of its code. Evidence of biased ones: an entry in the 0x40
  // bytes after the end of its code, which no correct table has. With no evidence either way,
  // a table whose first entry sits exactly at code + 0x40 is what V8 and LLVM write for the
  // function's first instruction. Mixed evidence (a damaged or concatenated file) is decided per
  // table. Entries outside their code after this are dropped and counted.
  void RemoveLineAddressBias() {
    bool plain = false, biased = false, first_at_bias = false;
    for (const auto& r : out_.records) {
      for (uint32_t i = 0; i < r.line_count; ++i) {
        const uint64_t rel = out_.lines[r.first_line + i].address - r.code_addr;
        if (out_.lines[r.first_line + i].address < r.code_addr) continue;
        if (rel < kElfHeaderBias && rel < r.code_size) plain = true;
        if (rel >= r.code_size && rel - r.code_size < kElfHeaderBias) biased = true;
        if (i == 0 && rel == kElfHeaderBias) first_at_bias = true;
      }
    }
    const bool mixed = plain && biased;
    const bool file_biased = biased || (!plain && first_at_bias);
    // Compacted in place: each record's entries come after the previous record's, so the kept
    // entries are never written past the ones still to be read.
    size_t kept = 0;
    for (auto& r : out_.records) {
      bool table_biased = file_biased;
      if (mixed) {
        table_biased = false;
        for (uint32_t i = 0; i < r.line_count; ++i) {
          const auto& e = out_.lines[r.first_line + i];
          if (e.address >= r.code_addr + r.code_size) table_biased = true;
        }
      }
      const uint64_t bias = table_biased ? kElfHeaderBias : 0;
      const auto first = static_cast<uint32_t>(kept);
      for (uint32_t i = 0; i < r.line_count; ++i) {
        JitdumpLineEntry e = out_.lines[r.first_line + i];
        e.address -= bias;
        if (e.address >= r.code_addr && e.address - r.code_addr < r.code_size) {
          out_.lines[kept++] = e;
        } else {
          ++out_.stats.dropped_line_entries;
        }
      }
      r.first_line = first;
      r.line_count = static_cast<uint32_t>(kept - first);
    }
    out_.lines.resize(kept);
    out_.stats.line_address_bias = file_biased && !mixed ? kElfHeaderBias : 0;
  }

  bool Fail(uint64_t offset, const std::string& what) {
    out_.error = RecordError(file_name_, offset, what);
    return false;
  }

  BoundedReader reader_;
  bool swapped_;
  std::string_view file_name_;
  ParsedJitdump& out_;
  std::optional<PendingDebugInfo> pending_;
  std::span<const uint8_t> pending_eh_frame_;  // of the last UNWINDING_INFO, for the next load
};

}  // namespace

bool LooksLikeJitdump(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4) return false;
  uint32_t magic;
  std::memcpy(&magic, bytes.data(), sizeof(magic));
  return magic == kJitdumpMagic || magic == kJitdumpMagicSwapped;
}

base::StatusOr<ParsedJitdump> ParseJitdump(std::span<const uint8_t> bytes,
                                           std::string_view file_name) {
  const int name_size = static_cast<int>(file_name.size());
  if (!LooksLikeJitdump(bytes)) {
    return base::Status::Error("%.*s: not a perf jitdump (bad magic)", name_size, file_name.data());
  }
  uint32_t magic;
  std::memcpy(&magic, bytes.data(), sizeof(magic));
  ParsedJitdump out;
  out.header.swapped = magic == kJitdumpMagicSwapped;
  BoundedReader reader(bytes, out.header.swapped);
  if (!reader.Has(0, sizeof(JitdumpHeader))) {
    return base::Status::Error("%.*s: offset 0: jitdump header is truncated", name_size,
                               file_name.data());
  }
  out.header.version = *reader.Int<uint32_t>(4);
  const uint32_t header_size = *reader.Int<uint32_t>(8);
  out.header.elf_mach = *reader.Int<uint32_t>(12);
  out.header.pid = *reader.Int<uint32_t>(20);
  out.header.timestamp = *reader.Int<uint64_t>(24);
  out.header.flags = *reader.Int<uint64_t>(32);
  // The header's version stays 1 although the specification's title says 2 (§1.0); accept both.
  if (out.header.version != kJitdumpVersion && out.header.version != 2) {
    return base::Status::Error("%.*s: unsupported jitdump version %u (this reader reads 1)",
                               name_size, file_name.data(), out.header.version);
  }
  if (header_size < sizeof(JitdumpHeader) || header_size > bytes.size()) {
    return base::Status::Error("%.*s: offset 8: invalid jitdump header size %u", name_size,
                               file_name.data(), header_size);
  }
  // Room for as many loads and line entries as the file could hold, capped: a large jitdump
  // (Node's, with a million line entries) then fills its vectors without ever copying them, and
  // the pages of room it never uses are never touched.
  constexpr size_t kMaxReserved = size_t{1} << 24;
  out.records.reserve(std::min<size_t>(bytes.size() / (sizeof(JitdumpCodeLoad) + 1), kMaxReserved));
  out.lines.reserve(std::min<size_t>(bytes.size() / kMinDebugEntrySize, kMaxReserved));
  Parser parser(bytes, file_name, out.header.swapped, out);
  parser.ParseRecords(header_size);
  parser.Finish();
  return out;
}

}  // namespace jitscope::formats
