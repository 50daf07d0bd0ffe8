//===- profile/OptimizerProfile.cpp - The optimizer's facts in a profile --===//
//
// Equality of the optimizer's part of the model, the join of the optimizer
// profile with the run-time profile (rewriteRunTimes: the time spent in the
// Applies each rewrite made), and the sum of two optimizer profiles, which
// merged runs and the sum of functions share.
//
//===----------------------------------------------------------------------===//
#include "graphjit/Profile.h"
#include "profile/OptimizerReport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include <algorithm>

using namespace llvm;

namespace graphjit {

bool RewriteProfile::operator==(const RewriteProfile &O) const {
  return Name == O.Name && Tags == O.Tags && Seconds == O.Seconds &&
         Applied == O.Applied && NodesBefore == O.NodesBefore &&
         NodesAfter == O.NodesAfter && NodesCreated == O.NodesCreated;
}

bool RewritePhaseProfile::operator==(const RewritePhaseProfile &O) const {
  return Name == O.Name && Seconds == O.Seconds &&
         NodesBefore == O.NodesBefore && NodesAfter == O.NodesAfter &&
         Visits == O.Visits && BudgetExhausted == O.BudgetExhausted;
}

bool OptimizerProfile::operator==(const OptimizerProfile &O) const {
  return Recorded == O.Recorded && Name == O.Name && Excluding == O.Excluding &&
         Including == O.Including && Runs == O.Runs && Seconds == O.Seconds &&
         ValidateSeconds == O.ValidateSeconds && NodesBefore == O.NodesBefore &&
         NodesAfter == O.NodesAfter && Phases == O.Phases &&
         Rewrites == O.Rewrites;
}

std::vector<RewriteRunTime> rewriteRunTimes(const FunctionProfile &F) {
  std::vector<RewriteRunTime> Rows;
  StringMap<size_t> Index;
  auto Row = [&](StringRef Name) -> RewriteRunTime & {
    auto [It, New] = Index.try_emplace(Name, Rows.size());
    if (New) {
      Rows.emplace_back();
      Rows.back().Rewrite = Name.str();
    }
    return Rows[It->second];
  };
  // The optimizer's order first, so that the rows follow the pipeline.
  for (const RewriteProfile &R : F.Optimizer.Rewrites)
    Row(R.Name);
  for (const ApplyProfile &A : F.Applies) {
    // An Apply made by a rewrite twice (merged twice) counts once for it.
    SmallVector<StringRef, 4> Seen;
    for (const std::string &Name : A.Rewrites) {
      if (is_contained(Seen, Name))
        continue;
      Seen.push_back(Name);
      RewriteRunTime &R = Row(Name);
      R.Seconds += A.Seconds;
      R.Calls += A.Calls;
      ++R.Applies;
    }
  }
  return Rows;
}

namespace profile {

/// "A; B": the settings of every run, each once; an empty setting among
/// others is "(none)".
static void joinDistinct(std::string &Into, const std::string &Other) {
  if (Other == Into)
    return;
  auto Spelled = [](const std::string &S) {
    return S.empty() ? std::string("(none)") : S;
  };
  SmallVector<StringRef, 4> Parts;
  StringRef(Into).split(Parts, "; ");
  if (is_contained(Parts, Spelled(Other)))
    return;
  Into = Spelled(Into) + "; " + Spelled(Other);
}

/// Node counts of the same graph (the largest) or of different graphs
/// (their sum).
static uint64_t addNodes(uint64_t A, uint64_t B, bool SameFunction) {
  return SameFunction ? std::max(A, B) : A + B;
}

void addOptimizerProfile(OptimizerProfile &Into, const OptimizerProfile &From,
                         bool SameFunction) {
  joinDistinct(Into.Name, From.Name);
  joinDistinct(Into.Excluding, From.Excluding);
  joinDistinct(Into.Including, From.Including);
  Into.Runs += From.Runs;
  Into.Seconds += From.Seconds;
  Into.ValidateSeconds += From.ValidateSeconds;
  Into.NodesBefore = addNodes(Into.NodesBefore, From.NodesBefore, SameFunction);
  Into.NodesAfter = addNodes(Into.NodesAfter, From.NodesAfter, SameFunction);
  for (const RewritePhaseProfile &P : From.Phases) {
    auto It = find_if(Into.Phases, [&](const RewritePhaseProfile &Q) {
      return Q.Name == P.Name;
    });
    if (It == Into.Phases.end()) {
      Into.Phases.push_back(P);
      continue;
    }
    It->Seconds += P.Seconds;
    It->Visits += P.Visits;
    It->NodesBefore = addNodes(It->NodesBefore, P.NodesBefore, SameFunction);
    It->NodesAfter = addNodes(It->NodesAfter, P.NodesAfter, SameFunction);
    It->BudgetExhausted = It->BudgetExhausted || P.BudgetExhausted;
  }
  for (const RewriteProfile &R : From.Rewrites) {
    auto It = find_if(Into.Rewrites, [&](const RewriteProfile &Q) {
      return Q.Name == R.Name;
    });
    if (It == Into.Rewrites.end()) {
      Into.Rewrites.push_back(R);
      continue;
    }
    It->Seconds += R.Seconds;
    It->Applied += R.Applied;
    It->NodesCreated += R.NodesCreated;
    It->NodesBefore = addNodes(It->NodesBefore, R.NodesBefore, SameFunction);
    It->NodesAfter = addNodes(It->NodesAfter, R.NodesAfter, SameFunction);
    if (It->Tags.empty())
      It->Tags = R.Tags;
  }
}

} // namespace profile
} // namespace graphjit
