// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/formats/captured_code.h"

#include <cstring>

#include "jitscope/formats/pid_file_name.h"
#include "jitscope/formats/record_file_reader.h"

namespace jitscope::formats {

std::string CapturedCodeFileName(uint32_t pid) { return PidFileName("captured-", pid, ".jsr"); }

std::string EncodeCapturedCodeHeader(uint32_t pid) {
  return EncodeRecordFileHeader(kCapturedCodeMagic, kCapturedCodeVersion, pid);
}

std::string EncodeCodeRead(uint64_t time_ns, uint64_t address, std::span<const uint8_t> bytes) {
  return EncodeRecordFileRecord(kCodeRead, time_ns, address, bytes);
}

bool LooksLikeCapturedCode(std::span<const uint8_t> bytes) {
  return LooksLikeRecordFile(bytes, kCapturedCodeMagic);
}

base::StatusOr<ParsedCapturedCode> ParseCapturedCode(std::span<const uint8_t> bytes,
                                                     std::string_view file_name) {
  const std::string name(file_name);
  if (!LooksLikeCapturedCode(bytes)) {
    return base::Status::Error("%s: not a file of code read from a running process", name.c_str());
  }
  ASSIGN_OR_RETURN(RecordFileReader reader,
                   RecordFileReader::Open(bytes, kCapturedCodeVersion, name));
  ParsedCapturedCode parsed;
  parsed.pid = reader.pid();
  parsed.error = reader.ForEach([&](const RecordFileRecord& record) {
    if (record.kind != kCodeRead || record.bytes.empty() ||
        record.bytes.size() > kMaxCapturedRead ||
        record.address + record.bytes.size() < record.address) {
      return base::Status::Error("%s: offset %llu: a record of kind %u and %zu bytes at 0x%llx",
                                 name.c_str(), static_cast<unsigned long long>(record.offset),
                                 record.kind, record.bytes.size(),
                                 static_cast<unsigned long long>(record.address));
    }
    parsed.reads.push_back({record.time_ns, record.address, record.bytes});
    return base::Status::Ok();
  });
  return parsed;
}

}  // namespace jitscope::formats
