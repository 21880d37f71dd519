// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target for the JVM table (formats/jvm_table.h) and what reads the parsed table: the
// naming of interpreter frames (symbolize/java_methods.h) at every method's Method*, and the
// inline scopes of compiled code imported into a symbol index and resolved at each debug pc.
#include <cstddef>
#include <cstdint>

#include "jitscope/formats/jvm_table.h"
#include "jitscope/symbolize/importers.h"
#include "jitscope/symbolize/index_builder.h"
#include "jitscope/symbolize/java_methods.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jitscope;
  auto parsed = formats::ParseJvmTable({data, size}, "jvm-1.jsm");
  if (!parsed.ok()) return 0;
  symbolize::JavaMethods methods;
  methods.Add(*parsed);
  symbolize::JavaMiss miss;
  for (const formats::JvmMethod& m : parsed->methods) {
    methods.Name(m.method, m.code_base + m.code_size / 2, m.since_ns, miss);
    methods.Name(m.method, 0, symbolize::kLatest, miss);
    methods.Name(m.method, m.code_base, m.until_ns, miss);
  }
  symbolize::IndexBuilder builder;
  symbolize::ImportJvmTable(*parsed, methods, builder);
  const symbolize::SymbolIndex index = std::move(builder).Build();
  symbolize::Resolution resolution;
  for (const formats::JvmCompiled& code : parsed->compiled) {
    for (const formats::JvmPc& pc : code.pcs) index.Resolve(pc.pc, code.time_ns, resolution);
  }
  return 0;
}
