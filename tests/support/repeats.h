// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// How many times fewer a sanitized build repeats a test's many runs of one check.
#pragma once

namespace jitscope::test_support {

// Sanitized builds run the code several times slower. A test that repeats one check over many
// inputs or runs (random histories, faults at random moments, forks) repeats it a quarter as often
// there: a sanitizer finds its bugs in what each run makes the code do, which the first runs
// already cover; the plain build repeats them all, to find the rare case that loses something.
#ifdef JITSCOPE_SANITIZED_BUILD
inline constexpr int kRepeatDivisor = 4;
#else
inline constexpr int kRepeatDivisor = 1;
#endif

}  // namespace jitscope::test_support
