// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Names HotSpot's interpreter frames from a process's JVM tables (formats/jvm_table.h): the walk
// keeps each interpreter frame's Method* slot and bytecode pointer (unwind/hotspot_interpreter.h),
// raw words of a stack copy, and this turns them into "pkg.Class.method(signature)", its source
// file and line, or into nothing:
//  - the Method* must be one the table says held a method at the sample's time (not ended by
//    then: a Method* freed and reused may hold another method);
//  - where the table knows the method's bytecodes, the bcp must point into them (a native
//    method's frame holds 0, or its code base while it runs), which also says the line: the
//    bytecode index is the bcp less the code base, and the line that of the last line-table
//    entry starting at or before it.
// A frame that fails is unnamed (the report shows `Interpreter`), and counted by why.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jitscope/formats/jvm_table.h"

namespace jitscope::symbolize {

struct JavaFrameName {
  std::string_view name;  // "pkg.Class.method(signature)"
  std::string_view file;  // "pkg/Class.java"; "" when not known
  uint32_t line = 0;      // 0 when not known
};

// Why an interpreter frame was not named.
enum class JavaMiss : uint8_t {
  kUnknownMethod,  // no method held the Method* at the time (or no table at all)
  kBcpOutside,     // the bcp is not inside the method's bytecodes
};
inline constexpr size_t kJavaMissCount = 2;
const char* JavaMissName(JavaMiss miss);

// A method of the tables, with its display name.
struct JavaMethod {
  const formats::JvmMethod* method = nullptr;
  std::string_view name;  // "pkg.Class.method(signature)"
};

// Read-only once built: safe to query from any number of threads.
class JavaMethods {
 public:
  // The methods of one table (of the process whose frames are named). The table must outlive
  // this object.
  void Add(const formats::ParsedJvmTable& table);
  bool empty() const { return entries_.empty(); }

  // The method `method` held at `time_ns` (symbolize::kLatest: the latest one it still holds).
  std::optional<JavaMethod> Find(uint64_t method, uint64_t time_ns) const;
  // The frame's name; nullopt, with `miss` set, when it cannot be named.
  std::optional<JavaFrameName> Name(uint64_t method, uint64_t bcp, uint64_t time_ns,
                                    JavaMiss& miss) const;
  // The line of bytecode index `bci` in `method`; 0 when its table has none.
  static uint32_t LineOf(const formats::JvmMethod& method, uint64_t bci);

 private:
  struct Entry {
    uint64_t key;  // the Method*
    uint64_t since_ns;
    const formats::JvmMethod* method;
    uint32_t name;  // index into names_
  };
  std::vector<Entry> entries_;  // by (key, since_ns)
  std::vector<std::string> names_;
};

}  // namespace jitscope::symbolize
