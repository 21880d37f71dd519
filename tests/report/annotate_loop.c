/* Run by lli-14 -jit-kind=mcjit (tests/report/annotate_engines_e2e_test.cc), compiled with
   clang-14 -g -O0: `work` does nearly all the work, in the loop on the lines marked LOOP. The
   markers give the test its lines. It runs until it has used 0.6 s of CPU time, so a sampler
   takes as many samples on any machine. */
#include <stdio.h>
#include <time.h>

unsigned work(unsigned n) { /* FIRST */
  unsigned s = 1;
  for (unsigned i = 0; i < n; ++i) { /* LOOP */
    s = s * 31u + (i ^ (s >> 7));    /* LOOP */
  }
  return s;
} /* LAST */

int main(void) {
  unsigned total = 0;
  const clock_t end = (clock_t)(0.6 * CLOCKS_PER_SEC);
  while (clock() < end) total += work(10000000u);
  printf("%u\n", total);
  return 0;
}
