/* Reports one method through the installed libopagent.so.1; prints what the API answered. */
#include <opagent.h>
#include <stdio.h>

int main(void) {
  static unsigned char code[16];
  const uint64_t vma = (uint64_t)(uintptr_t)code;
  struct debug_line_info line = {(unsigned long)(uintptr_t)code, 3, "installed.c"};
  op_agent_t agent = op_open_agent();
  int load, lines, close;
  if (agent == NULL) {
    perror("op_open_agent");
    return 1;
  }
  load = op_write_native_code(agent, "installed", vma, code, sizeof code);
  lines = op_write_debug_line_info(agent, code, 1, &line);
  close = op_close_agent(agent);
  printf("load=%d lines=%d close=%d\n", load, lines, close);
  return 0;
}
