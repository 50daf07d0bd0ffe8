// Runs a memory-instrumented @gj_driver ten times and prints what the
// memory runtime measured for it.
#include "runtime/MemoryRuntime.h"
#include <cinttypes>
#include <cstdio>

extern "C" int32_t gj_driver(void **frame);
extern "C" const gj_profile_desc Desc __asm__("gj_driver.gj_profile");

int main() {
  void *Frame[1] = {nullptr};
  for (int I = 0; I < 10; ++I)
    gj_driver(Frame);
  graphjit::MemoryTotals T = graphjit::MemoryRuntime::totals(&Desc);
  std::printf("calls %" PRIu64 ", peak %" PRIu64 " bytes, %" PRIu64
              " allocations\n",
              T.Calls, T.Peak, T.Allocations);
  for (size_t A = 0; A < T.ApplyBytes.size(); ++A)
    std::printf("apply %zu: %" PRIu64 " bytes, %" PRIu64 " allocations\n", A,
                T.ApplyBytes[A], T.ApplyAllocations[A]);
  return 0;
}
