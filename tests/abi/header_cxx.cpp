// The ABI header compiles as C++ too, and its structs are what the plugins expect.
#include "mfprio/mfprio.h"

#include <cstdio>

int main() {
  static_assert(sizeof(mfprio_ops_t) == MFPRIO_OPS_COUNT * sizeof(void (*)(void)),
                "mfprio_ops_t is one function pointer per MFPRIO_OPS_SYMBOLS entry");
  static_assert(sizeof(void*) != 8 || sizeof(mfprio_job_t) == 128,
                "a job record is two cache lines on LP64 hosts");
  const char* names[] = {MFPRIO_OPS_SYMBOLS};
  if (sizeof names / sizeof names[0] != MFPRIO_OPS_COUNT) {
    std::puts("MFPRIO_OPS_SYMBOLS and MFPRIO_OPS_COUNT disagree");
    return 1;
  }
  return 0;
}
