/* Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
 *
 * What a JIT engine does with the unwind tables of its code, for frame_registration_test.cc: it
 * builds an .eh_frame for a piece of "code" (a buffer), hands it to libgcc with
 * __register_frame, has libgcc find it (_Unwind_Find_FDE, as an exception thrown through the
 * code would), forks a child that registers a table of its own, and deregisters its table, after
 * which libgcc finds none. Prints "parent PID child PID eh ADDR eh2 ADDR code ADDR" and exits 0
 * when libgcc saw each call, 1 when it did not. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void __register_frame(void* begin);
void __deregister_frame(void* begin);
const void* _Unwind_Find_FDE(void* pc, void* bases);

static unsigned char code[64];

/* A CIE ("zR", FDE pointers pc-relative sdata4, CFA = rsp + 8) and one FDE for code[0, 64),
 * then the terminator. */
static size_t BuildEhFrame(unsigned char* eh) {
  static const unsigned char cie[] = {
      0x14, 0,    0,    0,  /* length */
      0,    0,    0,    0,  /* CIE id */
      1,    'z',  'R',  0,  /* version, augmentation */
      1,    0x78, 0x10,     /* code alignment 1, data alignment -8, return address register 16 */
      1,    0x1b,           /* augmentation data: pointer encoding pcrel|sdata4 */
      0x0c, 7,    8,        /* DW_CFA_def_cfa rsp+8 */
      0x90, 1,    0,    0}; /* DW_CFA_offset r16 at cfa-8, padding */
  memcpy(eh, cie, sizeof(cie));
  size_t at = sizeof(cie);
  const uint32_t fde_length = 4 + 4 + 4 + 1 + 3;
  const uint32_t cie_pointer = (uint32_t)(at + 4);
  memcpy(eh + at, &fde_length, 4);
  memcpy(eh + at + 4, &cie_pointer, 4);
  const int32_t begin = (int32_t)((intptr_t)code - (intptr_t)(eh + at + 8));
  const uint32_t length = sizeof(code);
  memcpy(eh + at + 8, &begin, 4);
  memcpy(eh + at + 12, &length, 4);
  memset(eh + at + 16, 0, 4); /* augmentation data length 0, padding */
  at += 4 + fde_length;
  memset(eh + at, 0, 4); /* terminator */
  return at + 4;
}

int main(void) {
  static unsigned char eh[64] __attribute__((aligned(8)));
  static unsigned char eh2[64] __attribute__((aligned(8)));
  void* bases[3];
  BuildEhFrame(eh);
  __register_frame(eh);
  if (_Unwind_Find_FDE(code + 8, bases) == NULL) return 1;

  fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    BuildEhFrame(eh2);
    __register_frame(eh2);
    _exit(_Unwind_Find_FDE(code + 8, bases) == NULL ? 1 : 0);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    return 1;
  }
  __deregister_frame(eh);
  if (_Unwind_Find_FDE(code + 8, bases) != NULL) return 1;
  printf("parent %d child %d eh %p eh2 %p code %p\n", (int)getpid(), (int)child, (void*)eh,
         (void*)eh2, (void*)code);
  return 0;
}
