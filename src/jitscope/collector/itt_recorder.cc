// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/itt_recorder.h"

#include <bit>
#include <cstring>

namespace jitscope::collector::itt {
namespace {

trace::IttId ToTrace(const Id& id) { return {id.d1, id.d2}; }
trace::IttId ToTrace(const Id* id) { return id == nullptr ? trace::IttId{0, 0} : ToTrace(*id); }

template <typename T>
T Read(const void* value) {
  T read;
  std::memcpy(&read, value, sizeof(read));
  return read;
}

// An integer of `type` as the record stores it: unsigned ones zero-extended, signed ones
// sign-extended, both cut to the type's width.
uint64_t NormalizeInteger(int type, uint64_t bits) {
  switch (type) {
    case kMetadataU32:
      return static_cast<uint32_t>(bits);
    case kMetadataS32:
      return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(bits)));
    case kMetadataU16:
      return static_cast<uint16_t>(bits);
    case kMetadataS16:
      return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(bits)));
    default:
      return bits;
  }
}

bool IsFloating(int type) { return type == kMetadataFloat || type == kMetadataDouble; }

}  // namespace

uint64_t EncodeCounterValue(int type, const void* value) {
  switch (type) {
    case kMetadataS64:
      return static_cast<uint64_t>(Read<int64_t>(value));
    case kMetadataU32:
      return Read<uint32_t>(value);
    case kMetadataS32:
      return static_cast<uint64_t>(static_cast<int64_t>(Read<int32_t>(value)));
    case kMetadataU16:
      return Read<uint16_t>(value);
    case kMetadataS16:
      return static_cast<uint64_t>(static_cast<int64_t>(Read<int16_t>(value)));
    case kMetadataFloat:
      return std::bit_cast<uint64_t>(static_cast<double>(Read<float>(value)));
    case kMetadataDouble:
      return std::bit_cast<uint64_t>(Read<double>(value));
    default:  // u64, and unknown types, which the API counts in u64
      return Read<uint64_t>(value);
  }
}

uint64_t AddToCounterValue(int type, uint64_t encoded, int64_t delta) {
  if (IsFloating(type)) {
    return std::bit_cast<uint64_t>(std::bit_cast<double>(encoded) + static_cast<double>(delta));
  }
  return NormalizeInteger(type, encoded + static_cast<uint64_t>(delta));
}

Domain* Recorder::DomainCreate(const char* name) {
  trace::RejectReason refused = trace::RejectReason::kNone;
  Domain* domain = names_.CreateDomain(collector_, name, refused);
  if (domain == nullptr) collector_.Refuse(trace::kCallIttDomainCreate, refused);
  return domain;
}

StringHandle* Recorder::StringHandleCreate(const char* text) {
  trace::RejectReason refused = trace::RejectReason::kNone;
  StringHandle* handle = names_.CreateStringHandle(collector_, text, refused);
  if (handle == nullptr) collector_.Refuse(trace::kCallIttStringHandleCreate, refused);
  return handle;
}

void Recorder::ThreadSetName(const char* name) {
  if (name == nullptr) {
    collector_.Refuse(trace::kCallIttThreadSetName, trace::RejectReason::kNullName);
    return;
  }
  Write(trace::IttThreadNameEvent{collector_.ThreadId(), name});
}

uint32_t Recorder::DomainNumber(const Domain* domain, uint32_t call) {
  if (domain == nullptr) {
    collector_.Refuse(call, trace::RejectReason::kNullDomain);
    return 0;
  }
  const uint32_t number = names_.NumberOf(collector_, *domain);
  // A domain whose name is NULL, or past the limit of names: its calls are refused alike.
  if (number == 0) collector_.Refuse(call, trace::RejectReason::kNullDomain);
  return number;
}

void Recorder::Begin(trace::IttKind kind, uint32_t call, const Domain* domain, const Id& id,
                     const Id& parent, const StringHandle* name, uint64_t function) {
  const uint32_t domain_number = DomainNumber(domain, call);
  if (domain_number == 0) return;
  Write(trace::IttBeginEvent{kind, domain_number, NameNumber(name), ToTrace(id), ToTrace(parent),
                             function});
}

void Recorder::End(trace::IttKind kind, uint32_t call, const Domain* domain, const Id& id) {
  const uint32_t domain_number = DomainNumber(domain, call);
  if (domain_number == 0) return;
  Write(trace::IttEndEvent{kind, domain_number, ToTrace(id)});
}

void Recorder::FrameBegin(const Domain* domain, const Id* id) {
  const uint32_t domain_number = DomainNumber(domain, trace::kCallIttFrameBegin);
  if (domain_number == 0) return;
  Write(trace::IttBeginEvent{trace::IttKind::kFrame, domain_number, 0, ToTrace(id), {0, 0}, 0});
}

void Recorder::FrameEnd(const Domain* domain, const Id* id) {
  const uint32_t domain_number = DomainNumber(domain, trace::kCallIttFrameEnd);
  if (domain_number == 0) return;
  Write(trace::IttEndEvent{trace::IttKind::kFrame, domain_number, ToTrace(id)});
}

void Recorder::FrameSubmit(const Domain* domain, const Id* id, Timestamp begin, Timestamp end) {
  const uint32_t domain_number = DomainNumber(domain, trace::kCallIttFrameSubmit);
  if (domain_number == 0) return;
  const uint64_t now = collector_.Now();
  const uint32_t tid = collector_.ThreadId();
  const uint64_t began = begin == kNoTimestamp ? now : begin;
  const uint64_t ended = end == kNoTimestamp ? now : end;
  collector_.Timeline(
      trace::IttBeginEvent{trace::IttKind::kFrame, domain_number, 0, ToTrace(id), {0, 0}, 0}, began,
      tid);
  collector_.Timeline(trace::IttEndEvent{trace::IttKind::kFrame, domain_number, ToTrace(id)}, ended,
                      tid);
}

void Recorder::Marker(const Domain* domain, const Id& id, const StringHandle* name, int scope) {
  const uint32_t domain_number = DomainNumber(domain, trace::kCallIttMarker);
  if (domain_number == 0) return;
  Write(trace::IttMarkerEvent{domain_number, NameNumber(name), static_cast<uint32_t>(scope),
                              ToTrace(id)});
}

CounterInfo* Recorder::CounterCreate(const char* name, const char* domain, int type) {
  trace::RejectReason refused = trace::RejectReason::kNone;
  CounterInfo* counter = names_.CreateCounter(collector_, name, domain, type, refused);
  if (counter == nullptr) collector_.Refuse(trace::kCallIttCounterCreate, refused);
  return counter;
}

void Recorder::Add(CounterState& state, int64_t delta) {
  uint64_t value = state.value.load(std::memory_order_relaxed);
  uint64_t next = 0;
  do {
    next = AddToCounterValue(state.type, value, delta);
  } while (!state.value.compare_exchange_weak(value, next, std::memory_order_relaxed));
  Write(trace::IttCounterValueEvent{state.number, next});
}

void Recorder::CounterAdd(CounterInfo* counter, int64_t delta) {
  CounterState* state = counter == nullptr ? nullptr : names_.StateOf(collector_, *counter);
  if (state == nullptr) {
    collector_.Refuse(trace::kCallIttCounterChange, trace::RejectReason::kNullHandle);
    return;
  }
  Add(*state, delta);
}

void Recorder::CounterAdd(const Domain* domain, const StringHandle* name, int64_t delta) {
  const uint32_t domain_number = DomainNumber(domain, trace::kCallIttCounterChange);
  if (domain_number == 0) return;
  trace::RejectReason refused = trace::RejectReason::kNullHandle;
  CounterState* state = names_.StateOf(collector_, domain_number, NameNumber(name), refused);
  if (state == nullptr) {
    collector_.Refuse(trace::kCallIttCounterChange, refused);
    return;
  }
  Add(*state, delta);
}

void Recorder::CounterSet(CounterInfo* counter, const void* value) {
  CounterState* state = counter == nullptr ? nullptr : names_.StateOf(collector_, *counter);
  if (state == nullptr) {
    collector_.Refuse(trace::kCallIttCounterSetValue, trace::RejectReason::kNullHandle);
    return;
  }
  if (value == nullptr) {
    collector_.Refuse(trace::kCallIttCounterSetValue, trace::RejectReason::kNullPayload);
    return;
  }
  const uint64_t encoded = EncodeCounterValue(state->type, value);
  state->value.store(encoded, std::memory_order_relaxed);
  Write(trace::IttCounterValueEvent{state->number, encoded});
}

}  // namespace jitscope::collector::itt
