// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The OProfile dump writer and reader (formats/oprofile_dump_*). The expected bytes are spelled
// out from the layout in the fact sheet (../shared/reference/perf-jitdump-oprofile.md §4.3), not
// from oprofile_dump_format.h, so a wrong struct there fails here.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "jitscope/formats/oprofile_dump_reader.h"
#include "jitscope/formats/oprofile_dump_writer.h"

namespace jitscope::formats {
namespace {

using Bytes = std::vector<uint8_t>;

void U32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void U64(Bytes& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void Str(Bytes& b, const std::string& s) {
  b.insert(b.end(), s.begin(), s.end());
  b.push_back(0);
}
void Pad8(Bytes& b) {
  while (b.size() % 8 != 0) b.push_back(0);
}

// A temporary file, removed at the end of the test.
class TempFile {
 public:
  TempFile() {
    char name[] = "/tmp/jitscope-oprofile-XXXXXX";
    fd_ = ::mkstemp(name);
    path_ = name;
  }
  ~TempFile() { ::unlink(path_.c_str()); }
  base::ScopedFd TakeFd() { return base::ScopedFd(fd_); }
  Bytes Read() const {
    Bytes bytes;
    if (std::FILE* f = std::fopen(path_.c_str(), "rb")) {
      int c;
      while ((c = std::fgetc(f)) != EOF) bytes.push_back(static_cast<uint8_t>(c));
      std::fclose(f);
    }
    return bytes;
  }

 private:
  int fd_ = -1;
  std::string path_;
};

constexpr uint64_t kT0 = 1700000000;
const uint8_t kCode[] = {0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3};

Bytes ExpectedHeader() {
  Bytes b;
  U32(b, 0x4F74496A);  // magic
  U32(b, 1);           // version
  U32(b, 48);          // 32 + "elf64-x86-64\0" (13) = 45, padded to 48
  U32(b, 8);           // bfd_arch_i386 (binutils 2.40)
  U32(b, 8);           // bfd_mach_x86_64
  U32(b, 0);           // alignment hole
  U64(b, kT0);
  Str(b, "elf64-x86-64");
  Pad8(b);
  return b;
}

TEST(OprofileDumpWriterTest, WritesOprofileBytesExactly) {
  TempFile file;
  auto writer = OprofileDumpWriter::Create(file.TakeFd(), kOprofileBfdX86_64, kT0);
  ASSERT_TRUE(writer.ok()) << writer.status().message();

  trace::OprofileCodeLoadEvent with_code{1,
                                         0x7f0000001000,
                                         reinterpret_cast<uintptr_t>(kCode),
                                         sizeof(kCode),
                                         "Foo.bar()V",
                                         {kCode, sizeof(kCode)}};
  trace::OprofileCodeLoadEvent without_code{2, 0x7f0000002000, 0, 64, "stub", {}};
  const trace::OprofileLineEntry lines[] = {
      {0x7f0000001000, 10, 0}, {0x7f0000001002, 11, 1}, {0x7f0000001004, 12, 0}};
  const uint32_t ends[] = {8, 16};
  trace::OprofileDebugLinesEvent debug{
      1,     reinterpret_cast<uintptr_t>(kCode),        0x7f0000001000, sizeof(kCode),
      lines, trace::FileTable{ends, "Foo.javaBar.java"}};
  ASSERT_TRUE(writer->Write(with_code, kT0 + 1).ok());
  ASSERT_TRUE(writer->Write(without_code, kT0 + 2).ok());
  ASSERT_TRUE(writer->Write(debug, kT0 + 3).ok());
  ASSERT_TRUE(writer->Write(trace::OprofileDebugLinesEvent{}, kT0 + 4).ok());  // 0 entries: nothing
  ASSERT_TRUE(writer->Write(trace::OprofileUnloadEvent{1, 0x7f0000001000, 6}, kT0 + 5).ok());
  ASSERT_TRUE(writer->Write(trace::OprofileOpenEvent{3}, kT0 + 6).ok());  // nothing
  ASSERT_TRUE(writer->Write(trace::OprofileCloseEvent{1}, kT0 + 7).ok());
  EXPECT_FALSE(writer->Write(trace::ShutdownEvent{}, kT0 + 8).ok());

  Bytes e = ExpectedHeader();
  // CODE_LOAD with code: 40 + "Foo.bar()V\0" (11) + 6 code bytes = 57 → 64.
  U32(e, 0), U32(e, 64), U64(e, kT0 + 1), U64(e, 0x7f0000001000);
  U64(e, reinterpret_cast<uintptr_t>(kCode)), U32(e, 6), U32(e, 0);
  Str(e, "Foo.bar()V");
  e.insert(e.end(), std::begin(kCode), std::end(kCode));
  Pad8(e);
  // CODE_LOAD without code: code_addr 0, code_size kept, no bytes: 40 + 5 = 45 → 48.
  U32(e, 0), U32(e, 48), U64(e, kT0 + 2), U64(e, 0x7f0000002000), U64(e, 0), U32(e, 64), U32(e, 0);
  Str(e, "stub");
  Pad8(e);
  // DEBUG_INFO: 32 + (12 + 9) + (12 + 9) + (12 + 9) = 95 → 96; entries packed, full names.
  U32(e, 3), U32(e, 96), U64(e, kT0 + 3), U64(e, reinterpret_cast<uintptr_t>(kCode)), U32(e, 3),
      U32(e, 0);
  U64(e, 0x7f0000001000), U32(e, 10), Str(e, "Foo.java");
  U64(e, 0x7f0000001002), U32(e, 11), Str(e, "Bar.java");
  U64(e, 0x7f0000001004), U32(e, 12), Str(e, "Foo.java");
  Pad8(e);
  // UNLOAD: 24 bytes.
  U32(e, 1), U32(e, 24), U64(e, kT0 + 5), U64(e, 0x7f0000001000);
  // CLOSE: 16 bytes.
  U32(e, 2), U32(e, 16), U64(e, kT0 + 7);

  EXPECT_EQ(file.Read(), e);
}

TEST(OprofileDumpReaderTest, ReadsWhatTheWriterWrote) {
  TempFile file;
  auto writer = OprofileDumpWriter::Create(file.TakeFd(), kOprofileBfdX86_64, kT0);
  ASSERT_TRUE(writer.ok());
  const trace::OprofileLineEntry lines[] = {{0x1000, 7, 0}};
  const uint32_t ends[] = {6};
  ASSERT_TRUE(
      writer->Write(trace::OprofileCodeLoadEvent{1, 0x1000, 0x5000, 6, "f", {kCode, 6}}, kT0).ok());
  ASSERT_TRUE(
      writer
          ->Write(trace::OprofileDebugLinesEvent{1, 0x5000, 0x1000, 6, lines, {ends, "f.java"}},
                  kT0)
          .ok());
  ASSERT_TRUE(writer->Write(trace::OprofileCloseEvent{1}, kT0 + 1).ok());
  const Bytes bytes = file.Read();
  auto dump = ParseOprofileDump(bytes);
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_TRUE(dump->damage.ok());
  EXPECT_EQ(dump->header.bfd_target, "elf64-x86-64");
  EXPECT_EQ(dump->header.timestamp, kT0);
  ASSERT_EQ(dump->records.size(), 3u);
  const auto& load = std::get<OprofileDumpCodeLoad>(dump->records[0].body);
  EXPECT_EQ(load.vma, 0x1000u);
  EXPECT_EQ(load.code_addr, 0x5000u);
  EXPECT_EQ(load.name, "f");
  EXPECT_EQ(Bytes(load.code.begin(), load.code.end()), Bytes(kCode, kCode + 6));
  const auto& info = std::get<OprofileDumpDebugInfo>(dump->records[1].body);
  ASSERT_EQ(info.lines.size(), 1u);
  EXPECT_EQ(info.lines[0].vma, 0x1000u);
  EXPECT_EQ(info.lines[0].line, 7u);
  EXPECT_EQ(info.lines[0].file, "f.java");
  EXPECT_TRUE(std::holds_alternative<OprofileDumpClose>(dump->records[2].body));
  EXPECT_EQ(dump->records[2].timestamp, kT0 + 1);

  // Every prefix of the file is either the header error or a clean/torn parse: never a crash.
  for (size_t size = 0; size < bytes.size(); ++size) {
    auto partial = ParseOprofileDump({bytes.data(), size});
    if (!partial.ok()) continue;
    EXPECT_LE(partial->records.size(), 3u);
    EXPECT_TRUE(partial->damage.ok()) << size;
  }
}

TEST(OprofileDumpReaderTest, ReportsDamageAndTornTails) {
  Bytes header = ExpectedHeader();
  {
    Bytes b = header;
    U32(b, 9), U32(b, 16), U64(b, kT0);  // unknown id: opjitconv fails the file
    auto dump = ParseOprofileDump(b);
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->damage.message(), "damaged OProfile dump at offset 48: unknown record id");
  }
  {
    Bytes b = header;
    U32(b, 0), U32(b, 48), U64(b, kT0), U64(b, 1), U64(b, 0), U32(b, 0), U32(b, 0);
    b.insert(b.end(), 8, 'x');  // name without NUL
    auto dump = ParseOprofileDump(b);
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->damage.message(),
              "damaged OProfile dump at offset 48: code load name is not terminated");
  }
  {
    Bytes b = header;
    U32(b, 3), U32(b, 40), U64(b, kT0), U64(b, 1), U32(b, 0xFFFFFFFF), U32(b, 0);
    b.insert(b.end(), 8, 0);  // four billion entries claimed in 8 bytes
    auto dump = ParseOprofileDump(b);
    ASSERT_TRUE(dump.ok());
    EXPECT_EQ(dump->damage.message(),
              "damaged OProfile dump at offset 48: debug info record is shorter than its entries");
  }
  {
    Bytes b = header;
    U32(b, 1), U32(b, 4096), U64(b, kT0), U64(b, 1);  // a record the writer did not finish
    auto dump = ParseOprofileDump(b);
    ASSERT_TRUE(dump.ok());
    EXPECT_TRUE(dump->damage.ok());
    EXPECT_EQ(dump->torn_records, 1u);
  }
  {
    Bytes b = header;
    std::swap(b[0], b[3]), std::swap(b[1], b[2]);
    auto dump = ParseOprofileDump(b);
    ASSERT_FALSE(dump.ok());
    EXPECT_EQ(dump.status().message(),
              "OProfile dump written on a machine of the other byte order (not supported)");
  }
}

}  // namespace
}  // namespace jitscope::formats
