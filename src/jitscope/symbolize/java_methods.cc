// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/symbolize/java_methods.h"

#include <algorithm>

#include "jitscope/symbolize/symbol_index.h"

namespace jitscope::symbolize {

const char* JavaMissName(JavaMiss miss) {
  switch (miss) {
    case JavaMiss::kUnknownMethod:
      return "Method* not in the JVM table";
    case JavaMiss::kBcpOutside:
      return "bytecode pointer outside its method";
  }
  return "?";
}

void JavaMethods::Add(const formats::ParsedJvmTable& table) {
  entries_.reserve(entries_.size() + table.methods.size());
  for (const formats::JvmMethod& method : table.methods) {
    std::string name;
    name.reserve(method.class_name.size() + 1 + method.name.size() + method.signature.size());
    name.append(method.class_name).append(".").append(method.name).append(method.signature);
    entries_.push_back(
        {method.method, method.since_ns, &method, static_cast<uint32_t>(names_.size())});
    names_.push_back(std::move(name));
  }
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return a.key != b.key ? a.key < b.key : a.since_ns < b.since_ns;
  });
}

std::optional<JavaMethod> JavaMethods::Find(uint64_t method, uint64_t time_ns) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), method,
                             [](uint64_t key, const Entry& e) { return key < e.key; });
  // The latest entry of the Method* that began by then; it names the frame only while it held.
  while (it != entries_.begin()) {
    --it;
    if (it->key != method) break;
    const formats::JvmMethod& m = *it->method;
    if (time_ns == kLatest) {
      if (m.until_ns == formats::kJvmForever) return JavaMethod{&m, names_[it->name]};
      continue;
    }
    if (m.since_ns > time_ns) continue;
    if (time_ns < m.until_ns) return JavaMethod{&m, names_[it->name]};
    break;  // the latest one that began by then had ended: the Method* held nothing known
  }
  return std::nullopt;
}

uint32_t JavaMethods::LineOf(const formats::JvmMethod& method, uint64_t bci) {
  uint32_t line = 0;
  uint64_t best = 0;
  bool found = false;
  // JVMTI gives the table in no promised order: the last entry starting at or before the index.
  for (const formats::JvmLine& entry : method.lines) {
    if (entry.start_bci <= bci && (!found || entry.start_bci >= best)) {
      best = entry.start_bci;
      line = entry.line;
      found = true;
    }
  }
  return line;
}

std::optional<JavaFrameName> JavaMethods::Name(uint64_t method, uint64_t bcp, uint64_t time_ns,
                                               JavaMiss& miss) const {
  const std::optional<JavaMethod> found = Find(method, time_ns);
  if (!found) {
    miss = JavaMiss::kUnknownMethod;
    return std::nullopt;
  }
  const formats::JvmMethod& m = *found->method;
  JavaFrameName name{found->name, m.file, 0};
  if (m.code_base == 0) return name;  // the agent could not say where its bytecodes are
  // A native method's frame holds no bcp (0), or while it runs its code base in r13.
  const bool inside = bcp >= m.code_base && bcp - m.code_base <= m.code_size;
  if (!inside && !(m.native && bcp == 0)) {
    miss = JavaMiss::kBcpOutside;
    return std::nullopt;
  }
  if (inside && bcp - m.code_base < m.code_size) name.line = LineOf(m, bcp - m.code_base);
  return name;
}

}  // namespace jitscope::symbolize
