//===- SpareLeaseTest.cpp - Each thread keeps its own spare ---------------===//

#include "link/call/SpareLease.h"
#include <gtest/gtest.h>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

using namespace graphjit;

namespace {

struct Scratch {
  void clear() {}
};

/// Runs the steps of several threads in the order of their numbers.
class Turns {
public:
  template <typename StepT> void at(int N, StepT Step) {
    std::unique_lock<std::mutex> Lock(M);
    Cv.wait(Lock, [&] { return Next == N; });
    Step();
    ++Next;
    Cv.notify_all();
  }

private:
  std::mutex M;
  std::condition_variable Cv;
  int Next = 0;
};

} // namespace

using Lease = std::optional<SpareLease<Scratch>>;

// Two chains lease at once, give back (the first first), and lease again
// (the second first): each gets its own spare back. Taking from the first
// full slot handed the second chain the first's spare, so every call of
// both chains went through one slot's cache line.
TEST(SpareLease, EachThreadGetsItsOwnSpareBack) {
  SpareSlots<Scratch> Slots;
  Turns T;
  Scratch *Held[2], *Again[2];
  auto Chain = [&](int K, int Take, int Give, int Retake) {
    Lease L;
    auto Make = [] { return new Scratch; };
    T.at(Take, [&] { Held[K] = &*L.emplace(Slots, Make); });
    T.at(Give, [&] { L.reset(); });
    T.at(Retake, [&] { Again[K] = &*L.emplace(Slots, Make); });
  };
  std::thread A(Chain, 0, 0, 2, 5), B(Chain, 1, 1, 3, 4);
  A.join();
  B.join();
  ASSERT_NE(Held[0], Held[1]);
  EXPECT_EQ(Again[0], Held[0]);
  EXPECT_EQ(Again[1], Held[1]);
  SpareLease<Scratch>::release(Slots);
}

TEST(SpareLease, SlotsHaveACacheLineEach) {
  SpareSlots<Scratch> Slots;
  auto Line = [&](size_t K) {
    return reinterpret_cast<uintptr_t>(&Slots[K].Held) / 64;
  };
  for (size_t K = 1; K < Slots.size(); ++K)
    EXPECT_NE(Line(K), Line(K - 1));
}
