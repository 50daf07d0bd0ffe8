// Runs an instrumented @gj_driver ten times (the last call fails in Apply 1)
// and prints its counters, read through the runtime ABI only.
#include "graphjit/runtime/RuntimeABI.h"
#include <cinttypes>
#include <cstdio>

extern "C" int32_t gj_driver(int64_t *frame);
extern "C" const gj_profile_desc Desc __asm__("gj_driver.gj_profile");

int main() {
  int64_t Frame[2] = {0, 0};
  for (int I = 0; I < 10; ++I) {
    Frame[1] = I == 9;
    std::printf("call %d: %d\n", I, gj_driver(Frame));
  }
  // The calling thread's block: the one the driver updated.
  gj_apply_counter *C = gj_profile_enter(&Desc);
  std::printf("function %s: %" PRIu64 " calls, clock %u\n", Desc.function,
              C[-1].calls, Desc.clock);
  for (uint32_t I = 0; I < Desc.num_applies; ++I) {
    const gj_profile_apply &A = Desc.applies[I];
    std::printf("apply %d %s %s %s: %" PRIu64 " calls, ticks %s\n", A.id,
                A.name, A.loc, A.kind, C[A.id].calls,
                C[A.id].ticks > 0 ? "> 0" : "= 0");
  }
  return 0;
}
