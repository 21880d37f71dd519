// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "stubs.h"

#include <cstring>
#include <vector>

#include <xbyak/xbyak.h>

namespace jitscope::jitvm {
namespace {

using namespace Xbyak::util;  // NOLINT: register names read like assembly

constexpr int kPreservedXmms = 8;  // xmm8-xmm15

// 8 bytes per register: jitvm keeps only scalar doubles in them.
void EmitGate(Xbyak::CodeGenerator& a, bool frame_pointers) {
  if (frame_pointers) {
    a.push(rbp);
    a.mov(rbp, rsp);
    // rsp stays 16-aligned: it was 8 mod 16 at entry, `push rbp` made it 0, and 64 keeps it.
    a.sub(rsp, 8 * kPreservedXmms);
  } else {
    a.sub(rsp, 8 * kPreservedXmms + 8);  // 8 mod 16 at entry, 0 after this
  }
  for (int i = 0; i < kPreservedXmms; ++i) a.movsd(a.qword[rsp + 8 * i], Xbyak::Xmm(8 + i));
  // The fourth argument: this frame, where stack walks start (codegen.h RuntimeFunction).
  if (frame_pointers) {
    a.mov(rcx, rbp);
  } else {
    a.lea(rcx, a.ptr[rsp + 8 * kPreservedXmms + 8]);  // the return address into JIT code
  }
  a.call(r10);
  for (int i = 0; i < kPreservedXmms; ++i) a.movsd(Xbyak::Xmm(8 + i), a.qword[rsp + 8 * i]);
  if (frame_pointers) {
    a.mov(rsp, rbp);
    a.pop(rbp);
  } else {
    a.add(rsp, 8 * kPreservedXmms + 8);
  }
  a.ret();
}

void EmitLazyCompile(Xbyak::CodeGenerator& a, void* vm, RuntimeFunction compile,
                     const uint8_t* gate, bool frame_pointers) {
  static const Xbyak::Reg64 kArgs[] = {rdi, rsi, rdx, rcx, r8, r9};
  if (frame_pointers) {
    a.push(rbp);
    a.mov(rbp, rsp);
  }
  for (const auto& reg : kArgs) a.push(reg);
  // rsp was 8 mod 16 at entry: `push rbp` and six pushes, or six pushes and 8 more, align it.
  if (!frame_pointers) a.sub(rsp, 8);
  a.mov(rdi, reinterpret_cast<uint64_t>(vm));
  a.mov(rsi, r11);  // &entries[f], left by the caller's call sequence
  a.xor_(edx, edx);
  a.mov(r10, reinterpret_cast<uint64_t>(compile));
  a.mov(r11, reinterpret_cast<uint64_t>(gate));
  a.call(r11);
  if (!frame_pointers) a.add(rsp, 8);
  for (int i = 5; i >= 0; --i) a.pop(kArgs[i]);
  if (frame_pointers) a.pop(rbp);
  a.jmp(rax);  // the new code, entered as if it had been called directly
}

template <typename Emit>
base::StatusOr<StubCode> Place(CodeHeap& heap, const char* name, Emit emit) {
  std::vector<uint8_t> buffer(4096);
  Xbyak::CodeGenerator a(buffer.size(), buffer.data());
  emit(a);
  if (const int error = Xbyak::GetError(); error != 0) {
    return base::Status::Error("cannot emit the %s stub: %s", name,
                               Xbyak::ConvertErrorToString(error));
  }
  StubCode stub;
  stub.size = static_cast<uint32_t>(a.getSize());
  ASSIGN_OR_RETURN(stub.code, heap.Allocate(stub.size));
  std::memcpy(stub.code, a.getCode(), stub.size);
  return stub;
}

}  // namespace

base::StatusOr<Stubs> EmitStubs(CodeHeap& heap, void* vm, RuntimeFunction compile_on_first_call,
                                bool frame_pointers) {
  Xbyak::ClearError();
  Stubs stubs;
  ASSIGN_OR_RETURN(stubs.gate, Place(heap, "runtime gate", [&](Xbyak::CodeGenerator& a) {
                     EmitGate(a, frame_pointers);
                   }));
  ASSIGN_OR_RETURN(stubs.lazy_compile, Place(heap, "lazy compile", [&](Xbyak::CodeGenerator& a) {
                     EmitLazyCompile(a, vm, compile_on_first_call, stubs.gate.code, frame_pointers);
                   }));
  return stubs;
}

}  // namespace jitscope::jitvm
