/* Run by lli-14 -jit-kind=mcjit (tests/report/annotate_engines_e2e_test.cc), compiled with
   clang-14 -g -O0: `work` does nearly all the work, in the loop on the lines marked LOOP. The
   markers give the test its lines. */
#include <stdio.h>

unsigned work(unsigned n) { /* FIRST */
  unsigned s = 1;
  for (unsigned i = 0; i < n; ++i) { /* LOOP */
    s = s * 31u + (i ^ (s >> 7));    /* LOOP */
  }
  return s;
} /* LAST */

int main(void) {
  unsigned total = 0;
  for (int round = 0; round < 30; ++round) total += work(10000000u);
  printf("%u\n", total);
  return 0;
}
