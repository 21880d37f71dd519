// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The reading half of record_file.h: the header checked, then one record at a time, each bounds
// checked before anything is read of it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "jitscope/base/status.h"
#include "jitscope/formats/bounded_reader.h"
#include "jitscope/formats/record_file.h"

namespace jitscope::formats {

struct RecordFileRecord {
  uint32_t kind = 0;
  uint64_t time_ns = 0;
  uint64_t address = 0;
  std::span<const uint8_t> bytes;  // points into the file's bytes
  uint64_t offset = 0;             // where the record starts, for messages
};

class RecordFileReader {
 public:
  // Checks the header of `bytes` (of `magic`, which the caller has seen; `version` the one this
  // jitscope reads), naming the file `name` in errors.
  static base::StatusOr<RecordFileReader> Open(std::span<const uint8_t> bytes, uint32_t version,
                                               const std::string& name) {
    const BoundedReader reader(bytes, /*swapped=*/false);
    const std::optional<uint32_t> found = reader.Int<uint32_t>(8);
    const std::optional<uint32_t> header_size = reader.Int<uint32_t>(12);
    const std::optional<uint32_t> pid = reader.Int<uint32_t>(16);
    if (!found || !header_size || !pid || *header_size < kRecordFileHeaderSize ||
        !reader.Has(0, *header_size)) {
      return base::Status::Error("%s: the header is cut short", name.c_str());
    }
    if (*found != version) {
      return base::Status::Error("%s: version %u, this jitscope reads version %u", name.c_str(),
                                 *found, version);
    }
    return RecordFileReader(bytes, *pid, RecordFilePadded(*header_size), name);
  }

  uint32_t pid() const { return pid_; }

  // Hands each record to `visit` in file order, up to the first that runs past the end of the
  // bytes (a torn last record) or that `visit` refuses; returns that failure, the records before
  // it visited.
  base::Status ForEach(const std::function<base::Status(const RecordFileRecord&)>& visit) {
    while (!AtEnd()) {
      ASSIGN_OR_RETURN(const RecordFileRecord record, Next());
      RETURN_IF_ERROR(visit(record));
    }
    return base::Status::Ok();
  }
  bool AtEnd() const { return offset_ >= reader_.size(); }

  // The next record, or an error naming its offset when it runs past the end of the bytes (a
  // torn last record); the caller stops there.
  base::StatusOr<RecordFileRecord> Next() {
    const std::optional<uint32_t> kind = reader_.Int<uint32_t>(offset_);
    const std::optional<uint32_t> size = reader_.Int<uint32_t>(offset_ + 4);
    const std::optional<uint64_t> time = reader_.Int<uint64_t>(offset_ + 8);
    const std::optional<uint64_t> address = reader_.Int<uint64_t>(offset_ + 16);
    const uint64_t data = offset_ + kRecordFileRecordHeaderSize;
    if (!kind || !size || !time || !address || !reader_.Has(data, RecordFilePadded(*size))) {
      return base::Status::Error("%s: offset %llu: a record cut short", name_.c_str(),
                                 static_cast<unsigned long long>(offset_));
    }
    RecordFileRecord record{*kind, *time, *address, *reader_.Span(data, *size), offset_};
    offset_ = data + RecordFilePadded(*size);
    return record;
  }

 private:
  RecordFileReader(std::span<const uint8_t> bytes, uint32_t pid, uint64_t offset, std::string name)
      : reader_(bytes, /*swapped=*/false), pid_(pid), offset_(offset), name_(std::move(name)) {}

  BoundedReader reader_;
  uint32_t pid_;
  uint64_t offset_;
  std::string name_;
};

}  // namespace jitscope::formats
