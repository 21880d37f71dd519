// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Builds the bytes of a JVM table (src/jitscope/formats/jvm_table_format.h) record by record, as
// jitscope's JVMTI agent writes them, field by field (support/byte_builder.h), for tests of its
// reader and of what reads the parsed table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/formats/jvm_table_format.h"
#include "support/byte_builder.h"

namespace jitscope::test_support {

class JvmTableBuilder {
 public:
  struct Method {
    uint64_t method = 0;
    uint64_t code_base = 0;
    uint32_t code_size = 0;
    bool native = false;
    std::string class_name, name, signature, file;
    std::vector<std::pair<uint32_t, uint32_t>> lines;  // (start bci, line)
  };
  struct Frame {
    uint64_t method = 0;
    int32_t bci = 0;
  };
  struct Pc {
    uint64_t pc = 0;
    std::vector<Frame> frames;  // innermost first
  };

  explicit JvmTableBuilder(uint32_t pid, uint64_t start_ns = 1000) {
    bytes_.U32(JITSCOPE_JVM_TABLE_MAGIC).U32(JITSCOPE_JVM_TABLE_VERSION).U32(24).U32(pid);
    bytes_.U64(start_ns);
  }

  JvmTableBuilder& AddMethod(uint64_t time_ns, const Method& m) {
    const size_t at = Start(JITSCOPE_JVM_RECORD_METHOD, time_ns);
    bytes_.U64(m.method).U64(m.code_base).U32(m.code_size);
    bytes_.U32(m.native ? JITSCOPE_JVM_METHOD_NATIVE : 0u);
    for (const std::string* s : {&m.class_name, &m.name, &m.signature, &m.file}) {
      bytes_.U32(static_cast<uint32_t>(s->size()));
    }
    bytes_.U32(static_cast<uint32_t>(m.lines.size())).U32(0);
    for (auto [bci, line] : m.lines) bytes_.U32(bci).U32(line);
    for (const std::string* s : {&m.class_name, &m.name, &m.signature, &m.file}) bytes_.Raw(*s);
    return Finish(at);
  }

  JvmTableBuilder& AddEnd(uint64_t time_ns, uint64_t method, uint64_t valid_until_ns) {
    const size_t at = Start(JITSCOPE_JVM_RECORD_END, time_ns);
    bytes_.U64(method).U64(valid_until_ns);
    return Finish(at);
  }

  JvmTableBuilder& AddCompiled(uint64_t time_ns, uint64_t address, uint32_t size,
                               const std::vector<Pc>& pcs) {
    const size_t at = Start(JITSCOPE_JVM_RECORD_COMPILED, time_ns);
    uint32_t frames = 0;
    for (const Pc& pc : pcs) frames += static_cast<uint32_t>(pc.frames.size());
    bytes_.U64(address).U32(size).U32(static_cast<uint32_t>(pcs.size())).U32(frames).U32(0);
    uint32_t first = 0;
    for (const Pc& pc : pcs) {
      bytes_.U64(pc.pc).U32(first).U32(static_cast<uint32_t>(pc.frames.size()));
      first += static_cast<uint32_t>(pc.frames.size());
    }
    for (const Pc& pc : pcs) {
      for (const Frame& frame : pc.frames) bytes_.U64(frame.method).Int(frame.bci).U32(0);
    }
    return Finish(at);
  }

  const std::string& bytes() const { return bytes_.str(); }

 private:
  // A record's header, its size patched in by Finish once the record is whole.
  size_t Start(uint32_t type, uint64_t time_ns) {
    const size_t at = bytes_.size();
    bytes_.U32(type).U32(0).U64(time_ns);
    return at;
  }
  JvmTableBuilder& Finish(size_t at) {
    bytes_.PadTo8();
    bytes_.PatchU32(at + 4, static_cast<uint32_t>(bytes_.size() - at));
    return *this;
  }

  ByteBuilder bytes_;
};

}  // namespace jitscope::test_support
