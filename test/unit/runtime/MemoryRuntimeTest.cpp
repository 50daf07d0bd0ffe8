//===- MemoryRuntimeTest.cpp - Measured memory of profiled calls ----------===//
//
// The memory runtime counts exactly the buffers a recorded call makes and
// frees on its thread, charges them to the Apply running, ignores buffers
// made elsewhere, and merges threads; a Function compiled with
// ProfileMemory measures the peak its simulation predicts, with several
// threads calling it at once, for every linker.
//
//===----------------------------------------------------------------------===//

#include "graphjit/Function.h"
#include "graphjit/Parser.h"
#include "graphjit/ProfileStats.h"
#include "runtime/MemoryRuntime.h"
#include "gtest/gtest.h"
#include <thread>

using namespace graphjit;

namespace {

NDArray vectorOf(int64_t N) { return NDArray::zeros(DType::F64, {N}); }

TEST(MemoryRuntime, CountsTheCallsBuffersPerApply) {
  int Key;
  NDArray Before = vectorOf(100); // Made outside the call: never counted.
  NDArray Kept;
  gj_memory_state *S = MemoryRuntime::enter(&Key, 3);
  gj_memory_apply(S, 0);
  Kept = vectorOf(10);                  // 80 bytes, Apply 0
  gj_memory_apply(S, 1);
  { NDArray Scratch = vectorOf(20); }   // 160 bytes, Apply 1, freed
  Before = NDArray();                   // not the call's: live unchanged
  gj_memory_apply(S, -1);
  NDArray Driver = vectorOf(5);         // 40 bytes, no Apply's
  gj_memory_exit(S);
  NDArray After = vectorOf(1000);       // after the call: not counted

  MemoryTotals T = MemoryRuntime::totals(&Key);
  EXPECT_EQ(T.Calls, 1u);
  EXPECT_EQ(T.Peak, 80u + 160u); // Kept and Scratch at once; Driver after.
  EXPECT_EQ(T.Allocations, 3u);
  ASSERT_EQ(T.ApplyBytes.size(), 3u);
  EXPECT_EQ(T.ApplyBytes[0], 80u);
  EXPECT_EQ(T.ApplyBytes[1], 160u);
  EXPECT_EQ(T.ApplyBytes[2], 0u);
  EXPECT_EQ(T.ApplyAllocations[0], 1u);
  EXPECT_EQ(T.ApplyAllocations[1], 1u);
  MemoryRuntime::forget(&Key);
  EXPECT_EQ(MemoryRuntime::totals(&Key).Calls, 0u);
}

TEST(MemoryRuntime, PerApplyBytesAreTheLargestCall) {
  int Key;
  for (int64_t N : {10, 30, 20}) {
    gj_memory_state *S = MemoryRuntime::enter(&Key, 1);
    gj_memory_apply(S, 0);
    NDArray A = vectorOf(N);
    gj_memory_exit(S);
  }
  MemoryTotals T = MemoryRuntime::totals(&Key);
  EXPECT_EQ(T.Calls, 3u);
  EXPECT_EQ(T.Peak, 240u);
  EXPECT_EQ(T.ApplyBytes[0], 240u);
  EXPECT_EQ(T.ApplyAllocations[0], 3u);
  MemoryRuntime::forget(&Key);
}

TEST(MemoryRuntime, HooksCountOnlyInsideARecordedCall) {
  int Key;
  void *Outside = gj_memory_malloc(1000);
  gj_memory_state *S = MemoryRuntime::enter(&Key, 1);
  gj_memory_apply(S, 0);
  void *A = gj_memory_calloc(10, 10);
  void *B = gj_memory_realloc(A, 300); // 100 out, 300 in
  gj_memory_free(Outside);             // not this call's
  void *C = gj_memory_aligned_alloc(64, 128);
  gj_memory_free(C);
  gj_memory_exit(S);
  gj_memory_free(B);
  MemoryTotals T = MemoryRuntime::totals(&Key);
  EXPECT_EQ(T.Peak, 300u + 128u);
  EXPECT_EQ(T.Allocations, 3u);
  EXPECT_EQ(T.ApplyBytes[0], 100u + 300u + 128u);
  MemoryRuntime::forget(&Key);
}

TEST(MemoryRuntime, ThreadsAreMerged) {
  int Key;
  std::vector<std::thread> Pool;
  for (int64_t T = 1; T <= 4; ++T)
    Pool.emplace_back([&, T] {
      for (int I = 0; I < 50; ++I) {
        gj_memory_state *S = MemoryRuntime::enter(&Key, 1);
        gj_memory_apply(S, 0);
        NDArray A = vectorOf(T * 100);
        gj_memory_exit(S);
      }
    });
  for (std::thread &T : Pool)
    T.join();
  MemoryTotals T = MemoryRuntime::totals(&Key);
  EXPECT_EQ(T.Calls, 200u);
  EXPECT_EQ(T.Allocations, 200u);
  EXPECT_EQ(T.Peak, 3200u); // The largest thread's call.
  EXPECT_EQ(T.ApplyBytes[0], 3200u);
  MemoryRuntime::forget(&Key);
}

const char *Graph = R"(
func f(x: f64[n]) -> (r) {
  t = transpose(reshape(exp(x), shape=[4, -1]))
  r = sum(neg(t), axis=[0])
}
)";

using LinkerAndGC = std::tuple<LinkerKind, bool>;
class FunctionMemoryTest : public ::testing::TestWithParam<LinkerAndGC> {};

std::string linkerAndGCName(const ::testing::TestParamInfo<LinkerAndGC> &I) {
  static const char *Names[] = {"Py", "CPy", "C"};
  return std::string(Names[int(std::get<0>(I.param))]) +
         (std::get<1>(I.param) ? "_gc" : "_no_gc");
}

TEST_P(FunctionMemoryTest, MeasuredPeakIsTheSimulatedOne) {
  auto [Linker, GC] = GetParam();
  auto M = parseGraph(Graph, "memory.graph");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  CompileOptions O;
  O.Linker = Linker;
  O.ProfileMemory = true;
  O.AllowGC = GC;
  auto Fn = Function::compile(*(*M)->lookupFunction("f"), O);
  ASSERT_TRUE(bool(Fn)) << llvm::toString(Fn.takeError());
  constexpr int Threads = 4, Calls = 25;
  std::vector<std::thread> Pool;
  std::atomic<int> Failed{0};
  for (int T = 0; T < Threads; ++T)
    Pool.emplace_back([&, T] {
      // Each thread its own size: the largest is what the profile keeps.
      NDArray X = vectorOf(400 * (T + 1));
      for (int I = 0; I < Calls; ++I)
        if (!(*Fn)->call({X}))
          ++Failed;
    });
  for (std::thread &T : Pool)
    T.join();
  EXPECT_EQ(Failed, 0);

  FunctionProfile P = (*Fn)->profile()->profile().Functions.at(0);
  ASSERT_TRUE(P.Memory.Recorded);
  EXPECT_EQ(P.Memory.AllowGC, GC);
  EXPECT_EQ(P.Memory.Calls, uint64_t(Threads * Calls));
  // By hand, for the largest n, 1600: exp makes N = 12800 bytes; reshape
  // and transpose are views of it; neg makes N more; sum 4 doubles. With
  // gc, exp's buffer lives until neg has read the view of it.
  uint64_t N = 1600 * 8;
  uint64_t WantGC = 2 * N, WantNoGC = 2 * N + 32;
  MemorySimulation Sim = simulateMemory(P);
  EXPECT_EQ(Sim.GC, WantGC);
  EXPECT_EQ(Sim.NoGC, WantNoGC);
  EXPECT_EQ(P.Memory.MeasuredPeak, GC ? WantGC : WantNoGC);
  // Every created output allocated once per call, views nothing.
  for (const ApplyProfile &A : P.Applies) {
    bool View = A.OutputMem.at(0).Kind == "view";
    EXPECT_EQ(A.Allocations, View ? 0u : uint64_t(Threads * Calls)) << A.Name;
    EXPECT_EQ(A.AllocatedBytes, View ? 0u : A.OutputMem[0].Bytes) << A.Name;
    EXPECT_FALSE(A.OutputMem[0].Allocated) << A.Name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Linkers, FunctionMemoryTest,
    ::testing::Combine(::testing::Values(LinkerKind::Py, LinkerKind::CPy,
                                         LinkerKind::C),
                       ::testing::Bool()),
    linkerAndGCName);

} // namespace
