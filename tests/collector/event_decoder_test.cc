// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/collector/event_decoder.h"

#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "jitprofiling.h"

namespace jitscope::collector {
namespace {

using trace::RejectReason;

char code_bytes[64];
LineNumberInfo lines[] = {{1, 2}, {12, 4}};

iJIT_Method_Load ValidLoad() {
  iJIT_Method_Load m = {};
  m.method_id = 1;  // ids below 999 are accepted (Intel's current stub hands them out)
  m.method_name = const_cast<char*>("f");
  m.method_load_address = code_bytes;
  m.method_size = 16;
  m.line_number_size = 2;
  m.line_number_table = lines;
  return m;
}

std::optional<RejectReason> Rejection(uint32_t type, const void* payload) {
  trace::Event event;
  const RejectReason reason = DecodeEvent(type, payload, event);
  if (reason == RejectReason::kNone) return std::nullopt;
  return reason;
}

// Decodes an event that must be accepted.
trace::Event Accepted(uint32_t type, const void* payload) {
  trace::Event event;
  EXPECT_EQ(DecodeEvent(type, payload, event), RejectReason::kNone);
  return event;
}

TEST(EventDecoderTest, AcceptsAValidLoadAndKeepsEveryField) {
  iJIT_Method_Load m = ValidLoad();
  m.class_id = 9;
  m.class_file_name = const_cast<char*>("C");
  m.source_file_name = const_cast<char*>("f.js");
  trace::Event result = Accepted(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m);
  const auto& code = std::get<trace::CodeEvent>(result);
  EXPECT_EQ(code.api_event, 13u);
  EXPECT_EQ(code.method_id, 1u);
  EXPECT_EQ(code.address, reinterpret_cast<uintptr_t>(code_bytes));
  EXPECT_EQ(code.size, 16u);
  EXPECT_EQ(code.class_id, 9u);
  EXPECT_EQ(*code.name, "f");
  EXPECT_EQ(*code.class_file, "C");
  EXPECT_EQ(*code.source_file, "f.js");
  EXPECT_FALSE(code.module.has_value());
  ASSERT_EQ(code.lines.size(), 2u);
  EXPECT_EQ(code.lines[1].offset, 12u);
  EXPECT_EQ(code.lines[1].line, 4u);
}

TEST(EventDecoderTest, RejectsEachInvalidLoad) {
  struct Case {
    const char* what;
    void (*mutate)(iJIT_Method_Load&);
    RejectReason reason;
  };
  const Case cases[] = {
      {"id 0", [](iJIT_Method_Load& m) { m.method_id = 0; }, RejectReason::kZeroMethodId},
      {"NULL name", [](iJIT_Method_Load& m) { m.method_name = nullptr; }, RejectReason::kNullName},
      {"NULL address", [](iJIT_Method_Load& m) { m.method_load_address = nullptr; },
       RejectReason::kNullAddress},
      {"size 0", [](iJIT_Method_Load& m) { m.method_size = 0; }, RejectReason::kZeroSize},
      {"NULL table with entries", [](iJIT_Method_Load& m) { m.line_number_table = nullptr; },
       RejectReason::kNullLineTable},
  };
  for (const Case& c : cases) {
    iJIT_Method_Load m = ValidLoad();
    c.mutate(m);
    EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m), c.reason) << c.what;
  }
  iJIT_Method_Load m = ValidLoad();
  m.line_number_table = nullptr;
  m.line_number_size = 0;
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m), std::nullopt)
      << "a NULL table with no entries is an empty table";
}

TEST(EventDecoderTest, NullPayloadIsRejectedForEveryEventThatNeedsOne) {
  for (uint32_t type : {13u, 14u, 15u, 16u, 17u, 21u, 22u}) {
    EXPECT_EQ(Rejection(type, nullptr), RejectReason::kNullPayload) << "event " << type;
  }
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_SHUTDOWN, nullptr), std::nullopt);
}

TEST(EventDecoderTest, UnknownEventTypes) {
  iJIT_Method_Load m = ValidLoad();
  for (uint32_t type : {0u, 1u, 3u, 12u, 18u, 19u, 20u, 23u, 0xFFFFFFFFu}) {
    EXPECT_EQ(Rejection(type, &m), RejectReason::kUnknownEvent) << "event " << type;
  }
}

TEST(EventDecoderTest, UpdateNeedsOnlyIdAddressAndSize) {
  iJIT_Method_Load m = ValidLoad();
  m.method_name = nullptr;
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_UPDATE, &m), std::nullopt);
  m.method_size = 0;
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_UPDATE, &m), RejectReason::kZeroSize);
}

TEST(EventDecoderTest, V2AndV3CarryModuleAndArchitecture) {
  iJIT_Method_Load_V3 m = {};
  m.method_id = 5;
  m.method_name = const_cast<char*>("g");
  m.method_load_address = code_bytes;
  m.method_size = 8;
  m.module_name = const_cast<char*>("tier2");
  m.module_arch = iJIT_CA_64;
  trace::Event v3 = Accepted(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, &m);
  const auto& code = std::get<trace::CodeEvent>(v3);
  EXPECT_EQ(*code.module, "tier2");
  EXPECT_EQ(code.arch, 2u);
  trace::Event v2 = Accepted(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &m);
  const auto& code2 = std::get<trace::CodeEvent>(v2);
  EXPECT_EQ(*code2.module, "tier2");
  EXPECT_EQ(code2.arch, 0u) << "V2 has no architecture field";
}

TEST(EventDecoderTest, InlineNeedsItsParent) {
  iJIT_Method_Inline_Load m = {};
  m.method_id = 2000;
  m.parent_method_id = 0;
  m.method_name = const_cast<char*>("b");
  m.method_load_address = code_bytes;
  m.method_size = 4;
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &m),
            RejectReason::kZeroParentId);
  m.parent_method_id = 1000;
  trace::Event ok = Accepted(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &m);
  EXPECT_EQ(std::get<trace::CodeEvent>(ok).parent_method_id, 1000u);
  m.method_id = 0;
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &m),
            RejectReason::kZeroMethodId);
}

TEST(EventDecoderTest, UnloadReadsOnlyTheLeadingId) {
  const unsigned int bare_id = 77;  // LLVM MCJIT passes a bare unsigned int
  trace::Event result = Accepted(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &bare_id);
  EXPECT_EQ(std::get<trace::UnloadEvent>(result).method_id, 77u);
  const uint64_t orc_id = 78;  // LLVM ORC passes a uint64_t
  result = Accepted(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &orc_id);
  EXPECT_EQ(std::get<trace::UnloadEvent>(result).method_id, 78u);
  const unsigned int zero = 0;
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &zero), RejectReason::kZeroMethodId);
}

TEST(EventDecoderTest, UpdateV2) {
  iJIT_Method_Update u = {};
  u.load_address = code_bytes;
  u.size = 4;
  u.type = iJIT_CT_CODE;
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &u), std::nullopt);
  u.type = iJIT_CT_DATA;
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &u), RejectReason::kMissingDataFormat);
  u.data_format = "%d";
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &u), std::nullopt);
  u.size = 0;
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &u), RejectReason::kZeroSize);
  u.size = 4;
  u.load_address = nullptr;
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &u), RejectReason::kNullAddress);
}

// A C caller may store any number in an enum field; the decoder keeps the number as reported
// instead of loading it as the enum type, which is undefined behaviour for a value that is not an
// enumerator (UBSan's report of it was fuzz/event_fuzzer's first find).
TEST(EventDecoderTest, EnumFieldsOutsideTheirEnumeratorsAreKeptAsReported) {
  const uint32_t garbage = 0x45454545;
  iJIT_Method_Update u = {};
  u.load_address = code_bytes;
  u.size = 4;
  std::memcpy(&u.type, &garbage, sizeof(garbage));
  trace::Event update = Accepted(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &u);
  EXPECT_EQ(std::get<trace::RangeUpdateEvent>(update).segment_type, garbage);

  iJIT_Method_Load_V3 m = {};
  m.method_id = 5;
  m.method_name = const_cast<char*>("g");
  m.method_load_address = code_bytes;
  m.method_size = 8;
  std::memcpy(&m.module_arch, &garbage, sizeof(garbage));
  trace::Event load = Accepted(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V3, &m);
  EXPECT_EQ(std::get<trace::CodeEvent>(load).arch, garbage);
}

// Callers built with the legacy 80-byte struct: only the first nine fields are read, so the
// three trailing obsolete fields never matter.
TEST(EventDecoderTest, LegacyLayoutCallersWork) {
  struct LegacyLoad {
    iJIT_Method_Load current;
    void* user_data;
    unsigned int user_data_size;
    unsigned int env;
  } legacy{ValidLoad(), reinterpret_cast<void*>(0x1), 99, 2};
  static_assert(sizeof(LegacyLoad) == 80);
  EXPECT_EQ(Rejection(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &legacy), std::nullopt);
}

}  // namespace
}  // namespace jitscope::collector
