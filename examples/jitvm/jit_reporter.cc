// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jit_reporter.h"

#include <jitprofiling.h>

#include <cstddef>
#include <string>

namespace jitscope::jitvm {
namespace {

// LineEntry has LineNumberInfo's layout; the API takes a non-const pointer it never writes
// through (Intel's guide, "Lifetime of Allocated Data": it only copies).
static_assert(sizeof(LineEntry) == sizeof(LineNumberInfo));
static_assert(offsetof(LineNumberInfo, Offset) == offsetof(LineEntry, end_offset));
static_assert(offsetof(LineNumberInfo, LineNumber) == offsetof(LineEntry, line));

pLineNumberInfo Table(const std::vector<LineEntry>& lines) {
  return lines.empty() ? nullptr
                       : reinterpret_cast<pLineNumberInfo>(const_cast<LineEntry*>(lines.data()));
}

char* Text(const std::string& text) { return const_cast<char*>(text.c_str()); }
char* Text(const char* text) { return const_cast<char*>(text); }

void LoadV2(uint32_t id, const char* name, const std::string* source, const char* module,
            const uint8_t* address, uint32_t size, const std::vector<LineEntry>* lines) {
  iJIT_Method_Load_V2 load = {};
  load.method_id = id;
  load.method_name = Text(name);
  load.method_load_address = const_cast<uint8_t*>(address);
  load.method_size = size;
  if (lines != nullptr) {
    load.line_number_size = static_cast<unsigned int>(lines->size());
    load.line_number_table = Table(*lines);
  }
  load.source_file_name = source != nullptr ? Text(*source) : nullptr;
  load.module_name = Text(module);
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &load);
}

}  // namespace

JitReporter::JitReporter(bool use_api)
    : active_(use_api && iJIT_IsProfilingActive() == iJIT_SAMPLING_ON) {}

uint32_t JitReporter::NewMethodId() { return iJIT_GetNewMethodID(); }

uint32_t JitReporter::ReportMethod(const Program& program, const CompiledCode& code,
                                   const uint8_t* hot, const uint8_t* cold) {
  if (!active_) return 0;
  const uint32_t id = NewMethodId();
  const Function& function = program.functions[code.function];
  const char* module = code.tier == Tier::kBaseline ? kBaselineModule : kOptimizedModule;
  LoadV2(id, function.name.c_str(), &program.path, module, hot, code.hot_size, &code.hot_lines);
  if (code.cold_size != 0) {
    LoadV2(id, function.name.c_str(), &program.path, module, cold, code.cold_size,
           &code.cold_lines);
  }
  // Parents precede their children in `inlines`, so a child's parent id is always known.
  inline_ids_.clear();
  for (const InlineRegion& region : code.inlines) {
    const uint32_t inline_id = NewMethodId();
    inline_ids_.push_back(inline_id);
    iJIT_Method_Inline_Load load = {};
    load.method_id = inline_id;
    load.parent_method_id = region.parent < 0 ? id : inline_ids_[region.parent];
    load.method_name = Text(program.functions[region.function].name);
    load.method_load_address = const_cast<uint8_t*>(hot + region.start);
    load.method_size = region.end - region.start;
    load.line_number_size = static_cast<unsigned int>(region.lines.size());
    load.line_number_table = Table(region.lines);
    load.source_file_name = Text(program.path);
    iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &load);
  }
  return id;
}

uint32_t JitReporter::ReportStub(const char* name, const uint8_t* code, uint32_t size) {
  if (!active_) return 0;
  const uint32_t id = NewMethodId();
  LoadV2(id, name, nullptr, kStubModule, code, size, nullptr);
  return id;
}

void JitReporter::ReportUnload(uint32_t method_id) {
  if (!active_ || method_id == 0) return;
  // The payload is read only up to its leading method id (Intel's jitprofiling.h and guide);
  // iJIT_Method_Load is the struct the current header documents for this event.
  iJIT_Method_Load unload = {};
  unload.method_id = method_id;
  iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &unload);
}

void JitReporter::ReportShutdown() {
  if (active_) iJIT_NotifyEvent(iJVM_EVENT_TYPE_SHUTDOWN, nullptr);
}

}  // namespace jitscope::jitvm
