// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Builds the bytes of a JVM table (src/jitscope/formats/jvm_table_format.h) record by record, as
// jitscope's JVMTI agent writes them, for tests of its reader and of what reads the parsed table.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/formats/jvm_table_format.h"

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
    Put(JITSCOPE_JVM_TABLE_MAGIC);
    Put(JITSCOPE_JVM_TABLE_VERSION);
    Put(uint32_t{sizeof(JitscopeJvmTableHeader)});
    Put(pid);
    Put(start_ns);
  }

  JvmTableBuilder& AddMethod(uint64_t time_ns, const Method& m) {
    const size_t at = Start(JITSCOPE_JVM_RECORD_METHOD, time_ns);
    Put(m.method);
    Put(m.code_base);
    Put(m.code_size);
    Put(m.native ? JITSCOPE_JVM_METHOD_NATIVE : 0u);
    for (const std::string* s : {&m.class_name, &m.name, &m.signature, &m.file}) {
      Put(static_cast<uint32_t>(s->size()));
    }
    Put(static_cast<uint32_t>(m.lines.size()));
    Put(uint32_t{0});
    for (auto [bci, line] : m.lines) {
      Put(bci);
      Put(line);
    }
    for (const std::string* s : {&m.class_name, &m.name, &m.signature, &m.file}) bytes_ += *s;
    return Finish(at);
  }

  JvmTableBuilder& AddEnd(uint64_t time_ns, uint64_t method, uint64_t valid_until_ns) {
    const size_t at = Start(JITSCOPE_JVM_RECORD_END, time_ns);
    Put(method);
    Put(valid_until_ns);
    return Finish(at);
  }

  JvmTableBuilder& AddCompiled(uint64_t time_ns, uint64_t address, uint32_t size,
                               const std::vector<Pc>& pcs) {
    const size_t at = Start(JITSCOPE_JVM_RECORD_COMPILED, time_ns);
    uint32_t frames = 0;
    for (const Pc& pc : pcs) frames += static_cast<uint32_t>(pc.frames.size());
    Put(address);
    Put(size);
    Put(static_cast<uint32_t>(pcs.size()));
    Put(frames);
    Put(uint32_t{0});
    uint32_t first = 0;
    for (const Pc& pc : pcs) {
      Put(pc.pc);
      Put(first);
      Put(static_cast<uint32_t>(pc.frames.size()));
      first += static_cast<uint32_t>(pc.frames.size());
    }
    for (const Pc& pc : pcs) {
      for (const Frame& frame : pc.frames) {
        Put(frame.method);
        Put(frame.bci);
        Put(uint32_t{0});
      }
    }
    return Finish(at);
  }

  const std::string& bytes() const { return bytes_; }

 private:
  template <typename T>
  void Put(T value) {
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof(value));
  }
  size_t Start(uint32_t type, uint64_t time_ns) {
    const size_t at = bytes_.size();
    Put(type);
    Put(uint32_t{0});
    Put(time_ns);
    return at;
  }
  JvmTableBuilder& Finish(size_t at) {
    bytes_.append((8 - bytes_.size() % 8) % 8, '\0');
    const auto size = static_cast<uint32_t>(bytes_.size() - at);
    std::memcpy(bytes_.data() + at + 4, &size, sizeof(size));
    return *this;
  }

  std::string bytes_;
};

}  // namespace jitscope::test_support
