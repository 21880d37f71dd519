// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Builds perf.data files (file mode) byte by byte for the reader's tests: the header, the attrs
// with their ids, the data records, and a feature index after the data.
#pragma once

#include <linux/perf_event.h>
#include <time.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/byte_builder.h"

namespace jitscope::test_support {

// One kernel-layout record, as a ring buffer or a perf.data holds it.
class PerfRecordBuilder {
 public:
  explicit PerfRecordBuilder(uint32_t type, uint16_t misc = 0) : type_(type), misc_(misc) {}
  template <typename T>
  PerfRecordBuilder& Put(T value) {
    body_.append(reinterpret_cast<const char*>(&value), sizeof(value));
    return *this;
  }
  PerfRecordBuilder& Name(const std::string& name) {
    body_ += name;
    body_.push_back('\0');
    while ((body_.size() + sizeof(perf_event_header)) % 8 != 0) body_.push_back('\0');
    return *this;
  }
  // The sample_id_all trailer of sample_type TID|TIME.
  PerfRecordBuilder& SampleId(uint32_t pid, uint32_t tid, uint64_t time) {
    return Put(pid).Put(tid).Put(time);
  }
  std::string Build() const {
    perf_event_header header{type_, misc_, static_cast<uint16_t>(sizeof(header) + body_.size())};
    return std::string(reinterpret_cast<const char*>(&header), sizeof(header)) + body_;
  }

 private:
  uint32_t type_;
  uint16_t misc_;
  std::string body_;
};

// An MMAP2 of an executable mapping of `pid` (readable and executable, private, at file offset
// 0) at `time`, with the sample_id_all trailer TID|TIME.
inline std::string ExecutableMapping(uint32_t pid, uint64_t time, uint64_t start, uint64_t length,
                                     const std::string& name) {
  return PerfRecordBuilder(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER)
      .Put<uint32_t>(pid)
      .Put<uint32_t>(pid)
      .Put<uint64_t>(start)
      .Put<uint64_t>(length)
      .Put<uint64_t>(0)
      .Put<uint32_t>(0)
      .Put<uint32_t>(0)
      .Put<uint64_t>(0)
      .Put<uint64_t>(0)
      .Put<uint32_t>(0x5)  // PROT_READ | PROT_EXEC
      .Put<uint32_t>(0x2)  // MAP_PRIVATE
      .Name(name)
      .SampleId(pid, pid, time)
      .Build();
}

// perf record -k 1 -g's attr: IP|TID|TIME|CALLCHAIN|ID|PERIOD, sample_id_all, CLOCK_MONOTONIC.
inline perf_event_attr FpAttr() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.size = sizeof(attr);
  attr.sample_freq = 1000;
  attr.freq = 1;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
                     PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD;
  attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
  attr.sample_id_all = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  return attr;
}

class PerfDataBuilder {
 public:
  PerfDataBuilder& Attr(const perf_event_attr& attr, std::vector<uint64_t> ids) {
    attrs_.emplace_back(attr, std::move(ids));
    return *this;
  }
  PerfDataBuilder& Record(const std::string& record) {
    data_ += record;
    return *this;
  }
  // A feature section: its bit and its bytes (features must be added in bit order).
  PerfDataBuilder& Feature(int bit, std::string bytes) {
    features_.emplace_back(bit, std::move(bytes));
    return *this;
  }
  // The offset the next record will have in the file.
  size_t DataOffset() const { return 104 + IdsSize() + AttrsSize() + data_.size(); }

  std::vector<uint8_t> Build() const {
    ByteBuilder out;
    const uint64_t ids_offset = 104;
    const uint64_t attrs_offset = ids_offset + IdsSize();
    const uint64_t data_offset = attrs_offset + AttrsSize();
    out.Raw("PERFILE2").U64(104).U64(sizeof(perf_event_attr) + 16);
    out.U64(attrs_offset).U64(AttrsSize()).U64(data_offset).U64(data_.size()).U64(0).U64(0);
    uint64_t bits[4] = {};
    for (const auto& [bit, bytes] : features_) bits[bit / 64] |= uint64_t{1} << (bit % 64);
    for (uint64_t word : bits) out.U64(word);
    for (const auto& [attr, ids] : attrs_) {
      for (uint64_t id : ids) out.U64(id);
    }
    uint64_t id_at = ids_offset;
    for (const auto& [attr, ids] : attrs_) {
      out.Raw(std::string_view(reinterpret_cast<const char*>(&attr), sizeof(attr)));
      out.U64(id_at).U64(8 * ids.size());
      id_at += 8 * ids.size();
    }
    out.Raw(data_);
    uint64_t section_at = out.size() + 16 * features_.size();
    for (const auto& [bit, bytes] : features_) {
      out.U64(section_at).U64(bytes.size());
      section_at += bytes.size();
    }
    for (const auto& [bit, bytes] : features_) out.Raw(bytes);
    return {out.bytes().begin(), out.bytes().end()};
  }

 private:
  size_t IdsSize() const {
    size_t n = 0;
    for (const auto& [attr, ids] : attrs_) n += 8 * ids.size();
    return n;
  }
  size_t AttrsSize() const { return attrs_.size() * (sizeof(perf_event_attr) + 16); }

  std::vector<std::pair<perf_event_attr, std::vector<uint64_t>>> attrs_;
  std::string data_;
  std::vector<std::pair<int, std::string>> features_;
};

}  // namespace jitscope::test_support
