//===- Pipeline.cpp - Phases of rewrites run to a fixed point ------------===//

#include "Pipeline.h"
#include <chrono>
#include <deque>

using namespace graphjit;
using namespace graphjit::rewrite;

namespace {

double secondsSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
      .count();
}

/// One phase's run over the graph.
class PhaseRunner {
public:
  PhaseRunner(RewriteGraph &G, const Phase &P, std::vector<RewriteStat *> Stats)
      : G(G), P(P), Stats(std::move(Stats)) {}

  llvm::Error run(RewritePhaseStat &PS);

private:
  RewriteGraph &G;
  const Phase &P;
  /// The stat of each rewrite of the phase, in the phase's order.
  std::vector<RewriteStat *> Stats;
  std::deque<RNode *> Work;
  std::vector<RNode *> Touched;

  void push(RNode *N) {
    if (N->Dead || N->Queued)
      return;
    N->Queued = true;
    Work.push_back(N);
  }
  /// Offers N to rewrite R; true if it applied.
  llvm::Expected<bool> offer(RNode &N, NodeRewrite &R, RewriteStat &S);
};

} // namespace

llvm::Expected<bool> PhaseRunner::offer(RNode &N, NodeRewrite &R,
                                        RewriteStat &S) {
  unsigned Mark = G.numNodesMade();
  auto T0 = std::chrono::steady_clock::now();
  llvm::Expected<std::vector<Replacement>> Reps = R.apply(G, N);
  S.Seconds += secondsSince(T0);
  auto DropUnusedNew = [&] {
    for (unsigned I = Mark; I < G.numNodesMade(); ++I)
      G.removeIfUnused(G.nodes()[I].get());
  };
  if (!Reps) {
    DropUnusedNew();
    return llvm::createStringError("rewrite '" + R.name() + "' failed on " +
                                   describeNode(N) + ": " +
                                   llvm::toString(Reps.takeError()));
  }
  if (Reps->empty()) {
    DropUnusedNew();
    return false;
  }
  for (const Replacement &Rep : *Reps)
    if (Rep.Old->Type != Rep.New->Type) {
      DropUnusedNew();
      return llvm::createStringError(
          "rewrite '" + R.name() + "' replaced a value of type " +
          Rep.Old->Type.str() + " by one of type " + Rep.New->Type.str() +
          " at " + describeNode(N));
    }

  // What it made stands for what N stood for, and for what the rewrite
  // says it took in besides (the Applies a fusion absorbed).
  for (unsigned I = Mark; I < G.numNodesMade(); ++I) {
    RNode *New = G.nodes()[I].get();
    std::vector<SourceLoc> Locs =
        N.Locs.empty() ? std::vector<SourceLoc>{N.Loc} : N.Locs;
    for (const SourceLoc &L : New->Locs)
      if (llvm::none_of(Locs, [&](const SourceLoc &K) { return sameLoc(K, L); }))
        Locs.push_back(L);
    std::vector<std::string> MadeBy = N.MadeBy;
    for (const std::string &M : New->MadeBy)
      if (!llvm::is_contained(MadeBy, M))
        MadeBy.push_back(M);
    if (!llvm::is_contained(MadeBy, R.name()))
      MadeBy.push_back(R.name());
    New->Position = N.Position;
    New->Loc = N.Loc;
    New->Locs = std::move(Locs);
    New->MadeBy = std::move(MadeBy);
  }
  // A value replaced by an unnamed one gives it its name.
  for (const Replacement &Rep : *Reps)
    if (!Rep.Old->Name.empty() && Rep.New->Name.empty() &&
        (Rep.New->isResult() || Rep.New->isConstant())) {
      Rep.New->Name = std::move(Rep.Old->Name);
      Rep.Old->Name.clear();
    }

  Touched.clear();
  for (const Replacement &Rep : *Reps)
    G.replaceAllUses(Rep.Old, Rep.New, Touched);
  for (const Replacement &Rep : *Reps)
    if (Rep.Old->Owner)
      G.removeIfUnused(Rep.Old->Owner);
  DropUnusedNew();

  ++S.Applied;
  for (unsigned I = Mark; I < G.numNodesMade(); ++I) {
    RNode *New = G.nodes()[I].get();
    if (!New->Dead)
      ++S.NodesCreated;
    push(New);
  }
  for (RNode *C : Touched)
    push(C);
  return true;
}

llvm::Error PhaseRunner::run(RewritePhaseStat &PS) {
  auto T0 = std::chrono::steady_clock::now();
  PS.Name = P.Name;
  PS.NodesBefore = G.numLiveNodes();
  for (RNode *N : G.topologicalOrder())
    push(N);
  uint64_t Budget = uint64_t(VisitsPerNode) * G.numLiveNodes() + 1024;
  while (!Work.empty()) {
    RNode *N = Work.front();
    Work.pop_front();
    N->Queued = false;
    if (N->Dead)
      continue;
    if (PS.Visits == Budget) {
      PS.BudgetExhausted = true;
      break;
    }
    ++PS.Visits;
    for (size_t I = 0; I < P.Rewrites.size() && !N->Dead; ++I) {
      llvm::Expected<bool> Applied = offer(*N, *P.Rewrites[I], *Stats[I]);
      if (!Applied)
        return Applied.takeError();
    }
  }
  for (RNode *N : Work)
    N->Queued = false;
  Work.clear();
  PS.NodesAfter = G.numLiveNodes();
  for (RewriteStat *S : Stats)
    S->NodesAfter = G.numLiveNodes();
  PS.Seconds = secondsSince(T0);
  return llvm::Error::success();
}

void Pipeline::keepOnly(const std::function<bool(const NodeRewrite &)> &Keep) {
  for (Phase &Ph : Phases)
    llvm::erase_if(Ph.Rewrites, [&](NodeRewrite *R) { return !Keep(*R); });
  // A phase with the rewrites of the one before it has nothing left to do:
  // that one ran them to a fixed point (fast_compile: merge1 alone).
  std::vector<Phase> Kept;
  for (Phase &Ph : Phases)
    if (!Ph.Rewrites.empty() &&
        (Kept.empty() || Kept.back().Rewrites != Ph.Rewrites))
      Kept.push_back(std::move(Ph));
  Phases = std::move(Kept);
  llvm::erase_if(Rewrites, [&](const std::unique_ptr<NodeRewrite> &R) {
    return !Keep(*R);
  });
}

NodeRewrite *Pipeline::lookup(llvm::StringRef Name) const {
  for (const auto &R : Rewrites)
    if (R->name() == Name)
      return R.get();
  return nullptr;
}

Pipeline rewrite::standardPipeline() {
  Pipeline P;
  auto Add = [&](std::unique_ptr<NodeRewrite> R) {
    P.Rewrites.push_back(std::move(R));
    return P.Rewrites.back().get();
  };
  auto AddAll = [&](std::vector<std::unique_ptr<NodeRewrite>> Rs) {
    std::vector<NodeRewrite *> Added;
    for (auto &R : Rs)
      Added.push_back(Add(std::move(R)));
    return Added;
  };
  NodeRewrite *Merge = Add(makeMergeRewrite());
  std::vector<NodeRewrite *> Canonicalize = {Merge, Add(makeConstantFolding())};
  for (NodeRewrite *R : AddAll(makeCanonicalizeRewrites()))
    Canonicalize.push_back(R);
  for (NodeRewrite *R : AddAll(makeShapeRewrites()))
    Canonicalize.push_back(R);
  std::vector<NodeRewrite *> Stabilize = {Merge};
  for (NodeRewrite *R : AddAll(makeStabilizeRewrites()))
    Stabilize.push_back(R);
  std::vector<NodeRewrite *> Gemm = {Merge};
  for (NodeRewrite *R : AddAll(makeGemmRewrites()))
    Gemm.push_back(R);
  NodeRewrite *Fusion = Add(makeElemwiseFusion());
  NodeRewrite *Legalize = Add(makeSplitWideElemwise());
  std::vector<NodeRewrite *> Gpu = AddAll(makeGpuRewrites());
  // An update in place saves a copy, an intermediate's only an
  // allocation: the first has the first say.
  NodeRewrite *SharedInplace = Add(makeSharedUpdateInplace());
  NodeRewrite *Inplace = Add(makeElemwiseInplace());
  P.Phases.push_back({"merge1", {Merge}});
  P.Phases.push_back({"canonicalize", std::move(Canonicalize)});
  P.Phases.push_back({"stabilize", std::move(Stabilize)});
  P.Phases.push_back({"gemm", std::move(Gemm)});
  P.Phases.push_back({"fusion", {Fusion}});
  P.Phases.push_back({"merge2", {Merge}});
  // After the rewrites that look for adds, before placement and in place.
  P.Phases.push_back({"legalize", {Legalize}});
  P.Phases.push_back({"gpu", std::move(Gpu)});
  P.Phases.push_back({"inplace", {SharedInplace, Inplace}});
  return P;
}

llvm::Error rewrite::runPipeline(RewriteGraph &G, const Pipeline &P,
                                 RewriteReport &Report) {
  // One stat per rewrite, in the pipeline's order.
  size_t First = Report.Rewrites.size();
  for (const auto &R : P.Rewrites) {
    RewriteStat S;
    S.Name = R->name();
    S.Tags = R->tags();
    S.NodesBefore = S.NodesAfter = G.numLiveNodes();
    Report.Rewrites.push_back(std::move(S));
  }
  auto StatOf = [&](const NodeRewrite *R) {
    for (size_t I = First; I < Report.Rewrites.size(); ++I)
      if (Report.Rewrites[I].Name == R->name())
        return &Report.Rewrites[I];
    return static_cast<RewriteStat *>(nullptr);
  };
  std::vector<bool> Started(Report.Rewrites.size(), false);
  for (const Phase &Ph : P.Phases) {
    std::vector<RewriteStat *> Stats;
    for (const NodeRewrite *R : Ph.Rewrites) {
      RewriteStat *S = StatOf(R);
      if (!S)
        return llvm::createStringError("internal error: rewrite '" + R->name() +
                                       "' is in a phase but not the pipeline");
      // NodesBefore: when the first phase running it begins.
      if (!Started[S - Report.Rewrites.data()]) {
        Started[S - Report.Rewrites.data()] = true;
        S->NodesBefore = G.numLiveNodes();
      }
      Stats.push_back(S);
    }
    RewritePhaseStat PS;
    if (llvm::Error E = PhaseRunner(G, Ph, std::move(Stats)).run(PS))
      return E;
    Report.Phases.push_back(std::move(PS));
  }
  return llvm::Error::success();
}
