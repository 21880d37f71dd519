// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// A thread_local recursion guard for code injected into other people's processes (after
// heaptrack's): a host that calls back into our library from inside one of our own calls (a
// signal handler, an allocator hook that reports JIT code) must not re-enter it on the same
// thread, where it would deadlock on our lock or recurse without end.
#pragma once

namespace jitscope::base {

// Usage: `thread_local bool inside = false;` … `ReentryGuard guard(inside);
// if (!guard.entered()) return <refusal>;`
class ReentryGuard {
 public:
  explicit ReentryGuard(bool& inside) : inside_(inside), entered_(!inside) { inside = true; }
  ~ReentryGuard() {
    if (entered_) inside_ = false;
  }
  ReentryGuard(const ReentryGuard&) = delete;
  ReentryGuard& operator=(const ReentryGuard&) = delete;

  // False when this thread was already inside: the caller must refuse the call.
  bool entered() const { return entered_; }

 private:
  bool& inside_;
  bool entered_;
};

}  // namespace jitscope::base
