// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
#include "jitscope/disasm/decoder.h"

#include <gtest/gtest.h>
#include <xbyak/xbyak.h>

#include <string>
#include <vector>

#include "support/objdump.h"

namespace jitscope::disasm {
namespace {

using namespace Xbyak::util;  // NOLINT: register names, as xbyak code is written

std::vector<uint8_t> Bytes(const Xbyak::CodeGenerator& code) {
  return std::vector<uint8_t>(code.getCode(), code.getCode() + code.getSize());
}

using Line = test_support::ListedInstruction;

// Decodes `bytes` from start to end as one run of instructions; an undecodable byte ends it.
std::vector<Line> DecodeAll(const std::vector<uint8_t>& bytes, Syntax syntax, uint64_t base = 0) {
  const std::optional<Decoder> decoder = Decoder::Create(Mode::kX86_64);
  EXPECT_TRUE(decoder.has_value());
  std::vector<Line> lines;
  for (size_t offset = 0; offset < bytes.size();) {
    const auto instruction = decoder->Decode(std::span(bytes).subspan(offset), base + offset);
    if (!instruction) break;
    lines.push_back({offset, instruction->length, decoder->Format(*instruction, syntax)});
    offset += instruction->length;
  }
  return lines;
}

std::string Listing(const std::vector<Line>& lines) {
  std::string out;
  for (const Line& line : lines) {
    out += std::to_string(line.offset) + " " + std::to_string(line.length) + " " + line.text + "\n";
  }
  return out;
}

class Frame : public Xbyak::CodeGenerator {
 public:
  Frame() {
    Xbyak::Label done;
    push(rbp);
    mov(rbp, rsp);
    sub(rsp, 0x20);
    mov(qword[rbp - 8], rdi);
    mov(rax, ptr[rbx + rcx * 4 + 0x10]);
    and_(rsp, -64);
    test(eax, eax);
    jz(done);
    call(ptr[rax + 8]);
    vfmadd231ps(zmm3, zmm2, zmm1);
    vmovups(zmm0 | k1 | T_z, ptr[rsi + 0x40]);
    L(done);
    leave();
    ret();
  }
};

TEST(Decoder, FormatsAttLikeObjdump) {
  EXPECT_EQ(Listing(DecodeAll(Bytes(Frame()), Syntax::kAtt)),
            "0 1 push %rbp\n"
            "1 3 mov %rsp,%rbp\n"
            "4 4 sub $0x20,%rsp\n"
            "8 4 mov %rdi,-0x8(%rbp)\n"
            "12 5 mov 0x10(%rbx,%rcx,4),%rax\n"
            "17 4 and $0xffffffffffffffc0,%rsp\n"
            "21 2 test %eax,%eax\n"
            "23 2 jz 0x29\n"
            "25 3 call *0x8(%rax)\n"
            "28 6 vfmadd231ps %zmm1,%zmm2,%zmm3\n"
            "34 7 vmovupsz 0x40(%rsi),%zmm0{%k1}{z}\n"
            "41 1 leave\n"
            "42 1 ret\n");
}

TEST(Decoder, FormatsIntel) {
  EXPECT_EQ(Listing(DecodeAll(Bytes(Frame()), Syntax::kIntel, 0x1000)),
            "0 1 push rbp\n"
            "1 3 mov rbp,rsp\n"
            "4 4 sub rsp,0x20\n"
            "8 4 mov [rbp-0x8],rdi\n"
            "12 5 mov rax,[rbx+rcx*4+0x10]\n"
            "17 4 and rsp,0xffffffffffffffc0\n"
            "21 2 test eax,eax\n"
            "23 2 jz 0x1029\n"
            "25 3 call [rax+0x8]\n"
            "28 6 vfmadd231ps zmm3,zmm2,zmm1\n"
            "34 7 vmovups zmm0{k1}{z},zmmword ptr [rsi+0x40]\n"
            "41 1 leave\n"
            "42 1 ret\n");
}

TEST(Decoder, ClassifiesBranchesAndFindsDirectTargets) {
  class Branches : public Xbyak::CodeGenerator {
   public:
    Branches() {
      Xbyak::Label target;
      call(target);         // 0, 5 bytes
      jnz(target, T_NEAR);  // 5, 6 bytes
      jmp(target);          // 11, 2 bytes
      jmp(rax);             // 13
      ret();                // 15
      L(target);            // 16
      nop();
    }
  };
  const std::vector<uint8_t> bytes = Bytes(Branches());
  const std::optional<Decoder> decoder = Decoder::Create(Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());
  const uint64_t base = 0x7f0000001000;
  auto at = [&](size_t offset) {
    return *decoder->Decode(std::span(bytes).subspan(offset), base + offset);
  };
  const Instruction call_insn = at(0), jnz_insn = at(5), jmp_insn = at(11), indirect = at(13),
                    ret_insn = at(15), nop_insn = at(16);
  EXPECT_TRUE(call_insn.IsCall());
  EXPECT_EQ(call_insn.BranchTarget(), base + 16);
  EXPECT_TRUE(jnz_insn.IsJump());
  EXPECT_TRUE(jnz_insn.IsConditionalJump());
  EXPECT_EQ(jnz_insn.BranchTarget(), base + 16);
  EXPECT_TRUE(jmp_insn.IsJump());
  EXPECT_FALSE(jmp_insn.IsConditionalJump());
  EXPECT_EQ(jmp_insn.BranchTarget(), base + 16);
  EXPECT_TRUE(indirect.IsJump());
  EXPECT_EQ(indirect.BranchTarget(), std::nullopt);
  EXPECT_TRUE(ret_insn.IsReturn());
  EXPECT_EQ(ret_insn.BranchTarget(), std::nullopt);
  EXPECT_FALSE(nop_insn.IsCall() || nop_insn.IsJump() || nop_insn.IsReturn());
  EXPECT_EQ(nop_insn.End(), base + 17);
}

TEST(Decoder, UndecodableBytesGiveNothing) {
  const std::optional<Decoder> decoder = Decoder::Create(Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());
  // 0x06 (push %es) does not exist in 64-bit mode; 0xff /7 is no instruction at all.
  const uint8_t push_es[] = {0x06};
  const uint8_t invalid[] = {0xff, 0xff, 0x00, 0x00};
  EXPECT_FALSE(decoder->Decode(push_es, 0).has_value());
  EXPECT_FALSE(decoder->Decode(invalid, 0).has_value());
  EXPECT_FALSE(decoder->Decode({}, 0).has_value());
  // The same byte is an instruction of i386 code.
  const std::optional<Decoder> i386 = Decoder::Create(Mode::kI386);
  ASSERT_TRUE(i386.has_value());
  const auto instruction = i386->Decode(push_es, 0x8048000);
  ASSERT_TRUE(instruction.has_value());
  EXPECT_EQ(i386->Format(*instruction, Syntax::kAtt), "push %es");
}

TEST(Decoder, TruncatedInstructionGivesNothing) {
  class MovImm64 : public Xbyak::CodeGenerator {
   public:
    MovImm64() { mov(rax, 0x1122334455667788); }
  };
  const std::vector<uint8_t> bytes = Bytes(MovImm64());
  ASSERT_EQ(bytes.size(), 10u);
  const std::optional<Decoder> decoder = Decoder::Create(Mode::kX86_64);
  ASSERT_TRUE(decoder.has_value());
  EXPECT_FALSE(decoder->Decode(std::span(bytes).first(9), 0).has_value());
  const auto whole = decoder->Decode(bytes, 0);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->length, 10);
  EXPECT_EQ(decoder->Format(*whole, Syntax::kAtt), "mov $0x1122334455667788,%rax");
}

TEST(Decoder, DecodesI386) {
  const std::optional<Decoder> decoder = Decoder::Create(Mode::kI386);
  ASSERT_TRUE(decoder.has_value());
  // push %ebp; mov %esp,%ebp; mov 0x8(%ebp),%eax; call .+0x10; pop %ebp; ret
  const uint8_t code[] = {0x55, 0x89, 0xe5, 0x8b, 0x45, 0x08, 0xe8,
                          0x0b, 0x00, 0x00, 0x00, 0x5d, 0xc3};
  std::string listing;
  for (size_t offset = 0; offset < sizeof(code);) {
    const auto instruction = decoder->Decode(std::span(code).subspan(offset), 0x1000 + offset);
    ASSERT_TRUE(instruction.has_value()) << offset;
    listing += decoder->Format(*instruction, Syntax::kAtt) + "\n";
    offset += instruction->length;
  }
  EXPECT_EQ(listing, "push %ebp\nmov %esp,%ebp\nmov 0x8(%ebp),%eax\ncall 0x1016\npop %ebp\nret\n");
}

// A varied block: general-purpose, SSE, AVX, AVX-512 (masks, broadcast, zeroing), string and
// bit instructions, branches of every kind.
class Varied : public Xbyak::CodeGenerator {
 public:
  Varied() : Xbyak::CodeGenerator(8192) {
    Xbyak::Label back, forward;
    L(back);
    push(rbp);
    push(r15);
    mov(rbp, rsp);
    sub(rsp, 0x1000);
    and_(rsp, -32);
    mov(rax, ptr[rbx + rcx * 8 - 0x80]);
    mov(dword[rsp + 0x10], 0x12345678);
    mov(r9d, r10d);
    movzx(eax, byte[rsi]);
    movzx(ecx, word[rdi + 2]);
    movsx(rax, byte[rdx]);
    movsxd(rdx, dword[rax]);
    lea(r8, ptr[r9 + r10 * 2 + 0x7fffffff]);
    lea(rsi, ptr[rip + 0x40]);
    add(rax, 1);
    sub(r11, -100000);
    imul(rax, rbx, 10);
    imul(rcx, ptr[rdx]);
    xor_(eax, eax);
    or_(byte[rax], 0x80);
    shl(rax, 3);
    sar(edx, cl);
    rol(r12, 1);
    bsf(rax, rbx);
    popcnt(rcx, rdx);
    tzcnt(r8, r9);
    bt(rax, 5);
    cmp(qword[rbp - 16], 0);
    cmovl(rax, rdx);
    setne(al);
    cqo();
    cdq();
    idiv(rcx);
    neg(r13);
    not_(dword[rsi]);
    xchg(rax, rbx);
    lock();
    xadd(dword[rdi], eax);
    cmpxchg(ptr[rsi], rcx);
    rep();
    movsb();
    movss(xmm0, dword[rax]);
    movsd(xmm1, xmm2);
    addsd(xmm3, ptr[rip + 0x100]);
    cvtsi2sd(xmm4, rax);
    cvttsd2si(rax, xmm5);
    ucomisd(xmm6, xmm7);
    pxor(xmm8, xmm9);
    pshufd(xmm10, xmm11, 0x1b);
    movdqu(xmm12, ptr[r14 + 0x30]);
    vaddps(ymm1, ymm2, ptr[rdx + 0x20]);
    vmulpd(ymm3, ymm4, ymm5);
    vfmadd231ps(ymm6, ymm7, ptr[rax]);
    vbroadcastss(ymm8, dword[rdi]);
    vpermilps(ymm9, ymm10, 0x4e);
    vextractf128(xmm11, ymm12, 1);
    vzeroupper();
    vfmadd231ps(zmm3, zmm2, zmm1);
    vmovups(zmm0 | k1 | T_z, ptr[rsi + 0x40]);
    vmovups(ptr[rdi + 0x1000], zmm31);
    vpaddd(zmm5, zmm6, ptr_b[rax + 8]);
    vaddps(zmm7 | k2, zmm8, zmm9);
    vpcmpeqd(k3, zmm10, zmm11);
    vpbroadcastd(zmm12, eax);
    vgatherdps(zmm13 | k4, ptr[rax + zmm14 * 4]);
    vpternlogd(zmm15, zmm16, zmm17, 0x96);
    kmovw(k1, eax);
    kortestw(k1, k2);
    vcvtps2ph(ptr[rdx], zmm18, 0);
    vdpbf16ps(zmm19, zmm20, zmm21);
    vpdpbusd(zmm22, zmm23, zmm24);
    prefetcht0(ptr[rax + 0x200]);
    test(eax, eax);
    jz(forward, T_NEAR);
    jl(back);
    jmp(forward);
    call(back);
    call(ptr[rax + 8]);
    call(r11);
    jmp(qword[rip + 0x10]);
    L(forward);
    mov(rsp, rbp);
    pop(r15);
    pop(rbp);
    ret();
    int3();
    ud2();
  }
};

TEST(ObjdumpComparison, SameLengthsMnemonicsAndOperands) {
  const std::vector<uint8_t> bytes = Bytes(Varied());
  const auto objdump = test_support::ObjdumpListing(bytes);
  ASSERT_TRUE(objdump.ok()) << objdump.status().message();
  const std::vector<Line> ours = DecodeAll(bytes, Syntax::kAtt);
  ASSERT_FALSE(ours.empty());
  EXPECT_EQ(ours.back().offset + static_cast<uint64_t>(ours.back().length), bytes.size())
      << "decoding stopped early";
  // The same instruction boundaries: every offset we decode at is one objdump decodes at, and
  // the other way round.
  std::vector<uint64_t> our_offsets, objdump_offsets;
  for (const Line& line : ours) our_offsets.push_back(line.offset);
  for (const auto& [offset, instruction] : *objdump) objdump_offsets.push_back(offset);
  EXPECT_EQ(our_offsets, objdump_offsets);
  for (const std::string& difference : test_support::DifferencesFromObjdump(ours, *objdump)) {
    ADD_FAILURE() << difference;
  }
}

}  // namespace
}  // namespace jitscope::disasm
