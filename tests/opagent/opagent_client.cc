// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A JIT client for the OProfile agent's host-process fault tests (faults_test.cc): it reports
// through libopagent.so.1, linked as an engine links it. Modes:
//   ack-loop [THREADS FAULT DELAY_US]
//                one handle, shared by THREADS (default 2) threads; for each id a thread writes
//                16 bytes of code at BASE + 64 * id and reports them as "m<id>" there
//                (op_write_native_code, the code pointer being the address, as JVMTI agents
//                do), their line table (op_write_debug_line_info: lines id and id + 1), and for
//                every fourth id their unload (op_unload_native_code); once all of that id's
//                calls returned 0 it writes the id (4 bytes) to stdout. DELAY_US microseconds
//                into reporting the process ends by FAULT (tests/support/ack_loop.h): kill (the
//                parent SIGKILLs it), segv, abort, exit (_exit without op_close_agent), exec
//                (into `after-exec`)
//   after-exec   what `exec` runs: opens its own handle, reports m1000000..m1000009 (no lines) the
//                same way, closes the handle and exits 0
// Each mode first prints "MODE code at BASE\n" to stderr (BASE in hex; the tests need it, and it
// differs from run to run). A call that fails ends the client with exit code 3 and the call and
// errno on stderr.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../support/ack_loop.h"
#include "opagent.h"

namespace {

// The code of every method, a real mapping: jitscope's jitdump sink copies the bytes at each
// reported address, as perf needs them. 64 MiB, reserved but touched only where code is written:
// room for ids up to about a million (a run reports a few thousand; after-exec's are 1000000+).
constexpr size_t kCodeSpace = size_t{64} << 20;
constexpr uint64_t kSlot = 64;
const uint8_t kCode[16] = {0x55, 0x48, 0x89, 0xe5, 0x90, 0x90, 0x90, 0x90,
                           0x90, 0x90, 0x90, 0x90, 0x90, 0x5d, 0xc3, 0x00};

uint8_t* MapCodeSpace(const char* mode) {
  void* p = mmap(nullptr, kCodeSpace, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("mmap");
    std::_Exit(1);
  }
  std::fprintf(stderr, "%s code at %#llx\n", mode,
               static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p)));
  return static_cast<uint8_t*>(p);
}

// Where "m<id>" is (keep in step with faults_test.cc); ids never share an address.
uint8_t* CodeOf(uint8_t* space, uint32_t id) {
  if ((id + 1) * kSlot > kCodeSpace) {
    std::fprintf(stderr, "id %u is beyond the code space\n", id);
    std::_Exit(5);
  }
  return space + id * kSlot;
}

void Check(int result, const char* call, uint32_t id) {
  if (result == 0) return;
  std::fprintf(stderr, "%s for id %u failed: %s\n", call, id, std::strerror(errno));
  std::_Exit(3);
}

op_agent_t Open() {
  op_agent_t agent = op_open_agent();
  if (agent == nullptr) {
    std::fprintf(stderr, "op_open_agent failed: %s\n", std::strerror(errno));
    std::_Exit(3);
  }
  return agent;
}

// Writes m<id>'s code and reports it; returns its address.
uint8_t* Load(op_agent_t agent, uint8_t* space, uint32_t id) {
  uint8_t* code = CodeOf(space, id);
  std::memcpy(code, kCode, sizeof(kCode));
  const std::string name = "m" + std::to_string(id);
  Check(op_write_native_code(agent, name.c_str(), reinterpret_cast<uintptr_t>(code), code,
                             sizeof(kCode)),
        "op_write_native_code", id);
  return code;
}

void Report(op_agent_t agent, uint8_t* space, uint32_t id) {
  uint8_t* code = Load(agent, space, id);
  const auto vma = static_cast<unsigned long>(reinterpret_cast<uintptr_t>(code));
  const struct debug_line_info lines[] = {{vma, id, "M.java"}, {vma + 8, id + 1, "M.java"}};
  Check(op_write_debug_line_info(agent, code, 2, lines), "op_write_debug_line_info", id);
  if (id % 4 == 0) Check(op_unload_native_code(agent, vma), "op_unload_native_code", id);
}

int AfterExec() {
  uint8_t* space = MapCodeSpace("after-exec");
  op_agent_t agent = Open();
  for (uint32_t id = 1000000; id < 1000010; ++id) Load(agent, space, id);
  Check(op_close_agent(agent), "op_close_agent", 0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Whatever happens to the test that started it, this client never outlives two minutes.
  alarm(120);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "ack-loop") {
    uint8_t* space = MapCodeSpace("ack-loop");
    op_agent_t agent = Open();
    jitscope::test_support::AckLoop(argc - 2, argv + 2,
                                    [agent, space](uint32_t id) { Report(agent, space, id); });
  }
  if (mode == "after-exec") return AfterExec();
  std::fprintf(stderr, "usage: opagent_client ack-loop [THREADS FAULT DELAY_US] | after-exec\n");
  return 2;
}
