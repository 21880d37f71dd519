// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/session/perf_data_reader.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>

#include "jitscope/base/file_window.h"
#include "jitscope/base/files.h"
#include "jitscope/base/scoped_resource.h"
#include "jitscope/formats/bounded_reader.h"
#include "jitscope/session/perf_record.h"

namespace jitscope::session {
namespace {

using formats::BoundedReader;
using formats::RecordError;

constexpr uint64_t kHeaderSize = 104;
constexpr uint64_t kPipeHeaderSize = 16;
constexpr char kFirstVersionMagic[8] = {'P', 'E', 'R', 'F', 'F', 'I', 'L', 'E'};
constexpr uint64_t kAttrsSectionOffset = 24;
constexpr uint64_t kDataSectionOffset = 40;
constexpr uint64_t kFeatureBitsOffset = 72;

// Feature bits (perf's util/header.h) this reader uses.
constexpr int kFeatureBuildId = 2;
constexpr int kFeatureArch = 6;
constexpr int kFeatureCmdline = 11;
constexpr int kFeatureEventDesc = 12;
constexpr int kFeatureDirFormat = 24;

// Record types perf adds to the kernel's (perf's util/event.h), from PERF_RECORD_USER_TYPE_START.
constexpr uint32_t kRecordAuxtrace = 71;
constexpr uint32_t kRecordCompressed = 81;
constexpr uint32_t kRecordCompressed2 = 83;  // newer perf: the payload padded to 8 bytes
constexpr uint32_t kLastUserRecordType = 83;

template <typename T>
T Load(std::string_view bytes) {
  T value;
  std::memcpy(&value, bytes.data(), sizeof(value));
  return value;
}

// A zstd stream that decompresses to more than this from one record is refused: a record is at
// most 64 KiB, and perf's own ratio is around 10 (the reference's run: 13).
constexpr size_t kMaxDecompressedPerRecord = 64u << 20;
// What all of them may decompress to, at most: a file of zstd frames that claim far more than
// perf's own compression gives (a few times, tens for repetitive call chains) would fill the
// disk the records are spooled to.
constexpr uint64_t kMaxDecompressedRatio = 100;
constexpr uint64_t kMinDecompressedLimit = uint64_t{1} << 30;

struct Section {
  uint64_t offset = 0;
  uint64_t size = 0;
};

std::optional<Section> ReadSection(const BoundedReader& reader, uint64_t at) {
  auto offset = reader.Int<uint64_t>(at);
  auto size = reader.Int<uint64_t>(at + 8);
  if (!offset || !size) return std::nullopt;
  return Section{*offset, *size};
}

// Whether perf's dummy event (software, PERF_COUNT_SW_DUMMY), which carries side-band records
// and no samples of its own.
bool IsDummy(const perf_event_attr& attr) {
  return attr.type == PERF_TYPE_SOFTWARE && attr.config == PERF_COUNT_SW_DUMMY;
}

struct DStreamFree {
  void operator()(ZSTD_DStream* stream) const { ZSTD_freeDStream(stream); }
};

class Parser {
 public:
  // `file`, if not null, holds `bytes`: the records read are evicted from memory behind the
  // reading. The passes over the samples after it read them from `fd`, the file it maps, if open
  // (SampleData::file_fd).
  Parser(std::span<const uint8_t> bytes, std::string_view name,
         std::shared_ptr<const base::MappedFile> file = {}, base::ScopedFd fd = {})
      : reader_(bytes, false), name_(name), file_(file.get()) {
    out_.data.file = std::move(file);
    out_.data.file_fd = std::move(fd);
  }

  base::StatusOr<PerfData> Parse() && {
    RETURN_IF_ERROR(ReadHeader());
    RETURN_IF_ERROR(ReadAttrs());
    ReadFeatures();
    if (dir_format_) {
      return base::Status::Error(
          "%s: a directory-format recording (perf record --threads); jitscope reads the "
          "single-file format",
          std::string(name_).c_str());
    }
    ReadData();
    SortByTime(out_.data);
    return std::move(out_);
  }

 private:
  base::Status Error(uint64_t offset, const std::string& what) const {
    return RecordError(name_, offset, what);
  }

  base::Status ReadHeader() {
    auto magic = reader_.Bytes(0, 8);
    if (!magic)
      return base::Status::Error("%s: not a perf.data file (shorter than its magic)",
                                 std::string(name_).c_str());
    if (*magic == std::string_view(kFirstVersionMagic, 8)) {
      return base::Status::Error(
          "%s: a perf.data file of the first version (PERFFILE), which "
          "perf has not written since 2010; jitscope reads PERFILE2",
          std::string(name_).c_str());
    }
    std::string swapped(kPerfDataMagic, 8);
    std::reverse(swapped.begin(), swapped.end());
    if (*magic == swapped) {
      return base::Status::Error(
          "%s: a perf.data file of the other byte order; jitscope reads little-endian files",
          std::string(name_).c_str());
    }
    if (*magic != std::string_view(kPerfDataMagic, 8)) {
      return base::Status::Error("%s: not a perf.data file (no PERFILE2 magic)",
                                 std::string(name_).c_str());
    }
    auto header_size = reader_.Int<uint64_t>(8);
    if (header_size == kPipeHeaderSize) {
      return base::Status::Error(
          "%s: a pipe-mode perf.data (perf record -o -, or piped); jitscope reads files perf "
          "wrote in file mode (perf record -o FILE)",
          std::string(name_).c_str());
    }
    if (!reader_.Has(0, kHeaderSize)) {
      return Error(reader_.size(), "the file ends inside the 104-byte perf.data header");
    }
    if (*header_size < kHeaderSize) {
      return Error(8, "the perf.data header claims " + std::to_string(*header_size) +
                          " bytes; file mode's has 104");
    }
    entry_size_ = *reader_.Int<uint64_t>(16);
    attrs_ = *ReadSection(reader_, kAttrsSectionOffset);
    data_ = *ReadSection(reader_, kDataSectionOffset);
    for (int word = 0; word < 4; ++word)
      features_[word] = *reader_.Int<uint64_t>(kFeatureBitsOffset + 8 * word);
    return base::Status::Ok();
  }

  base::Status ReadAttrs() {
    // The header's attr size is that of a whole entry: the attr and its ids' {offset, size}. The
    // first published attr had 64 bytes (PERF_ATTR_SIZE_VER0); an attr's own size field is u32.
    if (entry_size_ < PERF_ATTR_SIZE_VER0 + 16 || entry_size_ > 0xffffffff) {
      return Error(16, "attr size " + std::to_string(entry_size_) +
                           " is not a perf_event_attr's and its ids'");
    }
    const uint64_t entry = entry_size_;
    const uint64_t attr_size = entry - 16;
    if (!reader_.Has(attrs_.offset, attrs_.size) || attrs_.size == 0 || attrs_.size % entry != 0) {
      return Error(kAttrsSectionOffset,
                   "the attrs section {offset " + std::to_string(attrs_.offset) + ", size " +
                       std::to_string(attrs_.size) + "} is not whole attrs of " +
                       std::to_string(entry) + " bytes inside the file");
    }
    std::map<uint64_t, size_t> owner;
    for (uint64_t at = attrs_.offset; at < attrs_.offset + attrs_.size; at += entry) {
      PerfDataAttr attr;
      const auto bytes = *reader_.Span(at, std::min<uint64_t>(attr_size, sizeof(attr.attr)));
      std::memcpy(&attr.attr, bytes.data(), bytes.size());
      const Section ids = *ReadSection(reader_, at + attr_size);
      if (!reader_.Has(ids.offset, ids.size) || ids.size % 8 != 0) {
        return Error(at + attr_size, "attr " + std::to_string(out_.attrs.size()) +
                                         "'s ids {offset " + std::to_string(ids.offset) +
                                         ", size " + std::to_string(ids.size) +
                                         "} are not whole u64s inside the file");
      }
      for (uint64_t i = 0; i < ids.size; i += 8) {
        const uint64_t id = *reader_.Int<uint64_t>(ids.offset + i);
        auto [it, inserted] = owner.emplace(id, out_.attrs.size());
        if (!inserted) {
          return Error(ids.offset + i, "event id " + std::to_string(id) + " belongs to attrs " +
                                           std::to_string(it->second) + " and " +
                                           std::to_string(out_.attrs.size()));
        }
        attr.ids.push_back(id);
      }
      out_.attrs.push_back(std::move(attr));
    }
    // With several events a record says which one wrote it by its id, which must sit where
    // every attr's layout puts it (perf checks the same: evlist__valid_sample_type).
    const perf_event_attr& first = out_.attrs.front().attr;
    constexpr uint64_t kIdPosition = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                     PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                                     PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
    if (out_.attrs.size() > 1) {
      if ((first.sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) == 0) {
        return Error(attrs_.offset, std::to_string(out_.attrs.size()) +
                                        " events, but their records carry no event id");
      }
      for (size_t i = 1; i < out_.attrs.size(); ++i) {
        const perf_event_attr& other = out_.attrs[i].attr;
        const bool same_place =
            (first.sample_type & PERF_SAMPLE_IDENTIFIER) != 0
                ? (other.sample_type & PERF_SAMPLE_IDENTIFIER) != 0
                : (other.sample_type & kIdPosition) == (first.sample_type & kIdPosition);
        if (!same_place || other.sample_id_all != first.sample_id_all) {
          return Error(attrs_.offset + i * entry,
                       "attr " + std::to_string(i) + " puts the event id elsewhere than attr 0");
        }
      }
      for (const auto& [id, index] : owner) attr_of_id_.emplace(id, index);
    }
    out_.sampled_attr = 0;
    for (size_t i = 0; i < out_.attrs.size(); ++i) {
      if (!IsDummy(out_.attrs[i].attr)) {
        out_.sampled_attr = i;
        break;
      }
    }
    const perf_event_attr& sampled = out_.attrs[out_.sampled_attr].attr;
    out_.data.format.layout = out_.attrs[out_.sampled_attr].layout();
    out_.data.samples.set_layout(out_.data.format.layout);
    out_.data.format.stack_size = sampled.sample_stack_user;
    if (!sampled.exclude_kernel) out_.data.flags |= kFlagKernel;
    out_.monotonic_clock =
        std::all_of(out_.attrs.begin(), out_.attrs.end(), [](const PerfDataAttr& a) {
          return a.attr.use_clockid != 0 && a.attr.clockid == CLOCK_MONOTONIC;
        });
    return base::Status::Ok();
  }

  bool HasFeature(int bit) const { return ((features_[bit / 64] >> (bit % 64)) & 1) != 0; }

  // The {offset, size} of feature `bit`'s section, from the index after the data.
  std::optional<Section> Feature(int bit) {
    if (!HasFeature(bit)) return std::nullopt;
    int before = 0;
    for (int b = 0; b < bit; ++b) before += HasFeature(b) ? 1 : 0;
    const uint64_t index = data_.offset + data_.size + 16 * static_cast<uint64_t>(before);
    std::optional<Section> section;
    if (data_.offset + data_.size >= data_.offset) section = ReadSection(reader_, index);
    if (!section || !reader_.Has(section->offset, section->size)) {
      out_.notes.push_back(Error(index, "feature " + std::to_string(bit) +
                                            "'s section is outside the file; not used")
                               .message());
      return std::nullopt;
    }
    return section;
  }

  void ReadFeatures() {
    dir_format_ = HasFeature(kFeatureDirFormat);
    if (auto arch = Feature(kFeatureArch)) {
      uint64_t at = arch->offset;
      out_.arch = String(at, arch->offset + arch->size).value_or("");
    }
    if (auto cmdline = Feature(kFeatureCmdline)) ReadCmdline(*cmdline);
    if (auto build_ids = Feature(kFeatureBuildId)) ReadBuildIds(*build_ids);
    if (auto events = Feature(kFeatureEventDesc)) ReadEventDesc(*events);
  }

  // A feature's string at `at`: {u32 len; char[len], NUL-padded}, within `end`. Moves `at` past it.
  std::optional<std::string> String(uint64_t& at, uint64_t end) {
    auto len = reader_.Int<uint32_t>(at);
    if (!len || at + 4 + *len > end) return std::nullopt;
    auto text = reader_.Bytes(at + 4, *len);
    at += 4 + *len;
    return std::string(text->substr(0, text->find('\0')));
  }

  // A string list: {u32 nr; string × nr}.
  void ReadCmdline(const Section& section) {
    const uint64_t end = section.offset + section.size;
    auto nr = reader_.Int<uint32_t>(section.offset);
    uint64_t at = section.offset + 4;
    for (uint32_t i = 0; nr && i < *nr; ++i) {
      auto text = String(at, end);
      if (!text) {
        out_.notes.push_back(Error(at, "the command line feature is cut short").message());
        return;
      }
      out_.command_line.push_back(std::move(*text));
    }
  }

  // The events' names, in the attrs' order: {u32 nr; u32 attr size; {attr; u32 nr_ids; string
  // name; u64 ids[nr_ids]} × nr}.
  void ReadEventDesc(const Section& section) {
    const uint64_t end = section.offset + section.size;
    auto nr = reader_.Int<uint32_t>(section.offset);
    auto attr_size = reader_.Int<uint32_t>(section.offset + 4);
    uint64_t at = section.offset + 8;
    for (uint32_t i = 0; nr && attr_size && i < *nr && i < out_.attrs.size(); ++i) {
      at += *attr_size;
      auto ids = reader_.Int<uint32_t>(at);
      at += 4;
      std::optional<std::string> name;
      if (ids) name = String(at, end);
      if (!name || *ids > (end - std::min(at, end)) / 8) {
        out_.notes.push_back(Error(at, "the event description feature is cut short").message());
        return;
      }
      out_.attrs[i].name = std::move(*name);
      at += uint64_t{*ids} * 8;
    }
  }

  // build_id_event records: {header; s32 pid; u8 build_id[24]; char filename[]}. The id is 20
  // bytes unless misc has PERF_RECORD_MISC_BUILD_ID_SIZE, when byte 20 gives its size.
  void ReadBuildIds(const Section& section) {
    const uint64_t end = section.offset + section.size;
    for (uint64_t at = section.offset; at + 8 <= end;) {
      const uint16_t misc = *reader_.Int<uint16_t>(at + 4);
      const uint16_t size = *reader_.Int<uint16_t>(at + 6);
      if (size < 8 + 4 + 24 || at + size > end) {
        out_.notes.push_back(Error(at, "build id entry of " + std::to_string(size) +
                                           " bytes does not fit its section; the rest unused")
                                 .message());
        return;
      }
      PerfDataBuildId entry;
      entry.pid = *reader_.Int<int32_t>(at + 8);
      size_t id_size = 20;
      if ((misc & (1u << 15)) != 0) id_size = std::min<size_t>(20, *reader_.Int<uint8_t>(at + 32));
      entry.build_id = BuildIdHex(*reader_.Span(at + 12, id_size));
      auto name = reader_.Bytes(at + 36, size - 36);
      entry.filename = std::string(name->substr(0, name->find('\0')));
      out_.build_ids.push_back(std::move(entry));
      at += size;
    }
  }

  // The data section's records, then those decompressed from it (spooled as they came).
  void ReadData() {
    ReadDataSection();
    ReadSpool();
  }

  void ReadDataSection() {
    uint64_t end = data_.offset + data_.size;
    if (data_.size == 0 && data_.offset < reader_.size()) {
      // perf writes the header again when it finishes; a recording killed before that says
      // its data is empty although the records are there.
      out_.notes.push_back(std::string(name_) +
                           ": the header says the data section is empty (perf record did not "
                           "finish the file); read the records to the end of the file");
      end = reader_.size();
    }
    if (end < data_.offset || end > reader_.size()) {
      out_.notes.push_back(
          Error(kDataSectionOffset, "the data section ends at offset " + std::to_string(end) +
                                        ", past the file's end (" + std::to_string(reader_.size()) +
                                        " bytes); read what the file holds")
              .message());
      end = reader_.size();
    }
    uint64_t at = data_.offset;
    uint64_t evicted = data_.offset;
    if (end > at) out_.data.samples.ReserveFor(end - at);
    // The records are read through a window on the file when it is open (SampleData::file_fd),
    // else from the mapping, evicted behind the reading.
    std::optional<base::FileWindow> window;
    if (file_ != nullptr && out_.data.file_fd)
      window.emplace(out_.data.file_fd.get(), reader_.size());
    const auto read = [&](uint64_t offset, size_t size) -> std::optional<std::string_view> {
      if (!reader_.Has(offset, size)) return std::nullopt;
      return window ? window->Read(offset, size) : reader_.Bytes(offset, size);
    };
    while (at < end) {
      const std::optional<std::string_view> head =
          end - at < sizeof(perf_event_header) ? std::nullopt : read(at, sizeof(perf_event_header));
      if (!head) {
        Damage(at, "a record header is cut off by the data's end");
        return;
      }
      const auto header = Load<perf_event_header>(*head);
      const uint32_t type = header.type;
      const uint16_t size = header.size;
      if (size < sizeof(perf_event_header) || size > end - at) {
        Damage(at, "record of type " + std::to_string(type) + " claims " + std::to_string(size) +
                       " bytes, " + (size < 8 ? "less than its header" : "past the data's end"));
        return;
      }
      uint64_t next = at + size;
      if (type == kRecordAuxtrace) {
        // The AUX area data follows the record, its size in the record's first field.
        const std::optional<std::string_view> aux_size = read(at + 8, sizeof(uint64_t));
        const uint64_t aux = aux_size ? Load<uint64_t>(*aux_size) : ~uint64_t{0};
        if (aux > end - next) {
          Damage(at, "AUXTRACE record's data runs past the data's end");
          return;
        }
        next += aux;
      }
      const std::optional<std::string_view> bytes = read(at, size);
      if (!bytes) {
        Damage(at, "the file was cut short while it was read");
        return;
      }
      if (type == kRecordCompressed || type == kRecordCompressed2) {
        if (!Decompress(bytes->substr(sizeof(perf_event_header)), at)) return;
      } else {
        // Where the record stays: a sample's list keeps that, not the window's passing copy.
        Record(*bytes, reader_.Bytes(at, size)->data());
      }
      at = next;
      if (window) {
        window->Release(at);
      } else if (file_ != nullptr && at - evicted >= base::MappedFile::kEvictEvery) {
        file_->Evict(evicted, at);
        evicted = at;
      }
    }
    if (!carry_.empty()) {
      Damage(end, std::to_string(carry_.size()) +
                      " decompressed bytes at the end are a part of a record");
    }
  }

  // Decompresses one COMPRESSED record's payload and decodes the whole records it completes; a
  // record cut at its end is carried over to the next one (perf's session.c does the same).
  bool Decompress(std::string_view payload, uint64_t offset) {
    ++out_.compressed_records;
    if (!stream_) {
      stream_.reset(ZSTD_createDStream());
      if (!stream_ || ZSTD_isError(ZSTD_initDStream(stream_.get()))) {
        Damage(offset, "cannot start a zstd stream");
        return false;
      }
    }
    auto out = std::make_unique<std::string>(std::move(carry_));
    carry_.clear();
    size_t used = out->size();
    ZSTD_inBuffer in{payload.data(), payload.size(), 0};
    bool output_full = true;
    while (in.pos < in.size || output_full) {
      if (out->size() - used < ZSTD_DStreamOutSize()) out->resize(used + 4 * ZSTD_DStreamOutSize());
      ZSTD_outBuffer buffer{out->data() + used, out->size() - used, 0};
      const size_t result = ZSTD_decompressStream(stream_.get(), &buffer, &in);
      if (ZSTD_isError(result)) {
        Damage(offset, std::string("the compressed records do not decompress: ") +
                           ZSTD_getErrorName(result));
        return false;
      }
      used += buffer.pos;
      output_full = buffer.pos == buffer.size;
      if (used > kMaxDecompressedPerRecord) {
        Damage(offset, "a compressed record decompresses to more than " +
                           std::to_string(kMaxDecompressedPerRecord) + " bytes");
        return false;
      }
    }
    out->resize(used);
    const std::string_view records(*out);
    size_t at = 0;
    while (records.size() - at >= sizeof(perf_event_header)) {
      uint16_t size = 0;
      std::memcpy(&size, records.data() + at + 6, sizeof(size));
      if (size < sizeof(perf_event_header)) {
        Damage(offset, "a decompressed record claims " + std::to_string(size) +
                           " bytes, less than its header");
        return false;
      }
      if (size > records.size() - at) break;
      at += size;
    }
    if (!Spool(records.substr(0, at), offset)) return false;
    carry_ = std::string(records.substr(at));
    return true;
  }

  // Appends whole decompressed records to the spool, an unlinked temporary file made at the first.
  bool Spool(std::string_view records, uint64_t offset) {
    if (!spool_) {
      base::StatusOr<base::ScopedFd> fd = base::CreateTemporaryFile();
      if (!fd.ok()) {
        Damage(offset, "no room for the decompressed records: " + fd.status().message() +
                           " (set TMPDIR to a directory with room)");
        return false;
      }
      spool_ = std::move(*fd);
    }
    const uint64_t limit = std::max(kMinDecompressedLimit, kMaxDecompressedRatio * reader_.size());
    if (spooled_ + records.size() > limit) {
      Damage(offset, "the compressed records decompress to more than " + std::to_string(limit) +
                         " bytes (1 GiB, or " + std::to_string(kMaxDecompressedRatio) +
                         " times the file's size if more)");
      return false;
    }
    spooled_ += records.size();
    if (base::Status written = base::WriteAll(spool_.get(), records.data(), records.size());
        !written.ok()) {
      Damage(offset, "cannot keep the decompressed records: " + written.message());
      return false;
    }
    return true;
  }

  // Reads the records decompressed from the data section, from the spool mapped: they are in the
  // page cache, which the kernel can take back, and the pages behind the reader are given back as
  // it goes, as for the file's own records.
  void ReadSpool() {
    if (!spool_) return;
    base::StatusOr<base::MappedFile> mapped = base::MappedFile::FromFd(spool_.get(), "the spool");
    if (!mapped.ok()) {
      out_.notes.push_back(std::string(name_) + ": cannot read the decompressed records back: " +
                           mapped.status().message());
      return;
    }
    auto spool = std::make_shared<const base::MappedFile>(std::move(*mapped));
    const std::string_view records = spool->bytes();
    size_t evicted = 0;
    // Whole records only were spooled, each checked to be at least a header long.
    for (size_t at = 0; records.size() - at >= sizeof(perf_event_header);) {
      uint16_t size = 0;
      std::memcpy(&size, records.data() + at + 6, sizeof(size));
      Record(records.substr(at, size));
      at += size;
      if (at - evicted >= base::MappedFile::kEvictEvery) {
        spool->Evict(evicted, at);
        evicted = at;
      }
    }
    out_.data.decompressed = std::move(spool);
  }

  // Decodes the record `bytes`, which `kept_at`, if not null, holds as well and keeps (`bytes`
  // being a passing copy).
  void Record(std::string_view bytes, const char* kept_at = nullptr) {
    perf_event_header header{};
    std::memcpy(&header, bytes.data(), sizeof(header));
    size_t attr = 0;
    if (out_.attrs.size() > 1) {
      const perf_event_attr& first = out_.attrs.front().attr;
      // Records perf synthesizes itself (the kernel's MMAP, the COMM of the process it starts)
      // carry id 0 or one of no attr; as perf does, they are read with the first attr, whose
      // trailer every attr shares. Only a sample needs its own attr's layout.
      auto id = PerfRecordId(bytes, first.sample_type, first.sample_id_all != 0);
      auto it = id ? attr_of_id_.find(*id) : attr_of_id_.end();
      if (it != attr_of_id_.end()) {
        attr = it->second;
      } else if (header.type == PERF_RECORD_SAMPLE) {
        ++out_.unknown_id_records;
        return;
      }
    }
    if (header.type == PERF_RECORD_SAMPLE && attr != out_.sampled_attr) {
      ++out_.other_event_samples;
      return;
    }
    if (!Known(header.type)) {
      ++out_.unknown_types[header.type];
      return;
    }
    if (header.type == PERF_RECORD_SAMPLE) {
      if (!out_.data.samples.Add(bytes, kept_at).ok()) ++out_.data.counters.malformed_records;
      return;
    }
    base::StatusOr<PerfRecord> record = ParsePerfRecord(bytes, out_.attrs[attr].layout());
    if (!record.ok()) {
      ++out_.data.counters.malformed_records;
      return;
    }
    if (std::holds_alternative<Other>(*record)) return;  // known, and of no use to a report
    AddRecord(bytes, std::move(*record), out_.data);
  }

  // The kernel's record types up to PERF_RECORD_MAX of the headers we build with, and perf's own.
  static bool Known(uint32_t type) {
    return (type > 0 && type < PERF_RECORD_MAX) || (type >= 64 && type <= kLastUserRecordType);
  }

  void Damage(uint64_t offset, const std::string& what) {
    out_.damage = Error(offset, what).message();
  }

  BoundedReader reader_;
  std::string_view name_;
  const base::MappedFile* file_;
  uint64_t entry_size_ = 0;
  Section attrs_;
  Section data_;
  uint64_t features_[4] = {};
  bool dir_format_ = false;
  std::map<uint64_t, size_t> attr_of_id_;
  std::unique_ptr<ZSTD_DStream, DStreamFree> stream_;
  std::string carry_;
  base::ScopedFd spool_;  // the decompressed records (Spool)
  uint64_t spooled_ = 0;
  PerfData out_;
};

}  // namespace

SampleLayout PerfDataAttr::layout() const {
  SampleLayout layout;
  layout.sample_type = attr.sample_type;
  layout.regs_mask = attr.sample_regs_user;
  layout.read_format = attr.read_format;
  layout.branch_sample_type = attr.branch_sample_type;
  layout.sample_id_all = attr.sample_id_all != 0;
  return layout;
}

bool LooksLikePerfData(const std::string& path) {
  base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  char magic[8];
  if (!fd || ::read(fd.get(), magic, sizeof(magic)) != sizeof(magic)) return false;
  std::string_view seen(magic, sizeof(magic));
  std::string swapped(kPerfDataMagic, 8);
  std::reverse(swapped.begin(), swapped.end());
  return seen == std::string_view(kPerfDataMagic, 8) || seen == swapped ||
         seen == std::string_view(kFirstVersionMagic, 8);
}

base::StatusOr<PerfData> ParsePerfData(std::span<const uint8_t> bytes, std::string_view name) {
  auto copy = std::make_unique<const std::string>(reinterpret_cast<const char*>(bytes.data()),
                                                  bytes.size());
  ASSIGN_OR_RETURN(
      PerfData data,
      Parser({reinterpret_cast<const uint8_t*>(copy->data()), copy->size()}, name).Parse());
  data.data.copy = std::move(copy);
  return data;
}

base::StatusOr<PerfData> ReadPerfDataFile(const std::string& path) {
  base::ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return base::Status::Errno(errno, "cannot open %s", path.c_str());
  ASSIGN_OR_RETURN(base::MappedFile mapped, base::MappedFile::FromFd(fd.get(), path));
  auto file = std::make_shared<const base::MappedFile>(std::move(mapped));
  ASSIGN_OR_RETURN(PerfData data, Parser(std::span<const uint8_t>(file->data(), file->size()), path,
                                         file, std::move(fd))
                                      .Parse());
  return data;
}

}  // namespace jitscope::session
