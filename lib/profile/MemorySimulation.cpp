//===- profile/MemorySimulation.cpp - A function's memory replayed --------===//
//
// simulateMemory(): the buffers of a function's Applies replayed from the
// profile, as Theano's summary_memory does: the peak without gc, the peak
// with gc in the schedule's order, and the smallest peak any valid order
// could reach, found exactly by a search over the sets of Applies already
// run (the memory live after a set of Applies depends on the set only).
//
//===----------------------------------------------------------------------===//
#include "graphjit/Profile.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <chrono>
#include <numeric>
#include <unordered_map>

using namespace llvm;

namespace graphjit {

namespace {

/// The search's state, the set of Applies run, is one 64-bit mask.
constexpr size_t MaxSearchApplies = 64;
constexpr uint64_t Unreachable = UINT64_MAX;

/// The function as the simulation sees it: Applies in schedule order, the
/// variables they make, and the buffers those variables share. Variables no
/// Apply makes (inputs, constants, shared variables) are not in it: they
/// occupy no memory of the call.
struct MemoryGraph {
  struct Step {
    uint64_t Created = 0;           ///< Bytes of the buffers it allocates.
    SmallVector<unsigned, 4> Reads; ///< Variables it reads, once each.
    SmallVector<unsigned, 2> Makes; ///< Variables it makes.
    uint64_t Needs = 0; ///< Steps that must run first (with <= 64 steps).
    unsigned ApplyId = 0;
  };
  struct Var {
    int Buffer = -1; ///< -1: no buffer (a view of a function input).
    unsigned Readers = 0;
    bool Kept = false;
  };
  std::vector<Step> Steps;
  std::vector<Var> Vars;
  std::vector<uint64_t> BufferBytes;
  /// Variables sharing each buffer; it is freed when all are released.
  std::vector<unsigned> BufferSharers;

  explicit MemoryGraph(const FunctionProfile &F);
};

bool allocates(const OutputMemory &O) {
  return O.Allocated || (O.Kind != "view" && O.Kind != "inplace");
}

MemoryGraph::MemoryGraph(const FunctionProfile &F) {
  std::vector<const ApplyProfile *> Order;
  for (const ApplyProfile &A : F.Applies)
    Order.push_back(&A);
  llvm::stable_sort(Order, [](const ApplyProfile *L, const ApplyProfile *R) {
    return L->Id < R->Id;
  });
  Steps.resize(Order.size());
  for (size_t P = 0; P < Order.size(); ++P)
    Steps[P].ApplyId = Order[P]->Id;

  // Every variable an Apply makes, with the step that makes it (the first,
  // should a malformed profile name one twice).
  std::unordered_map<int, unsigned> VarIndex;
  std::vector<unsigned> MadeBy;
  std::vector<const OutputMemory *> MadeAs;
  for (size_t P = 0; P < Order.size(); ++P)
    for (const OutputMemory &O : Order[P]->OutputMem)
      if (VarIndex.emplace(O.Var, Vars.size()).second) {
        Steps[P].Makes.push_back(Vars.size());
        Vars.emplace_back();
        MadeBy.push_back(unsigned(P));
        MadeAs.push_back(&O);
      }
  // A variable made at step P is only read by later steps; reads of one made
  // later (a profile out of order) are ignored rather than simulated wrong.
  auto MadeBefore = [&](int Id, size_t P) -> int {
    auto It = VarIndex.find(Id);
    if (It == VarIndex.end() || MadeBy[It->second] >= P)
      return -1;
    return int(It->second);
  };

  for (size_t P = 0; P < Order.size(); ++P) {
    const ApplyProfile &A = *Order[P];
    Step &S = Steps[P];
    for (unsigned Made : S.Makes) {
      const OutputMemory &O = *MadeAs[Made];
      Var &V = Vars[Made];
      if (allocates(O)) {
        V.Buffer = int(BufferBytes.size());
        BufferBytes.push_back(O.Bytes);
        BufferSharers.push_back(0);
        S.Created += O.Bytes;
      } else if (O.Input >= 0 && size_t(O.Input) < A.InputVars.size()) {
        int Base = MadeBefore(A.InputVars[O.Input], P);
        if (Base >= 0)
          V.Buffer = Vars[Base].Buffer;
      }
      if (V.Buffer >= 0)
        ++BufferSharers[V.Buffer];
    }
    for (int Id : A.InputVars) {
      int V = MadeBefore(Id, P);
      if (V < 0 || is_contained(S.Reads, unsigned(V)))
        continue;
      S.Reads.push_back(unsigned(V));
      ++Vars[V].Readers;
      if (Order.size() <= MaxSearchApplies)
        S.Needs |= uint64_t(1) << MadeBy[V];
    }
  }
  // An in-place output overwrites its input: the input's other readers run
  // before it, in any valid order (as they do in the schedule).
  if (Order.size() <= MaxSearchApplies) {
    std::unordered_map<int, uint64_t> ReadBy; // Variable id -> steps.
    for (size_t P = 0; P < Order.size(); ++P)
      for (int Id : Order[P]->InputVars)
        ReadBy[Id] |= uint64_t(1) << P;
    for (size_t P = 0; P < Order.size(); ++P) {
      const ApplyProfile &A = *Order[P];
      uint64_t Earlier = (uint64_t(1) << P) - 1;
      for (const OutputMemory &O : A.OutputMem)
        if (O.Kind == "inplace" && O.Input >= 0 &&
            size_t(O.Input) < A.InputVars.size())
          Steps[P].Needs |= ReadBy[A.InputVars[O.Input]] & Earlier;
    }
  }
  for (int Id : F.Memory.KeptVars) {
    auto It = VarIndex.find(Id);
    if (It != VarIndex.end())
      Vars[It->second].Kept = true;
  }
}

/// The running memory of a partial run, stepped forward and back: a
/// variable is released once its last reader ran (at once if nobody reads
/// it) unless kept, and a buffer is freed once all its sharers are.
class MemoryReplay {
public:
  explicit MemoryReplay(const MemoryGraph &G)
      : G(G), Unread(G.Vars.size()), Live(G.BufferSharers) {
    for (size_t V = 0; V < G.Vars.size(); ++V)
      Unread[V] = G.Vars[V].Readers;
  }

  /// Runs step P; returns the memory at that moment: its outputs
  /// allocated, nothing freed yet.
  uint64_t run(unsigned P) {
    const MemoryGraph::Step &S = G.Steps[P];
    Running += S.Created;
    uint64_t Moment = Running;
    for (unsigned V : S.Reads)
      if (--Unread[V] == 0)
        release(V);
    for (unsigned V : S.Makes)
      if (Unread[V] == 0)
        release(V);
    return Moment;
  }

  /// Undoes run(P), the last step run.
  void undo(unsigned P) {
    const MemoryGraph::Step &S = G.Steps[P];
    for (unsigned V : S.Makes)
      if (Unread[V] == 0)
        unrelease(V);
    for (unsigned V : S.Reads)
      if (Unread[V]++ == 0)
        unrelease(V);
    Running -= S.Created;
  }

  uint64_t running() const { return Running; }

private:
  const MemoryGraph &G;
  std::vector<unsigned> Unread; ///< Readers of each variable still to run.
  std::vector<unsigned> Live;   ///< Unreleased sharers of each buffer.
  uint64_t Running = 0;

  void release(unsigned V) {
    int B = G.Vars[V].Buffer;
    if (G.Vars[V].Kept || B < 0)
      return;
    if (--Live[B] == 0)
      Running -= G.BufferBytes[B];
  }
  void unrelease(unsigned V) {
    int B = G.Vars[V].Buffer;
    if (G.Vars[V].Kept || B < 0)
      return;
    if (Live[B]++ == 0)
      Running += G.BufferBytes[B];
  }
};

/// The exact minimum of the gc peak over every valid order: f(Done), the
/// smallest peak reachable after the set Done, memoised.
class MinPeakSearch {
public:
  MinPeakSearch(const MemoryGraph &G, uint64_t MaxStates)
      : G(G), Replay(G), MaxStates(MaxStates),
        All(G.Steps.size() == 64 ? ~uint64_t(0)
                                 : (uint64_t(1) << G.Steps.size()) - 1) {}

  uint64_t run() { return best(0); }
  bool stopped() const { return Stopped; }

private:
  const MemoryGraph &G;
  MemoryReplay Replay;
  uint64_t MaxStates;
  uint64_t All;
  uint64_t Visited = 0;
  bool Stopped = false;
  std::unordered_map<uint64_t, uint64_t> Memo;

  /// No order from Done peaks below this: every step left allocates its
  /// outputs at some moment, and the next one adds to what is live now.
  /// Reaching it ends the search of Done early, exactly.
  uint64_t floor(uint64_t Done) const {
    uint64_t Largest = 0, NextSmallest = Unreachable;
    for (unsigned P = 0; P < G.Steps.size(); ++P) {
      if (Done & (uint64_t(1) << P))
        continue;
      Largest = std::max(Largest, G.Steps[P].Created);
      if (!(G.Steps[P].Needs & ~Done))
        NextSmallest = std::min(NextSmallest, G.Steps[P].Created);
    }
    if (NextSmallest == Unreachable) // Never: the first step left can run.
      return Largest;
    return std::max(Largest, Replay.running() + NextSmallest);
  }

  uint64_t best(uint64_t Done) {
    if (Done == All)
      return 0;
    auto It = Memo.find(Done);
    if (It != Memo.end())
      return It->second;
    if (++Visited > MaxStates) {
      Stopped = true;
      return Unreachable;
    }
    uint64_t Floor = floor(Done);
    uint64_t Best = Unreachable;
    for (unsigned P = 0; P < G.Steps.size() && Best > Floor; ++P) {
      uint64_t Bit = uint64_t(1) << P;
      if ((Done & Bit) || (G.Steps[P].Needs & ~Done))
        continue;
      uint64_t Moment = Replay.run(P);
      // A step whose own moment is no better than the best cannot improve
      // it: skipping it keeps f(Done) exact.
      if (Moment < Best)
        Best = std::min(Best, std::max(Moment, best(Done | Bit)));
      Replay.undo(P);
      if (Stopped)
        return Unreachable;
    }
    Memo.emplace(Done, Best);
    return Best;
  }
};

} // namespace

MemorySimulation simulateMemory(const FunctionProfile &F,
                                uint64_t MaxSearchStates) {
  MemorySimulation Sim;
  if (!F.Memory.Recorded)
    return Sim;
  MemoryGraph G(F);
  // Without gc nothing is freed during the call: every buffer adds up.
  Sim.NoGC =
      std::accumulate(G.BufferBytes.begin(), G.BufferBytes.end(), uint64_t(0));
  MemoryReplay Schedule(G);
  for (unsigned P = 0; P < G.Steps.size(); ++P) {
    uint64_t Moment = Schedule.run(P);
    Sim.GCSteps.push_back({G.Steps[P].ApplyId, Moment});
    Sim.GC = std::max(Sim.GC, Moment);
  }

  size_t N = G.Steps.size();
  if (N > MaxSearchApplies) {
    Sim.MinPeakSkipped = std::to_string(N) +
                         " Apply nodes; the exact search is limited to " +
                         std::to_string(MaxSearchApplies);
    return Sim;
  }
  if (MaxSearchStates == 0) {
    Sim.MinPeakSkipped = "not searched";
    return Sim;
  }
  auto Start = std::chrono::steady_clock::now();
  MinPeakSearch Search(G, MaxSearchStates);
  uint64_t Min = Search.run();
  Sim.MinPeakSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  // The schedule's order is always valid (steps only wait for earlier
  // ones), so a search that did not stop found a minimum.
  if (Search.stopped()) {
    Sim.MinPeakSkipped = "the exact search stopped after " +
                         std::to_string(MaxSearchStates) + " states";
    return Sim;
  }
  Sim.MinPeak = Min;
  Sim.MinPeakExact = true;
  return Sim;
}

} // namespace graphjit
