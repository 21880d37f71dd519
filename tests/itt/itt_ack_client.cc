// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The ITT API in the host-process fault runs (tests/support/ack_loop.h): threads begin and end
// overlapped tasks, id after id, through a static part (fake_static_part.h) wired to the collector
// INTEL_LIBITTNOTIFY64 names, and acknowledge each id on stdout once its end returned. The test
// (itt_e2e_test.cc) then finds both records of every acknowledged id in the trace.
//
//   itt_ack_client ack-loop [THREADS FAULT DELAY_US]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fake_static_part.h"
#include "support/ack_loop.h"

namespace {

FakeItt itt;

}  // namespace

int main(int argc, char** argv) {
  fake_itt_init(&itt, 0);
  if (fake_itt_load(&itt, std::getenv("INTEL_LIBITTNOTIFY64")) != 0) {
    std::fprintf(stderr, "itt_ack_client: no collector\n");
    return 2;
  }
  if (argc < 2 || std::string(argv[1]) != "ack-loop") return 1;
  FakeIttDomain* domain = itt.domain_create("ack");
  FakeIttHandle* name = itt.string_handle_create("acknowledged");
  if (domain == nullptr || name == nullptr || itt.task_begin_overlapped == nullptr) return 3;
  jitscope::test_support::AckLoop(argc - 2, argv + 2, [&](uint32_t id) {
    itt.task_begin_overlapped(domain, fake_itt_id(id, 0), fake_itt_null, name);
    itt.task_end_overlapped(domain, fake_itt_id(id, 0));
  });
}
