//===- ParallelRuntimeTest.cpp - Large loops on several threads -----------===//
//
// gj_parallel_for runs every element of its range once, in pieces whose
// boundaries are multiples of the alignment asked for; loops from several
// threads at once all complete (one uses the pool, the others run alone);
// and a child process after fork() runs its loops too.
//
//===----------------------------------------------------------------------===//
#include "runtime/ParallelRuntime.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <atomic>
#include <mutex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

struct Pieces {
  std::mutex Lock;
  std::vector<std::pair<int64_t, int64_t>> Ranges;
  static void record(void *Ctx, int64_t Begin, int64_t End) {
    auto *P = static_cast<Pieces *>(Ctx);
    std::lock_guard<std::mutex> G(P->Lock);
    P->Ranges.push_back({Begin, End});
  }
};

TEST(ParallelRuntime, PiecesCoverTheRangeOnce) {
  for (int64_t N : {1, 7, 64, 65, 1000, 100003})
    for (int64_t Align : {1, 8, 64}) {
      SCOPED_TRACE(std::to_string(N) + " by " + std::to_string(Align));
      Pieces P;
      gj_parallel_for(&Pieces::record, &P, N, Align);
      std::sort(P.Ranges.begin(), P.Ranges.end());
      ASSERT_FALSE(P.Ranges.empty());
      EXPECT_LE(P.Ranges.size(), graphjit::ParallelRuntime::threads());
      int64_t At = 0;
      for (auto [Begin, End] : P.Ranges) {
        EXPECT_EQ(Begin, At);
        EXPECT_LT(Begin, End);
        EXPECT_EQ(Begin % Align, 0);
        At = End;
      }
      EXPECT_EQ(At, N);
    }
  Pieces None;
  gj_parallel_for(&Pieces::record, &None, 0, 8);
  EXPECT_TRUE(None.Ranges.empty());
}

// Adds 1 to each element of a vector of N counters.
struct Counters {
  std::vector<std::atomic<int>> Values;
  explicit Counters(size_t N) : Values(N) {}
  static void bump(void *Ctx, int64_t Begin, int64_t End) {
    auto *C = static_cast<Counters *>(Ctx);
    for (int64_t I = Begin; I < End; ++I)
      C->Values[I].fetch_add(1, std::memory_order_relaxed);
  }
};

TEST(ParallelRuntime, LoopsFromSeveralThreadsAllComplete) {
  constexpr int Threads = 4, Loops = 200, N = 4099;
  std::vector<std::unique_ptr<Counters>> Each;
  for (int T = 0; T < Threads; ++T)
    Each.push_back(std::make_unique<Counters>(N));
  std::vector<std::thread> Callers;
  for (int T = 0; T < Threads; ++T)
    Callers.emplace_back([&, T] {
      for (int L = 0; L < Loops; ++L)
        gj_parallel_for(&Counters::bump, Each[T].get(), N, 64);
    });
  for (std::thread &C : Callers)
    C.join();
  for (int T = 0; T < Threads; ++T)
    for (int I = 0; I < N; ++I)
      ASSERT_EQ(Each[T]->Values[I].load(), Loops) << T << " " << I;
}

TEST(ParallelRuntime, AChildAfterForkRunsItsLoops) {
  Counters Before(1000);
  gj_parallel_for(&Counters::bump, &Before, 1000, 8); // The pool is up.
  pid_t Child = fork();
  ASSERT_GE(Child, 0);
  if (Child == 0) {
    alarm(20); // A hang (waiting on the parent's workers) fails the test.
    Counters C(5000);
    for (int L = 0; L < 10; ++L)
      gj_parallel_for(&Counters::bump, &C, 5000, 64);
    for (auto &V : C.Values)
      if (V.load() != 10)
        _exit(1);
    _exit(0);
  }
  int Status = 0;
  ASSERT_EQ(waitpid(Child, &Status, 0), Child);
  ASSERT_TRUE(WIFEXITED(Status)) << "the child did not exit (signal "
                                  << WTERMSIG(Status) << ")";
  EXPECT_EQ(WEXITSTATUS(Status), 0);
}

} // namespace
