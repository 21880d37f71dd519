// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/jitdump_reader.h"

#include <gtest/gtest.h>

#include "jitscope/formats/jitdump_format.h"
#include "support/byte_builder.h"

namespace jitscope::formats {
namespace {

using test_support::ByteBuilder;

struct Entry {
  uint64_t address;
  uint32_t line;
  std::string_view file;  // may contain NULs (Node's binary names)
};

// A jitdump being written record by record, in either byte order (perf's jitdump specification).
class Jitdump {
 public:
  explicit Jitdump(bool swapped = false) : b_(swapped), swapped_(swapped) {
    b_.U32(kJitdumpMagic).U32(1).U32(40).U32(62).U32(0).U32(4242).U64(1000).U64(0);
  }
  Jitdump& Load(uint64_t time, uint64_t addr, uint64_t size, uint64_t index,
                std::string_view name) {
    ByteBuilder r(swapped_);
    r.U32(0).U32(0).U64(time).U32(4242).U32(4243).U64(addr).U64(addr).U64(size).U64(index);
    r.CString(name).Zeros(size);
    return Record(r);
  }
  // A CODE_LOAD whose writer left the code out but still gave its size.
  Jitdump& LoadWithoutCode(uint64_t time, uint64_t addr, uint64_t size, uint64_t index,
                           std::string_view name) {
    ByteBuilder r(swapped_);
    r.U32(0).U32(0).U64(time).U32(4242).U32(4243).U64(addr).U64(addr).U64(size).U64(index);
    r.CString(name);
    return Record(r);
  }
  Jitdump& Move(uint64_t time, uint64_t from, uint64_t to, uint64_t size, uint64_t index) {
    ByteBuilder r(swapped_);
    r.U32(1).U32(0).U64(time).U32(4242).U32(4243).U64(to).U64(from).U64(to).U64(size).U64(index);
    return Record(r);
  }
  Jitdump& Debug(uint64_t time, uint64_t addr, const std::vector<Entry>& entries, size_t pad = 0) {
    ByteBuilder r(swapped_);
    r.U32(2).U32(0).U64(time).U64(addr).U64(entries.size());
    for (const Entry& e : entries) r.U64(e.address).U32(e.line).U32(0).CString(e.file);
    r.Zeros(pad);
    return Record(r);
  }
  Jitdump& Unwinding(uint64_t time) {
    ByteBuilder r(swapped_);
    r.U32(4).U32(0).U64(time).U64(8).U64(0).U64(0).U64(0x1122334455667788);
    return Record(r);
  }
  // An UNWINDING_INFO of `data` (the .eh_frame, then `header_size` bytes of .eh_frame_hdr) whose
  // fields say `size` and `mapped_size`.
  Jitdump& Unwinding(uint64_t time, std::string_view data, uint64_t size, uint64_t header_size,
                     uint64_t mapped_size) {
    ByteBuilder r(swapped_);
    r.U32(4).U32(0).U64(time).U64(size).U64(header_size).U64(mapped_size).Raw(data).Zeros(4);
    return Record(r);
  }
  Jitdump& Close(uint64_t time) { return Record(ByteBuilder(swapped_).U32(3).U32(0).U64(time)); }
  Jitdump& Other(uint32_t id) {
    return Record(ByteBuilder(swapped_).U32(id).U32(0).U64(0).U64(0xdead));
  }
  Jitdump& Raw(std::string_view bytes) {
    b_.Raw(bytes);
    return *this;
  }
  std::vector<uint8_t> bytes() const { return {b_.bytes().begin(), b_.bytes().end()}; }

 private:
  Jitdump& Record(ByteBuilder r) {
    r.PatchU32(4, static_cast<uint32_t>(r.size()));
    b_.Append(r);
    return *this;
  }
  ByteBuilder b_;
  bool swapped_;
};

ParsedJitdump Parse(const std::vector<uint8_t>& bytes) {
  auto parsed = ParseJitdump(bytes, "test.dump");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(parsed).value() : ParsedJitdump{};
}

std::string Lines(const ParsedJitdump& p, const JitdumpRecord& r) {
  std::string out;
  for (uint32_t i = 0; i < r.line_count; ++i) {
    const auto& e = p.lines[r.first_line + i];
    out += (out.empty() ? "" : " ") + std::to_string(e.address - r.code_addr) + ":" +
           std::to_string(e.line) + "@" + std::string(e.file.value_or("?"));
  }
  return out;
}

Jitdump Typical(bool swapped) {
  Jitdump d(swapped);
  d.Debug(5, 0x1000, {{0x1000, 10, "a.js"}, {0x1008, 11, "\xff"}, {0x1010, 12, "b.js"}})
      .Unwinding(6)
      .Load(7, 0x1000, 0x20, 1, "JS:*f a.js:1")
      .Other(9)
      .Load(8, 0x2000, 0x10, 2, "stub")
      .Move(9, 0x2000, 0x3000, 0x10, 2)
      .Close(10);
  return d;
}

TEST(JitdumpReader, ReadsEveryRecordKindInBothByteOrders) {
  for (bool swapped : {false, true}) {
    SCOPED_TRACE(swapped ? "byte-swapped" : "native");
    const std::vector<uint8_t> bytes = Typical(swapped).bytes();  // what `p` points into
    const ParsedJitdump p = Parse(bytes);
    EXPECT_TRUE(p.error.ok()) << p.error.message();
    EXPECT_EQ(p.header.swapped, swapped);
    EXPECT_EQ(p.header.pid, 4242u);
    EXPECT_EQ(p.header.elf_mach, 62u);
    ASSERT_EQ(p.records.size(), 3u);
    const JitdumpRecord& f = p.records[0];
    EXPECT_EQ(f.kind, JitdumpRecordKind::kCodeLoad);
    EXPECT_EQ(f.name, "JS:*f a.js:1");
    EXPECT_EQ(f.code_addr, 0x1000u);
    EXPECT_EQ(f.code_size, 0x20u);
    EXPECT_EQ(f.code_index, 1u);
    EXPECT_EQ(f.timestamp, 7u);
    EXPECT_EQ(f.tid, 4243u);
    // "\xff" repeats the previous entry's file.
    EXPECT_EQ(Lines(p, f), "0:10@a.js 8:11@a.js 16:12@b.js");
    EXPECT_EQ(p.records[1].line_count, 0u);  // DEBUG_INFO applies to the next load only
    const JitdumpRecord& move = p.records[2];
    EXPECT_EQ(move.kind, JitdumpRecordKind::kCodeMove);
    EXPECT_EQ(move.old_code_addr, 0x2000u);
    EXPECT_EQ(move.code_addr, 0x3000u);
    EXPECT_EQ(move.code_index, 2u);
    EXPECT_EQ(p.stats.unwinding_infos, 1u);
    EXPECT_EQ(p.stats.unknown_records, 1u);
    EXPECT_EQ(p.stats.closes, 1u);
    EXPECT_EQ(p.stats.line_address_bias, 0u);
  }
}

std::string_view Text(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// An UNWINDING_INFO's .eh_frame (its data less the .eh_frame_hdr at the end, §1.3) goes with the
// next CODE_LOAD only; one whose data is not mapped (V8's header-only blob) or whose sizes do not
// fit its record gives none, and the file reads on.
TEST(JitdumpReader, AnUnwindingInfoGoesWithTheNextLoad) {
  Jitdump d;
  d.Unwinding(1, "EHFRAME!HDR_", 12, 4, 12)
      .Load(2, 0x1000, 0x1d, 1, "JS:*f a.js:1")
      .Load(3, 0x2000, 0x10, 2, "after")
      .Unwinding(4, "HDR_", 4, 4, 0)
      .Load(5, 0x3000, 0x10, 3, "header only")
      .Unwinding(6, "EHFRAME!HDR_", 12, 4, 0)
      .Load(7, 0x4000, 0x10, 4, "not mapped")
      .Unwinding(8, "EHFRAME!HDR_", 100, 4, 100)
      .Load(9, 0x5000, 0x10, 5, "too long")
      .Unwinding(10, "EHFRAME!HDR_", 12, 13, 12)
      .Load(11, 0x6000, 0x10, 6, "header longer than the data")
      .Unwinding(12, "EHFRAME!HDR_", 12, 4, 12)
      .Close(13);
  const std::vector<uint8_t> bytes = d.bytes();
  const ParsedJitdump p = Parse(bytes);
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  ASSERT_EQ(p.records.size(), 6u);
  EXPECT_EQ(Text(p.records[0].eh_frame), "EHFRAME!");
  EXPECT_EQ(p.records[0].EhFrameAddress(), 0x1020u);  // after the code, 8-aligned
  for (size_t i = 1; i < p.records.size(); ++i) {
    EXPECT_TRUE(p.records[i].eh_frame.empty()) << p.records[i].name;
  }
  EXPECT_EQ(p.stats.unwinding_infos, 6u);
  EXPECT_EQ(p.stats.unusable_unwinding_infos, 2u);
}

// The tables are in the writer's byte order, which libdw would read as ours: a byte-swapped
// file's are not kept.
TEST(JitdumpReader, AByteSwappedFilesUnwindingInfoIsNotKept) {
  Jitdump d(/*swapped=*/true);
  d.Unwinding(1, "EHFRAME!HDR_", 12, 4, 12).Load(2, 0x1000, 0x10, 1, "f");
  const std::vector<uint8_t> bytes = d.bytes();
  const ParsedJitdump p = Parse(bytes);
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_TRUE(p.records[0].eh_frame.empty());
  EXPECT_EQ(p.stats.unwinding_infos, 1u);
  EXPECT_EQ(p.stats.unusable_unwinding_infos, 0u);
}

// V8 and LLVM add 0x40 to every DEBUG_INFO address (perf's genelf_debug.c, LLVM's
// PerfJITEventListener.cpp): removed.
TEST(JitdumpReader, KeepsTheCodeBytesOfALoad) {
  Jitdump d;
  d.Load(7, 0x1000, 0x20, 1, "with code").LoadWithoutCode(8, 0x2000, 0x10, 2, "without");
  const std::vector<uint8_t> bytes = d.bytes();
  const ParsedJitdump p = Parse(bytes);
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  ASSERT_EQ(p.records.size(), 2u);
  // A view into the file: after the 40-byte file header, the load's 56 bytes of fields and its
  // name with the NUL.
  ASSERT_EQ(p.records[0].code.size(), 0x20u);
  EXPECT_EQ(p.records[0].code.data(), bytes.data() + 40 + 56 + 10);
  EXPECT_TRUE(p.records[1].code.empty());
  EXPECT_EQ(p.records[1].code_size, 0x10u);
}

TEST(JitdumpReader, RemovesTheElfHeaderBiasOfV8AndLlvm) {
  Jitdump d;
  d.Debug(1, 0x1000, {{0x1040, 1, "t.c"}, {0x1047, 2, "t.c"}, {0x1055, 3, "t.c"}})
      .Load(2, 0x1000, 0x20, 1, "work");
  const std::vector<uint8_t> bytes = d.bytes();
  const ParsedJitdump p = Parse(bytes);
  EXPECT_EQ(p.stats.line_address_bias, 0x40u);
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(Lines(p, p.records[0]), "0:1@t.c 7:2@t.c 21:3@t.c");
}

// With no evidence of a bias (an entry at the very start), addresses are taken as they are and
// entries outside the code are dropped and counted.
TEST(JitdumpReader, PlainAddressesStayAndStrayEntriesAreDropped) {
  Jitdump d;
  d.Debug(1, 0x1000, {{0x1000, 1, "t.c"}, {0x1010, 2, "t.c"}, {0x5000, 3, "t.c"}})
      .Load(2, 0x1000, 0x20, 1, "work");
  const std::vector<uint8_t> bytes = d.bytes();
  const ParsedJitdump p = Parse(bytes);
  EXPECT_EQ(p.stats.line_address_bias, 0u);
  EXPECT_EQ(Lines(p, p.records[0]), "0:1@t.c 16:2@t.c");
  EXPECT_EQ(p.stats.dropped_line_entries, 1u);
}

// Node 20 writes some file names as 16-byte binary blobs with NULs inside: the entries are read
// as equal-sized, the lines kept and the unreadable names dropped.
TEST(JitdumpReader, RepairsEqualSizedEntriesWithBinaryNames) {
  const std::string blob("\xbbn\x02\0\0\0\0\0\x85\xc9\xa8\x32\x1cL\xd0\xdc", 16);
  Jitdump d;
  d.Debug(1, 0x1000, {{0x1040, 1, blob}, {0x1067, 2, blob}, {0x1086, 2, blob}}, 5)
      .Load(2, 0x1000, 0x100, 1, "JS:*fibonacci fib.js:1:19");
  const std::vector<uint8_t> bytes = d.bytes();
  const ParsedJitdump p = Parse(bytes);
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  EXPECT_EQ(p.stats.repaired_debug_infos, 1u);
  EXPECT_EQ(Lines(p, p.records[0]), "0:1@? 39:2@? 70:2@?");
}

// What Node 20 writes for a user's script: the name's length in freed heap, malloc's 16 bytes of
// links over its start (bytes copied from a real --perf-prof jitdump) and the name's tail intact.
// The CODE_LOAD's name ends with that script, which becomes the entries' file; a blob whose tail
// is not the script's, or a name that is not V8's, leaves the file unknown. Two entries and 6
// bytes of padding also split evenly as 40-byte entries: the addresses tell the true split.
TEST(JitdumpReader, FreedScriptNamesAreTheScriptOfV8sCodeName) {
  const std::string script = "/tmp/ann-node/hot.js";
  const std::string blob =
      std::string("\x9e\x32\x04\0\0\0\0\0\xec\xff\xc0\x0b\x4e\xa5\x09\xa8", 16) + script.substr(16);
  std::string torn = blob;
  torn.back() = 'x';
  Jitdump d;
  d.Debug(1, 0x1000, {{0x1040, 1, blob}, {0x1067, 4, blob}, {0x1086, 6, blob}}, 1)
      .Load(2, 0x1000, 0x100, 1, "JS:*mixHot " + script + ":1:16")
      .Debug(3, 0x2000, {{0x2040, 1, blob}, {0x2050, 2, blob}}, 6)
      .Load(4, 0x2000, 0x100, 2, "JS:^ " + script + ":1:1")
      .Debug(5, 0x3000, {{0x3040, 1, blob}, {0x3050, 2, torn}}, 6)
      .Load(6, 0x3000, 0x100, 3, "JS:~f " + script + ":1:1")
      .Debug(7, 0x4000, {{0x4040, 1, blob}}, 3)
      .Load(8, 0x4000, 0x100, 4, "mixHot " + script + ":1:16");
  const std::vector<uint8_t> bytes = d.bytes();
  const ParsedJitdump p = Parse(bytes);
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  EXPECT_EQ(p.stats.repaired_debug_infos, 4u);
  const std::string at = "@" + script;
  EXPECT_EQ(Lines(p, p.records[0]), "0:1" + at + " 39:4" + at + " 70:6" + at);
  EXPECT_EQ(Lines(p, p.records[1]), "0:1" + at + " 16:2" + at);
  EXPECT_EQ(Lines(p, p.records[2]), "0:1" + at + " 16:2@?");
  EXPECT_EQ(Lines(p, p.records[3]), "0:1@?");
  EXPECT_EQ(p.stats.files_from_code_names, 6u);
}

// What Node 18 (Debian 12's) writes: the first entry's name is the script's length in freed
// heap (its link bytes with NULs among them, copied from a real jitdump of Debian's node), the
// entries after it of the same script "\xff" ("the same file"); then another script's name
// written whole. The record reads from the NUL that lets the rest fit, the entries in code order;
// the CODE_LOAD's name (V8 10's "LazyCompile:*f <script>:<line>") names the first entry's file
// and the repeats of it. Before, the record stopped the file: "entries do not fit the record".
TEST(JitdumpReader, Node18sFreedFirstNameAndItsRepeatsAreTheScriptOfV8sCodeName) {
  const std::string script = "/home/dev/service/lib/v8_shapes.js";
  const std::string blob =
      std::string("\xa2\x9b\xe5\x59\x05\0\0\0\0\xa3\x76\x15\xd5\x9f\xdd\xc3", 16) +
      script.substr(16);
  Jitdump d;
  d.Debug(1, 0x1000,
          {{0x1040, 4, blob},
           {0x1068, 4, "\xff"},
           {0x1087, 5, "\xff"},
           {0x10a0, 9, "lib.js"},
           {0x10b0, 9, "\xff"}},
          3)
      .Load(2, 0x1000, 0x100, 1, "LazyCompile:*fib " + script + ":4")
      .Debug(3, 0x2000, {{0x2040, 7, blob}, {0x2050, 8, "\xff"}})
      .Load(4, 0x2000, 0x100, 2, "Function:^other /elsewhere/other_script.js:4")
      .Load(5, 0x3000, 0x10, 3, "after");
  const std::vector<uint8_t> bytes = d.bytes();
  const ParsedJitdump p = Parse(bytes);
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  ASSERT_EQ(p.records.size(), 3u);
  EXPECT_EQ(p.stats.repaired_debug_infos, 2u);
  const std::string at = "@" + script;
  EXPECT_EQ(Lines(p, p.records[0]),
            "0:4" + at + " 40:4" + at + " 71:5" + at + " 96:9@lib.js 112:9@lib.js");
  EXPECT_EQ(Lines(p, p.records[1]), "0:7@? 16:8@?") << "another script's code: not named";
  EXPECT_EQ(p.stats.files_from_code_names, 3u);
}

TEST(JitdumpReader, ZeroTailAndTornLastRecordEndTheFileQuietly) {
  Jitdump d = Typical(false);
  std::vector<uint8_t> bytes = d.bytes();
  bytes.resize(bytes.size() + 4096, 0);  // a preallocating writer's tail
  ParsedJitdump p = Parse(bytes);
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  EXPECT_EQ(p.records.size(), 3u);

  Jitdump torn;
  torn.Load(1, 0x1000, 0x10, 1, "whole").Load(2, 0x2000, 0x10, 2, "torn");
  bytes = torn.bytes();
  bytes.resize(bytes.size() - 5);  // killed while writing the last record
  p = Parse(bytes);
  EXPECT_TRUE(p.error.ok()) << p.error.message();
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.records[0].name, "whole");
}

TEST(JitdumpReader, MalformedRecordsStopWithFileAndOffset) {
  Jitdump d;
  d.Load(1, 0x1000, 0x10, 1, "good");
  const size_t bad_offset = d.bytes().size();
  d.Raw(std::string("\0\0\0\0\x08\0\0\0", 8)).Raw(std::string(8, '\0'));  // total_size 8 < 16
  d.Load(3, 0x3000, 0x10, 3, "unreached");
  std::vector<uint8_t> bytes = d.bytes();
  ParsedJitdump p = Parse(bytes);
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.records[0].name, "good");
  EXPECT_EQ(p.error.message(), "test.dump: offset " + std::to_string(bad_offset) +
                                   ": record size 8 is smaller than the 16-byte record header");

  Jitdump lying;  // more entries claimed than the record holds
  lying.Load(1, 0x1000, 0x10, 1, "good");
  ByteBuilder r;
  r.U32(2).U32(48).U64(2).U64(0x1000).U64(1000).U64(0x1000).U64(0);
  lying.Raw(std::string(r.bytes().begin(), r.bytes().end()));
  bytes = lying.bytes();
  p = Parse(bytes);
  EXPECT_EQ(p.records.size(), 1u);
  EXPECT_NE(p.error.message().find("DEBUG_INFO claims 1000 entries"), std::string::npos)
      << p.error.message();

  Jitdump unterminated;
  ByteBuilder load;
  load.U32(0).U32(60).U64(1).U32(1).U32(1).U64(0x1000).U64(0x1000).U64(0).U64(1).Raw("abcd");
  unterminated.Raw(std::string(load.bytes().begin(), load.bytes().end()));
  bytes = unterminated.bytes();
  p = Parse(bytes);
  EXPECT_EQ(p.error.message(),
            "test.dump: offset 40: CODE_LOAD name is not NUL-terminated inside the record");
}

// Record 11 of 41 claims 0xffffffff bytes: not a last record a crash cut short (its own fields
// end it inside the file, and 30 records follow), but a damaged size, said with its offset. It
// was taken for a torn end: the 30 records after it were dropped without a word.
TEST(JitdumpReader, ADamagedSizeIsNotATornLastRecord) {
  Jitdump d;
  size_t eleventh = 0;
  for (uint64_t i = 1; i <= 41; ++i) {
    if (i == 11) eleventh = d.bytes().size();
    d.Load(i, 0x1000 * i, 0x10, i, "m" + std::to_string(i));
  }
  std::vector<uint8_t> bytes = d.bytes();
  const uint32_t huge = 0xffffffff;
  std::memcpy(bytes.data() + eleventh + 4, &huge, sizeof(huge));
  const ParsedJitdump p = Parse(bytes);
  EXPECT_EQ(p.records.size(), 10u);
  EXPECT_EQ(p.error.message(), "test.dump: offset " + std::to_string(eleventh) +
                                   ": record size 4294967295 runs past the end of the file, but "
                                   "its fields make it 76 bytes: a damaged size; the records "
                                   "after it are not read");
}

TEST(JitdumpReader, RejectsWhatIsNotAJitdump) {
  EXPECT_FALSE(ParseJitdump(std::vector<uint8_t>{1, 2, 3, 4, 5}, "x").ok());
  ByteBuilder b;
  b.U32(kJitdumpMagic).U32(7).U32(40).U32(62).U32(0).U32(1).U64(0).U64(0);
  auto parsed = ParseJitdump(b.bytes(), "v7.dump");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "v7.dump: unsupported jitdump version 7 (this reader reads 1)");
  ByteBuilder short_header;
  short_header.U32(kJitdumpMagic).U32(1);
  EXPECT_FALSE(ParseJitdump(short_header.bytes(), "x").ok());
}

}  // namespace
}  // namespace jitscope::formats
