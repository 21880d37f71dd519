/* Run by lli-14 -jit-kind=mcjit (tests/report/jit_unwind_e2e_test.cc): LLVM's JIT code, which
   keeps no frame pointer and whose unwind tables are not recorded, with one caller per function.
   The volatile sum keeps the loop from being folded away. It runs until it has used 0.4 s of CPU
   time, so a sampler takes as many samples on any machine. */
#include <time.h>

static volatile long sink;

__attribute__((noinline)) long leaf(long n) {
  unsigned long s = 0;
  for (long i = 0; i < n; ++i) {
    s += ((unsigned long)i * 7u) ^ (s >> 3);
    sink = (long)(s & 0xff);
  }
  return (long)(s & 0xffff);
}

__attribute__((noinline)) long middle(long n) { return leaf(n) + 1; }

int main(void) {
  long t = 0;
  const clock_t end = (clock_t)(0.4 * CLOCKS_PER_SEC);
  while (clock() < end) t += middle(3000000);
  return t == 0;
}
