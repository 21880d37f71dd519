// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Bounds-checked access to the bytes of a foreign file, shared by the importers (jitdump, perf
// map, OProfile dump). Every read names an absolute offset and fails (returns nullopt) instead of
// touching a byte outside the file, so a reader never does arithmetic on a length before this
// check has passed: a hostile file must not crash a reader (docs/reliability.md). Integers are read
// with memcpy — foreign files promise no alignment — and byte-swapped when the file was written in
// the other order.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "jitscope/base/status.h"

namespace jitscope::formats {

class BoundedReader {
 public:
  BoundedReader(std::span<const uint8_t> bytes, bool swapped) : bytes_(bytes), swapped_(swapped) {}

  uint64_t size() const { return bytes_.size(); }
  bool Has(uint64_t offset, uint64_t length) const {
    return offset <= bytes_.size() && length <= bytes_.size() - offset;
  }

  // An integer of type T at `offset`, in the file's byte order.
  template <typename T>
  std::optional<T> Int(uint64_t offset) const {
    static_assert(std::is_integral_v<T>);
    if (!Has(offset, sizeof(T))) return std::nullopt;
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return swapped_ ? ByteSwap(value) : value;
  }

  // A NUL-terminated string starting at `offset` that ends (NUL included) before `limit`.
  std::optional<std::string_view> CString(uint64_t offset, uint64_t limit) const {
    if (limit > bytes_.size() || offset >= limit) return std::nullopt;
    const auto* begin = reinterpret_cast<const char*>(bytes_.data() + offset);
    const void* nul = std::memchr(begin, 0, limit - offset);
    if (nul == nullptr) return std::nullopt;
    return std::string_view(begin, static_cast<const char*>(nul) - begin);
  }

  // `length` raw bytes at `offset`.
  std::optional<std::span<const uint8_t>> Span(uint64_t offset, uint64_t length) const {
    if (!Has(offset, length)) return std::nullopt;
    return bytes_.subspan(offset, length);
  }

  // `length` raw bytes at `offset`, as text.
  std::optional<std::string_view> Bytes(uint64_t offset, uint64_t length) const {
    auto span = Span(offset, length);
    if (!span) return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(span->data()), span->size());
  }

  bool AllZero(uint64_t offset, uint64_t limit) const {
    for (uint64_t i = offset; i < limit && i < bytes_.size(); ++i) {
      if (bytes_[i] != 0) return false;
    }
    return true;
  }

 private:
  template <typename T>
  static T ByteSwap(T value) {
    if constexpr (sizeof(T) == 1) {
      return value;
    } else {
      using U = std::make_unsigned_t<T>;
      U u = static_cast<U>(value);
      U out = 0;
      for (size_t i = 0; i < sizeof(T); ++i) {
        out = static_cast<U>((out << 8) | (u & 0xFF));
        u = static_cast<U>(u >> 8);
      }
      return static_cast<T>(out);
    }
  }

  std::span<const uint8_t> bytes_;
  bool swapped_;
};

// "FILE: offset N: WHAT", the shape of every reader error.
inline base::Status RecordError(std::string_view file, uint64_t offset, const std::string& what) {
  return base::Status::Error("%.*s: offset %llu: %s", static_cast<int>(file.size()), file.data(),
                             static_cast<unsigned long long>(offset), what.c_str());
}

// The prefix every record of a perf jitdump and of an OProfile dump starts with (perf's
// jitdump specification, OProfile's jitdump.h): id, the record's total size (prefix included),
// timestamp.
struct RecordPrefix {
  uint32_t id = 0;
  uint64_t timestamp = 0;
  uint64_t offset = 0;  // of the record
  uint64_t end = 0;     // offset + total size
};
inline constexpr uint64_t kRecordPrefixSize = 16;

// How a walk over the records ended.
struct WalkEnd {
  base::Status error;  // a record size smaller than the prefix; OK otherwise
  bool torn = false;   // the file ends inside a record
  // Where the walk ended: after the last record read whole (where zero bytes, a torn record or
  // a malformed one begin, or the file ends).
  uint64_t offset = 0;
};

// Walks the records from `offset`, calling `visit(const RecordPrefix&)` for each; `visit` returns
// false to stop (after recording its own error). What a writer that preallocates, or a crash in
// the middle of a record, leaves at the end — zero bytes, a record running past the end of the
// file — ends the walk quietly (the latter reported as torn); a size smaller than the prefix is
// an error. So is a record running past the end whose own fields end it inside the file
// (`size_from_fields(id, offset)`: the size they give it, nullopt when they do not tell): its
// size is damaged, not cut short by a crash, and taking it for the end would drop the records
// after it without a word.
template <typename Visit, typename SizeFromFields>
WalkEnd WalkRecords(const BoundedReader& reader, uint64_t offset, std::string_view file,
                    Visit visit, SizeFromFields size_from_fields) {
  while (offset < reader.size()) {
    if (reader.AllZero(offset, reader.size())) break;
    if (!reader.Has(offset, kRecordPrefixSize)) return {base::Status::Ok(), true, offset};
    RecordPrefix prefix;
    prefix.id = *reader.Int<uint32_t>(offset);
    const uint32_t total_size = *reader.Int<uint32_t>(offset + 4);
    prefix.timestamp = *reader.Int<uint64_t>(offset + 8);
    prefix.offset = offset;
    if (total_size < kRecordPrefixSize) {
      return {RecordError(file, offset,
                          "record size " + std::to_string(total_size) +
                              " is smaller than the 16-byte record header"),
              false, offset};
    }
    if (total_size > reader.size() - offset) {
      const std::optional<uint64_t> whole = size_from_fields(prefix.id, offset);
      if (whole && *whole <= reader.size() - offset) {
        return {RecordError(file, offset,
                            "record size " + std::to_string(total_size) +
                                " runs past the end of the file, but its fields make it " +
                                std::to_string(*whole) +
                                " bytes: a damaged size; the records after it are not read"),
                false, offset};
      }
      return {base::Status::Ok(), true, offset};
    }
    prefix.end = offset + total_size;
    if (!visit(prefix)) break;
    offset = prefix.end;
  }
  return {base::Status::Ok(), false, offset};
}

template <typename Visit>
WalkEnd WalkRecords(const BoundedReader& reader, uint64_t offset, std::string_view file,
                    Visit visit) {
  return WalkRecords(reader, offset, file, visit,
                     [](uint32_t, uint64_t) { return std::optional<uint64_t>(); });
}

}  // namespace jitscope::formats
