// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the collector's intake: a sequence of iJIT_NotifyEvent calls built from
// the fuzz data over valid memory (the API cannot defend against wild pointers; everything else a
// JIT engine can pass is fair game): any event type, ids that collide and nest, NULL or arbitrary
// strings, line tables of any length, order and content. Each call goes through Collector::Notify
// (validation, the inline registry, rejection counting) into a sink that encodes every accepted
// record as the trace would, decodes it back and re-encodes it: the two encodings must be equal
// byte for byte, or the trace would not say what was reported.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "jitprofiling.h"
#include "jitscope/collector/collector.h"
#include "jitscope/trace/format.h"
#include "jitscope/trace/record_codec.h"

namespace jitscope::fuzz {
namespace {

using collector::EventSink;

// Encodes `event` into 8-byte aligned words; empty when the codec refuses its size.
std::vector<uint64_t> Encode(const trace::Event& event, uint64_t timestamp,
                             trace::RecordHeader& header) {
  const size_t size = trace::EncodedRecordSize(event);
  if (size == 0) return {};
  std::vector<uint64_t> body((size - sizeof(trace::RecordHeader)) / 8);
  header = trace::EncodeRecordBody(event, timestamp, reinterpret_cast<uint8_t*>(body.data()));
  return body;
}

class RoundTripSink : public EventSink {
 public:
  Result Write(const trace::Record& record) override {
    trace::RecordHeader header{};
    const auto first = Encode(record.event, record.timestamp, header);
    if (first.empty()) return Result::kTooLarge;
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(first.data()),
                                         first.size() * 8);
    auto decoded = trace::DecodeRecordBody(static_cast<trace::RecordType>(header.type), bytes);
    if (!decoded.ok()) __builtin_trap();  // the reader refuses what the writer wrote
    trace::RecordHeader again_header{};
    const auto again = Encode(decoded->event, decoded->timestamp, again_header);
    if (again != first || std::memcmp(&again_header, &header, sizeof(header)) != 0) {
      __builtin_trap();  // the record does not say what was reported
    }
    return Result::kOk;
  }
};

uint64_t FakeClock() {
  static uint64_t now = 0;
  return ++now;
}
uint32_t FakeThread() { return 1; }

// Everything the events of one input point at; a deque so pointers stay valid as it grows.
class Arena {
 public:
  explicit Arena(FuzzedDataProvider& data) : data_(data) {}

  char* MaybeString() {
    if (data_.ConsumeBool()) return nullptr;
    return strings_.emplace_back(data_.ConsumeRandomLengthString(48)).data();
  }

  // A line table and its length; sometimes a NULL table with entries (which must be refused).
  std::pair<LineNumberInfo*, unsigned> Lines() {
    const unsigned count = data_.ConsumeIntegralInRange<unsigned>(0, 12);
    if (data_.ConsumeProbability<float>() < 0.05f) return {nullptr, count};
    auto& table = tables_.emplace_back(count);
    for (auto& entry : table) {
      entry.Offset = data_.ConsumeIntegralInRange<unsigned>(0, 0x120);
      entry.LineNumber = data_.ConsumeIntegral<unsigned>();
    }
    return {table.data(), count};
  }

  // Small ranges, so ids, addresses and inline parents collide and nest.
  unsigned Id() { return data_.ConsumeIntegralInRange<unsigned>(0, 12); }
  void* Address() {
    return reinterpret_cast<void*>(uintptr_t{data_.ConsumeIntegralInRange<unsigned>(0, 0x400)} * 8);
  }
  unsigned Size() { return data_.ConsumeIntegralInRange<unsigned>(0, 0x100); }

 private:
  FuzzedDataProvider& data_;
  std::deque<std::string> strings_;
  std::deque<std::vector<LineNumberInfo>> tables_;
};

template <typename Load>
void FillLoad(Load& load, Arena& arena) {
  load.method_id = arena.Id();
  load.method_name = arena.MaybeString();
  load.method_load_address = arena.Address();
  load.method_size = arena.Size();
  auto [table, count] = arena.Lines();
  load.line_number_table = table;
  load.line_number_size = count;
  load.class_file_name = arena.MaybeString();
  load.source_file_name = arena.MaybeString();
}

}  // namespace
}  // namespace jitscope::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace jitscope;
  using namespace jitscope::fuzz;
  static const collector::Environment environment{FakeClock, FakeThread};
  std::vector<std::unique_ptr<EventSink>> sinks;
  sinks.push_back(std::make_unique<RoundTripSink>());
  auto collector = collector::Collector::CreateForTesting(
      std::move(sinks), collector::Log::Open("/dev/null"), environment);

  FuzzedDataProvider data(bytes, size);
  Arena arena(data);
  for (int event = 0; event < 64 && data.remaining_bytes() > 0; ++event) {
    const uint32_t type =
        data.ConsumeBool()
            ? data.PickValueInArray<uint32_t>(
                  {iJVM_EVENT_TYPE_SHUTDOWN, iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED,
                   iJVM_EVENT_TYPE_METHOD_UNLOAD_START, iJVM_EVENT_TYPE_METHOD_UPDATE,
                   iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, iJVM_EVENT_TYPE_METHOD_UPDATE_V2,
                   iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2,
                   iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3})
            : data.ConsumeIntegral<uint32_t>();
    // Every payload kind is built, so an event type paired with the "wrong" struct is
    // exercised too (the API names the struct by the type; the struct is what we have).
    iJIT_Method_Load load{};
    iJIT_Method_Load_V2 load_v2{};
    iJIT_Method_Load_V3 load_v3{};
    iJIT_Method_Inline_Load inline_load{};
    iJIT_Method_Update update{};
    const void* payload = nullptr;
    switch (type) {
      case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2:
        FillLoad(load_v2, arena);
        load_v2.module_name = arena.MaybeString();
        payload = &load_v2;
        break;
      case iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3:
        FillLoad(load_v3, arena);
        load_v3.module_name = arena.MaybeString();
        load_v3.module_arch = static_cast<iJIT_CodeArchitecture>(data.ConsumeIntegral<uint32_t>());
        payload = &load_v3;
        break;
      case iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED:
        FillLoad(inline_load, arena);
        inline_load.parent_method_id = arena.Id();
        payload = &inline_load;
        break;
      case iJVM_EVENT_TYPE_METHOD_UPDATE_V2:
        update.load_address = arena.Address();
        update.size = arena.Size();
        update.type = static_cast<iJIT_SegmentType>(data.ConsumeIntegral<uint32_t>());
        update.data_format = arena.MaybeString();
        payload = &update;
        break;
      default:
        FillLoad(load, arena);
        load.class_id = data.ConsumeIntegral<unsigned>();
        payload = &load;
        break;
    }
    if (data.ConsumeProbability<float>() < 0.03f) payload = nullptr;
    const int accepted = collector->Notify(type, payload);
    if (accepted != 0 && accepted != 1) __builtin_trap();
  }
  return 0;
}
