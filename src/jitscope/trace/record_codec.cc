// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/trace/record_codec.h"

#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <variant>

namespace jitscope::trace {
namespace {

constexpr size_t kMaxRecordSize = std::numeric_limits<uint32_t>::max() & ~size_t{7};

size_t StringBytes(const std::optional<std::string_view>& s) { return s ? s->size() : 0; }

uint32_t StringSizeField(const std::optional<std::string_view>& s) {
  return s ? static_cast<uint32_t>(s->size()) : kAbsentString;
}

// Strings longer than 4 GiB cannot be described by the format; EncodedRecordSize rejects them.
bool FitsSizeField(const std::optional<std::string_view>& s) {
  return !s || s->size() < kAbsentString;
}

size_t Finish(size_t unpadded) {
  const size_t size = AlignTo8(sizeof(RecordHeader) + unpadded);
  return size <= kMaxRecordSize ? size : 0;
}

uint8_t* Put(uint8_t* out, const void* data, size_t size) {
  if (size != 0) std::memcpy(out, data, size);
  return out + size;
}

uint8_t* PutString(uint8_t* out, const std::optional<std::string_view>& s) {
  return s ? Put(out, s->data(), s->size()) : out;
}

// Reads the fixed part of a record body and hands out the variable parts in order, failing
// (and staying failed) when the body is too short.
class BodyReader {
 public:
  explicit BodyReader(std::span<const uint8_t> body) : body_(body) {}

  template <typename T>
  bool ReadFixed(T& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!Have(sizeof(T))) return false;
    std::memcpy(&out, body_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return true;
  }

  bool ReadString(uint32_t size, std::optional<std::string_view>& out) {
    if (size == kAbsentString) {
      out.reset();
      return true;
    }
    if (!Have(size)) return false;
    out = std::string_view(reinterpret_cast<const char*>(body_.data() + position_), size);
    position_ += size;
    return true;
  }

  // A table of `count` fixed-size entries, viewed in place. Record bodies are 8-byte aligned and
  // every fixed part and table before a table is a multiple of its entries' alignment, so the
  // check below only fails on a damaged record.
  template <typename T>
  bool ReadArray(uint32_t count, std::span<const T>& out) {
    static_assert(std::is_trivially_copyable_v<T>);
    const uint64_t bytes = uint64_t{count} * sizeof(T);
    if (!Have(bytes)) return false;
    if (reinterpret_cast<uintptr_t>(body_.data() + position_) % alignof(T) != 0) return false;
    out = {reinterpret_cast<const T*>(body_.data() + position_), count};
    position_ += bytes;
    return true;
  }

  bool ReadBytes(uint32_t size, std::span<const uint8_t>& out) { return ReadArray(size, out); }

 private:
  bool Have(uint64_t bytes) const { return bytes <= body_.size() - position_; }

  std::span<const uint8_t> body_;
  size_t position_ = 0;
};

base::Status Truncated(RecordType type) {
  return base::Status::Error("record of type %u is shorter than its fields say",
                             static_cast<unsigned>(type));
}

// ---- One codec per record type ----
//
// Codec<E> holds everything the format says about event type E: its record type, the size of its
// body before padding (nullopt when a field cannot be described by the 32-bit sizes), how it is
// written and how it is read back. A new record type is a new event in event.h's Event, a new
// RecordType in format.h, and a new Codec here; the dispatch below needs no change.
template <typename E>
struct Codec;

template <>
struct Codec<CodeEvent> {
  static constexpr RecordType kType = RecordType::kCode;
  static std::optional<size_t> Size(const CodeEvent& e) {
    if (!FitsSizeField(e.name) || !FitsSizeField(e.class_file) || !FitsSizeField(e.source_file) ||
        !FitsSizeField(e.module)) {
      return std::nullopt;
    }
    return sizeof(CodeRecord) + e.lines.size_bytes() + StringBytes(e.name) +
           StringBytes(e.class_file) + StringBytes(e.source_file) + StringBytes(e.module);
  }
  static uint8_t* Encode(const CodeEvent& e, uint64_t timestamp, uint8_t* out) {
    const CodeRecord fixed{timestamp,
                           e.address,
                           e.api_event,
                           e.method_id,
                           e.parent_method_id,
                           e.size,
                           e.class_id,
                           e.arch,
                           static_cast<uint32_t>(e.lines.size()),
                           StringSizeField(e.name),
                           StringSizeField(e.class_file),
                           StringSizeField(e.source_file),
                           StringSizeField(e.module),
                           0};
    out = Put(out, &fixed, sizeof(fixed));
    out = Put(out, e.lines.data(), e.lines.size_bytes());
    out = PutString(out, e.name);
    out = PutString(out, e.class_file);
    out = PutString(out, e.source_file);
    return PutString(out, e.module);
  }
  static base::Status Decode(BodyReader& in, uint64_t& timestamp, CodeEvent& e) {
    CodeRecord fixed{};
    if (!in.ReadFixed(fixed) || !in.ReadArray(fixed.line_count, e.lines) ||
        !in.ReadString(fixed.name_size, e.name) ||
        !in.ReadString(fixed.class_file_size, e.class_file) ||
        !in.ReadString(fixed.source_file_size, e.source_file) ||
        !in.ReadString(fixed.module_size, e.module)) {
      return Truncated(kType);
    }
    timestamp = fixed.timestamp;
    e.api_event = fixed.api_event;
    e.method_id = fixed.method_id;
    e.parent_method_id = fixed.parent_method_id;
    e.address = fixed.address;
    e.size = fixed.size;
    e.class_id = fixed.class_id;
    e.arch = fixed.arch;
    return base::Status::Ok();
  }
};

template <>
struct Codec<RangeUpdateEvent> {
  static constexpr RecordType kType = RecordType::kRangeUpdate;
  static std::optional<size_t> Size(const RangeUpdateEvent& e) {
    if (!FitsSizeField(e.data_format)) return std::nullopt;
    return sizeof(RangeUpdateRecord) + StringBytes(e.data_format);
  }
  static uint8_t* Encode(const RangeUpdateEvent& e, uint64_t timestamp, uint8_t* out) {
    const RangeUpdateRecord fixed{
        timestamp, e.address, e.size, e.segment_type, StringSizeField(e.data_format), 0};
    return PutString(Put(out, &fixed, sizeof(fixed)), e.data_format);
  }
  static base::Status Decode(BodyReader& in, uint64_t& timestamp, RangeUpdateEvent& e) {
    RangeUpdateRecord fixed{};
    if (!in.ReadFixed(fixed) || !in.ReadString(fixed.data_format_size, e.data_format)) {
      return Truncated(kType);
    }
    timestamp = fixed.timestamp;
    e.address = fixed.address;
    e.size = fixed.size;
    e.segment_type = fixed.segment_type;
    return base::Status::Ok();
  }
};

// The record types whose body is one fixed struct: `ToRecord` and `FromRecord` are all they say.
template <typename E, typename Fixed, RecordType type>
struct FixedCodec {
  static constexpr RecordType kType = type;
  static std::optional<size_t> Size(const E&) { return sizeof(Fixed); }
  static uint8_t* Encode(const E& e, uint64_t timestamp, uint8_t* out) {
    const Fixed fixed = Codec<E>::ToRecord(e, timestamp);
    return Put(out, &fixed, sizeof(fixed));
  }
  static base::Status Decode(BodyReader& in, uint64_t& timestamp, E& e) {
    Fixed fixed{};
    if (!in.ReadFixed(fixed)) return Truncated(kType);
    timestamp = fixed.timestamp;
    e = Codec<E>::FromRecord(fixed);
    return base::Status::Ok();
  }
};

template <>
struct Codec<UnloadEvent> : FixedCodec<UnloadEvent, UnloadRecord, RecordType::kUnload> {
  static UnloadRecord ToRecord(const UnloadEvent& e, uint64_t t) { return {t, e.method_id, 0}; }
  static UnloadEvent FromRecord(const UnloadRecord& r) { return {r.method_id}; }
};

template <>
struct Codec<ShutdownEvent> : FixedCodec<ShutdownEvent, ShutdownRecord, RecordType::kShutdown> {
  static ShutdownRecord ToRecord(const ShutdownEvent&, uint64_t t) { return {t}; }
  static ShutdownEvent FromRecord(const ShutdownRecord&) { return {}; }
};

template <>
struct Codec<RejectedEvent> : FixedCodec<RejectedEvent, RejectedRecord, RecordType::kRejected> {
  static RejectedRecord ToRecord(const RejectedEvent& e, uint64_t t) {
    return {t, e.api_event, static_cast<uint32_t>(e.reason)};
  }
  static RejectedEvent FromRecord(const RejectedRecord& r) {
    return {r.api_event, static_cast<RejectReason>(r.reason)};
  }
};

// op_open_agent and op_close_agent share one body layout.
template <typename E, RecordType type>
struct AgentCodec : FixedCodec<E, OprofileAgentRecord, type> {
  static OprofileAgentRecord ToRecord(const E& e, uint64_t t) { return {t, e.agent, 0}; }
  static E FromRecord(const OprofileAgentRecord& r) { return {r.agent}; }
};
template <>
struct Codec<OprofileOpenEvent> : AgentCodec<OprofileOpenEvent, RecordType::kOprofileOpen> {};
template <>
struct Codec<OprofileCloseEvent> : AgentCodec<OprofileCloseEvent, RecordType::kOprofileClose> {};

template <>
struct Codec<OprofileCodeLoadEvent> {
  static constexpr RecordType kType = RecordType::kOprofileCodeLoad;
  static std::optional<size_t> Size(const OprofileCodeLoadEvent& e) {
    if (e.name.size() >= kAbsentString || e.code.size() >= kAbsentString) return std::nullopt;
    return sizeof(OprofileCodeLoadRecord) + e.name.size() + e.code.size();
  }
  static uint8_t* Encode(const OprofileCodeLoadEvent& e, uint64_t timestamp, uint8_t* out) {
    const OprofileCodeLoadRecord fixed{timestamp,
                                       e.address,
                                       e.code_address,
                                       e.size,
                                       e.agent,
                                       static_cast<uint32_t>(e.name.size()),
                                       static_cast<uint32_t>(e.code.size())};
    out = Put(out, &fixed, sizeof(fixed));
    out = Put(out, e.name.data(), e.name.size());
    return Put(out, e.code.data(), e.code.size());
  }
  static base::Status Decode(BodyReader& in, uint64_t& timestamp, OprofileCodeLoadEvent& e) {
    OprofileCodeLoadRecord fixed{};
    std::optional<std::string_view> name;
    if (!in.ReadFixed(fixed) || !in.ReadString(fixed.name_size, name) || !name ||
        !in.ReadBytes(fixed.code_bytes, e.code)) {
      return Truncated(kType);
    }
    timestamp = fixed.timestamp;
    e.agent = fixed.agent;
    e.address = fixed.address;
    e.code_address = fixed.code_address;
    e.size = fixed.size;
    e.name = *name;
    return base::Status::Ok();
  }
};

template <>
struct Codec<OprofileDebugLinesEvent> {
  static constexpr RecordType kType = RecordType::kOprofileDebugLines;
  static std::optional<size_t> Size(const OprofileDebugLinesEvent& e) {
    if (e.lines.size() >= kAbsentString || e.files.ends.size() >= kAbsentString ||
        e.files.names.size() >= kAbsentString) {
      return std::nullopt;
    }
    return sizeof(OprofileDebugLinesRecord) + e.lines.size_bytes() + e.files.ends.size_bytes() +
           e.files.names.size();
  }
  static uint8_t* Encode(const OprofileDebugLinesEvent& e, uint64_t timestamp, uint8_t* out) {
    const OprofileDebugLinesRecord fixed{timestamp,
                                         e.code_address,
                                         e.address,
                                         e.size,
                                         e.agent,
                                         static_cast<uint32_t>(e.lines.size()),
                                         static_cast<uint32_t>(e.files.ends.size()),
                                         static_cast<uint32_t>(e.files.names.size()),
                                         0};
    out = Put(out, &fixed, sizeof(fixed));
    out = Put(out, e.lines.data(), e.lines.size_bytes());
    out = Put(out, e.files.ends.data(), e.files.ends.size_bytes());
    return Put(out, e.files.names.data(), e.files.names.size());
  }
  static base::Status Decode(BodyReader& in, uint64_t& timestamp, OprofileDebugLinesEvent& e) {
    OprofileDebugLinesRecord fixed{};
    std::optional<std::string_view> names;
    if (!in.ReadFixed(fixed) || !in.ReadArray(fixed.line_count, e.lines) ||
        !in.ReadArray(fixed.file_count, e.files.ends) || !in.ReadString(fixed.names_size, names) ||
        !names) {
      return Truncated(kType);
    }
    e.files.names = *names;
    // Every index and offset is checked here once, so FileTable::operator[] and consumers
    // that index files by an entry's `file` can trust them.
    uint32_t previous_end = 0;
    for (const uint32_t end : e.files.ends) {
      if (end < previous_end || end > names->size()) {
        return base::Status::Error("debug-lines record has an invalid file table");
      }
      previous_end = end;
    }
    for (const auto& entry : e.lines) {
      if (entry.file >= fixed.file_count) {
        return base::Status::Error("debug-lines record names file %u of %u", entry.file,
                                   fixed.file_count);
      }
    }
    timestamp = fixed.timestamp;
    e.agent = fixed.agent;
    e.code_address = fixed.code_address;
    e.address = fixed.address;
    e.size = fixed.size;
    return base::Status::Ok();
  }
};

template <>
struct Codec<OprofileUnloadEvent>
    : FixedCodec<OprofileUnloadEvent, OprofileUnloadRecord, RecordType::kOprofileUnload> {
  static OprofileUnloadRecord ToRecord(const OprofileUnloadEvent& e, uint64_t t) {
    return {t, e.address, e.size, e.agent};
  }
  static OprofileUnloadEvent FromRecord(const OprofileUnloadRecord& r) {
    return {r.agent, r.address, r.size};
  }
};

template <>
struct Codec<CodeBytesEvent> {
  static constexpr RecordType kType = RecordType::kCodeBytes;
  static std::optional<size_t> Size(const CodeBytesEvent& e) {
    if (!e.bytes.empty() && e.bytes.size() != e.size) return std::nullopt;
    return sizeof(CodeBytesRecord) + e.bytes.size();
  }
  static uint8_t* Encode(const CodeBytesEvent& e, uint64_t timestamp, uint8_t* out) {
    const CodeBytesRecord fixed{timestamp, e.address, e.size,
                                static_cast<uint32_t>(e.bytes.size())};
    return Put(Put(out, &fixed, sizeof(fixed)), e.bytes.data(), e.bytes.size());
  }
  static base::Status Decode(BodyReader& in, uint64_t& timestamp, CodeBytesEvent& e) {
    CodeBytesRecord fixed{};
    if (!in.ReadFixed(fixed) || !in.ReadBytes(fixed.byte_count, e.bytes)) return Truncated(kType);
    if (fixed.byte_count != 0 && fixed.byte_count != fixed.size) {
      return base::Status::Error("code-bytes record holds %u bytes of a %u-byte region",
                                 fixed.byte_count, fixed.size);
    }
    timestamp = fixed.timestamp;
    e.address = fixed.address;
    e.size = fixed.size;
    return base::Status::Ok();
  }
};

template <>
struct Codec<ChainLinkEvent> {
  static constexpr RecordType kType = RecordType::kChainLink;
  static std::optional<size_t> Size(const ChainLinkEvent& e) {
    if (e.previous_name.size() >= kAbsentString) return std::nullopt;
    return sizeof(ChainLinkRecord) + e.previous_name.size();
  }
  static uint8_t* Encode(const ChainLinkEvent& e, uint64_t timestamp, uint8_t* out) {
    const ChainLinkRecord fixed{timestamp, e.previous_size, e.sequence,
                                static_cast<uint32_t>(e.previous_name.size())};
    return PutString(Put(out, &fixed, sizeof(fixed)), e.previous_name);
  }
  static base::Status Decode(BodyReader& in, uint64_t& timestamp, ChainLinkEvent& e) {
    ChainLinkRecord fixed{};
    std::optional<std::string_view> name;
    if (!in.ReadFixed(fixed) || fixed.name_size == kAbsentString ||
        !in.ReadString(fixed.name_size, name)) {
      return Truncated(kType);
    }
    timestamp = fixed.timestamp;
    e = {fixed.sequence, fixed.previous_size, *name};
    return base::Status::Ok();
  }
};

template <>
struct Codec<SnapshotEndEvent>
    : FixedCodec<SnapshotEndEvent, SnapshotEndRecord, RecordType::kSnapshotEnd> {
  static SnapshotEndRecord ToRecord(const SnapshotEndEvent& e, uint64_t t) {
    return {t, e.records};
  }
  static SnapshotEndEvent FromRecord(const SnapshotEndRecord& r) { return {r.records}; }
};

// ---- The ITT API ----

// The records that are a number and the bytes of a name: a string (its number) and a thread's
// name (its tid). `kNumber` and `kText` are E's members; Fixed is {timestamp, number, size}.
template <typename E, typename Fixed, RecordType type, uint32_t E::*kNumber,
          std::string_view E::*kText>
struct TextCodec {
  static constexpr RecordType kType = type;
  static std::optional<size_t> Size(const E& e) {
    if ((e.*kText).size() >= kAbsentString) return std::nullopt;
    return sizeof(Fixed) + (e.*kText).size();
  }
  static uint8_t* Encode(const E& e, uint64_t timestamp, uint8_t* out) {
    const Fixed fixed{timestamp, e.*kNumber, static_cast<uint32_t>((e.*kText).size())};
    return Put(Put(out, &fixed, sizeof(fixed)), (e.*kText).data(), (e.*kText).size());
  }
  static base::Status Decode(BodyReader& in, uint64_t& timestamp, E& e) {
    Fixed fixed{};
    std::optional<std::string_view> text;
    if (!in.ReadFixed(fixed) || fixed.size == kAbsentString || !in.ReadString(fixed.size, text)) {
      return Truncated(kType);
    }
    const auto [time, number, size] = fixed;
    timestamp = time;
    e.*kNumber = number;
    e.*kText = *text;
    return base::Status::Ok();
  }
};

template <>
struct Codec<IttStringEvent> : TextCodec<IttStringEvent, IttStringRecord, RecordType::kIttString,
                                         &IttStringEvent::string, &IttStringEvent::text> {};

template <>
struct Codec<IttThreadNameEvent>
    : TextCodec<IttThreadNameEvent, IttThreadNameRecord, RecordType::kIttThreadName,
                &IttThreadNameEvent::tid, &IttThreadNameEvent::name> {};

// Kinds outside IttKind are damage: the collector writes only those.
base::Status CheckKind(RecordType type, uint32_t kind) {
  if (kind >= 1 && kind <= kMaxIttKind) return base::Status::Ok();
  return base::Status::Error("ITT record of type %u has an unknown kind %u",
                             static_cast<unsigned>(type), kind);
}

// The fixed-size ITT records with a kind, which is checked on reading.
template <typename E, typename Fixed, RecordType type>
struct KindCodec : FixedCodec<E, Fixed, type> {
  static base::Status Decode(BodyReader& in, uint64_t& timestamp, E& e) {
    Fixed fixed{};
    if (!in.ReadFixed(fixed)) return Truncated(type);
    RETURN_IF_ERROR(CheckKind(type, fixed.kind));
    timestamp = fixed.timestamp;
    e = Codec<E>::FromRecord(fixed);
    return base::Status::Ok();
  }
};

template <>
struct Codec<IttBeginEvent> : KindCodec<IttBeginEvent, IttBeginRecord, RecordType::kIttBegin> {
  static IttBeginRecord ToRecord(const IttBeginEvent& e, uint64_t t) {
    return {t, e.id, e.parent, e.function, e.domain, e.name, static_cast<uint32_t>(e.kind), 0};
  }
  static IttBeginEvent FromRecord(const IttBeginRecord& r) {
    return {static_cast<IttKind>(r.kind), r.domain, r.name, r.id, r.parent, r.function};
  }
};

template <>
struct Codec<IttEndEvent> : KindCodec<IttEndEvent, IttEndRecord, RecordType::kIttEnd> {
  static IttEndRecord ToRecord(const IttEndEvent& e, uint64_t t) {
    return {t, e.id, e.domain, static_cast<uint32_t>(e.kind)};
  }
  static IttEndEvent FromRecord(const IttEndRecord& r) {
    return {static_cast<IttKind>(r.kind), r.domain, r.id};
  }
};

template <>
struct Codec<IttMarkerEvent> : FixedCodec<IttMarkerEvent, IttMarkerRecord, RecordType::kIttMarker> {
  static IttMarkerRecord ToRecord(const IttMarkerEvent& e, uint64_t t) {
    return {t, e.id, e.domain, e.name, e.scope, 0};
  }
  static IttMarkerEvent FromRecord(const IttMarkerRecord& r) {
    return {r.domain, r.name, r.scope, r.id};
  }
};

template <>
struct Codec<IttCounterEvent>
    : FixedCodec<IttCounterEvent, IttCounterRecord, RecordType::kIttCounter> {
  static IttCounterRecord ToRecord(const IttCounterEvent& e, uint64_t t) {
    return {t, e.counter, e.name, e.domain, e.type};
  }
  static IttCounterEvent FromRecord(const IttCounterRecord& r) {
    return {r.counter, r.name, r.domain, r.type};
  }
};

template <>
struct Codec<IttCounterValueEvent>
    : FixedCodec<IttCounterValueEvent, IttCounterValueRecord, RecordType::kIttCounterValue> {
  static IttCounterValueRecord ToRecord(const IttCounterValueEvent& e, uint64_t t) {
    return {t, e.value, e.counter, 0};
  }
  static IttCounterValueEvent FromRecord(const IttCounterValueRecord& r) {
    return {r.counter, r.value};
  }
};

// Decodes a body of `type` as the Event alternative whose codec has that type.
template <typename... Events>
base::StatusOr<Record> DecodeAs(RecordType type, BodyReader& in,
                                std::type_identity<std::variant<Events...>>) {
  std::optional<base::StatusOr<Record>> decoded;
  auto try_one = [&]<typename E>(std::type_identity<E>) {
    if (Codec<E>::kType != type) return false;
    Record record;
    E event{};
    base::Status status = Codec<E>::Decode(in, record.timestamp, event);
    if (!status.ok()) {
      decoded = std::move(status);
    } else {
      record.event = std::move(event);
      decoded = std::move(record);
    }
    return true;
  };
  (try_one(std::type_identity<Events>{}) || ...);
  if (!decoded) {
    return base::Status::Error("unknown record type %u", static_cast<unsigned>(type));
  }
  return std::move(*decoded);
}

// Every record type from kFirstRecordType to kLastRecordType has exactly one codec.
template <typename... Events>
constexpr bool EachTypeHasOneCodec(std::type_identity<std::variant<Events...>>) {
  constexpr auto first = static_cast<unsigned>(kFirstRecordType);
  constexpr auto last = static_cast<unsigned>(kLastRecordType);
  for (unsigned type = first; type <= last; ++type) {
    const int codecs = ((static_cast<unsigned>(Codec<Events>::kType) == type ? 1 : 0) + ...);
    if (codecs != 1) return false;
  }
  return sizeof...(Events) == last - first + 1;
}
static_assert(EachTypeHasOneCodec(std::type_identity<Event>{}));

}  // namespace

size_t EncodedRecordSize(const Event& event) {
  return std::visit(
      [](const auto& e) -> size_t {
        const std::optional<size_t> body = Codec<std::decay_t<decltype(e)>>::Size(e);
        return body ? Finish(*body) : 0;
      },
      event);
}

RecordHeader EncodeRecordBody(const Event& event, uint64_t timestamp, uint8_t* out,
                              uint16_t flags) {
  const size_t body_size = EncodedRecordSize(event) - sizeof(RecordHeader);
  return std::visit(
      [&](const auto& e) {
        using Type = Codec<std::decay_t<decltype(e)>>;
        uint8_t* const end = Type::Encode(e, timestamp, out);
        // Zero the padding explicitly: the chunk may be reused memory in tests, and the file
        // must not carry stale bytes.
        std::memset(end, 0, body_size - static_cast<size_t>(end - out));
        return RecordHeader{static_cast<uint32_t>(sizeof(RecordHeader) + body_size),
                            static_cast<uint16_t>(Type::kType), flags};
      },
      event);
}

base::StatusOr<Record> DecodeRecordBody(RecordType type, std::span<const uint8_t> body) {
  BodyReader reader(body);
  return DecodeAs(type, reader, std::type_identity<Event>{});
}

}  // namespace jitscope::trace
