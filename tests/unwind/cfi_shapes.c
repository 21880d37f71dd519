/* Function shapes whose call-frame information a compiler writes, for the analysis of JIT code
   (derived_rules.h) to be checked against: lli-14 compiles this module as JIT code
   (llvm_cfi_test.cc) at several optimisation levels, with and without frame pointers. Every
   function runs once, briefly: only the code matters. */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

static volatile long sink;

/* Keeps a value alive across calls: callee-saved registers get saved and restored. */
__attribute__((noinline)) long opaque(long x) {
  sink = x;
  return sink;
}

/* Many values live across calls: every callee-saved register is pushed. */
__attribute__((noinline)) long many_live(long a, long b, long c, long d, long e, long f) {
  long s1 = opaque(a) * b, s2 = opaque(b) * c, s3 = opaque(c) * d;
  long s4 = opaque(d) * e, s5 = opaque(e) * f, s6 = opaque(f) * a;
  return opaque(s1 + s2) + opaque(s3 + s4) + opaque(s5 + s6) + s1 * s6 + s2 * s5 + s3 * s4;
}

/* A variable-length array: the frame needs a frame pointer, whatever the options. */
__attribute__((noinline)) long variable_frame(int n) {
  long values[n];
  for (int i = 0; i < n; ++i) values[i] = opaque(i);
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += values[i];
  return sum;
}

/* An over-aligned local: the stack pointer is realigned (and rsp, -64). */
__attribute__((noinline)) long aligned_frame(long x) {
  _Alignas(64) long block[16];
  for (int i = 0; i < 16; ++i) block[i] = x + i;
  opaque((long)(uintptr_t)block);
  long sum = 0;
  for (int i = 0; i < 16; ++i) sum += block[i];
  return sum;
}

/* A large frame, allocated by one sub and touched across a call. */
__attribute__((noinline)) long big_frame(long x) {
  char buffer[5000];
  memset(buffer, (int)x, sizeof buffer);
  opaque((long)(uintptr_t)buffer);
  return buffer[x & 1023] + buffer[4999];
}

/* Several exits, some before the frame is set up. */
__attribute__((noinline)) long several_exits(long x) {
  if (x < 0) return -1;
  if (x == 0) return 0;
  long y = opaque(x);
  if (y > 100) return y - opaque(y);
  for (long i = 0; i < x; ++i) y += opaque(i);
  return y;
}

/* Recursion. */
__attribute__((noinline)) long recursive(long n) {
  return n <= 1 ? opaque(n) : recursive(n - 1) + opaque(n);
}

/* A tail call and a switch. */
__attribute__((noinline)) long dispatch(int k, long x) {
  switch (k) {
    case 0:
      return opaque(x);
    case 1:
      return several_exits(x);
    case 2:
      return recursive(x & 7);
    case 3:
      return x * 3;
    default:
      return opaque(x + k);
  }
}

/* Variable arguments: the register save area. */
__attribute__((noinline)) long variadic(int count, ...) {
  va_list args;
  va_start(args, count);
  long sum = 0;
  for (int i = 0; i < count; ++i) sum += va_arg(args, long);
  va_end(args);
  return opaque(sum);
}

/* A leaf that never touches the stack. */
__attribute__((noinline)) long leaf_only(long x) { return x * 7 + 3; }

int main(void) {
  long t = many_live(1, 2, 3, 4, 5, 6) + variable_frame(9) + aligned_frame(3) + big_frame(5);
  for (int k = 0; k < 5; ++k) t += dispatch(k, 4);
  t += variadic(4, 1L, 2L, 3L, 4L) + leaf_only(t);
  return t == 42;
}
