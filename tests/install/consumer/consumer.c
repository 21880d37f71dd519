/* Reports one method; prints what the API answered. */
#include <jitprofiling.h>
#include <stdio.h>

int main(void) {
  static unsigned char code[16];
  iJIT_Method_Load m = {0};
  m.method_id = iJIT_GetNewMethodID();
  m.method_name = (char*)"installed";
  m.method_load_address = code;
  m.method_size = sizeof code;
  printf("active=%d notify=%d\n", (int)iJIT_IsProfilingActive(),
         iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &m));
  return 0;
}
