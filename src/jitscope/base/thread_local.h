// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// JITSCOPE_THREAD_LOCAL declares a thread-local variable of code that runs inside the profiled
// process. The collector is dlopen()ed, so its thread-locals would otherwise use the dynamic TLS
// model: every access goes through __tls_get_addr, and LeakSanitizer (clang 14 with glibc 2.36)
// crashes scanning dlopen()ed dynamic TLS. The initial-exec model places them in the static TLS
// surplus glibc reserves for exactly this (a few hundred bytes; jitscope uses under 64).
#pragma once

#define JITSCOPE_THREAD_LOCAL __attribute__((tls_model("initial-exec"))) thread_local
