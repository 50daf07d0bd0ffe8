//===- StoragePlan.cpp - Where planned outputs live -----------------------===//

#include "StoragePlan.h"
#include "ThunkEmitter.h"
#include <limits>

using namespace graphjit;

StoragePlan graphjit::planStorage(const FunctionGraph &F, const Schedule &S,
                                  bool AllowGC,
                                  const std::vector<bool> &Planned) {
  StoragePlan P;
  size_t NumVars = F.variables().size();
  P.StorageOf.assign(NumVars, StoragePlan::Unplanned);
  P.ViewOf.assign(NumVars, -1);
  P.LiveUntil = S.LastUse;
  P.PlannedApply = Planned;
  P.PlannedApply.resize(F.numApplies(), false);
  for (const Apply *N : S.Order)
    if (P.PlannedApply[N->id()])
      for (unsigned I = 0; I < N->outputs().size(); ++I) {
        OutputAlias Alias = N->op().outputAlias(I);
        if (Alias.K == OutputAlias::View)
          P.ViewOf[N->output(I)->id()] = N->inputs()[Alias.Input]->id();
      }
  // A viewed value lives until its views are read for the last time:
  // backwards, so that a view of a view passes its reads on.
  constexpr int Never = std::numeric_limits<int>::max();
  auto Until = [&](unsigned V) {
    return P.LiveUntil[V] < 0 ? Never : P.LiveUntil[V];
  };
  for (size_t Pos = S.Order.size(); Pos-- > 0;)
    for (const Variable *Out : S.Order[Pos]->outputs())
      if (int Viewed = P.ViewOf[Out->id()]; Viewed >= 0) {
        int Last = std::max(Until(Viewed), Until(Out->id()));
        P.LiveUntil[Viewed] = Last == Never ? -1 : Last;
      }

  // By storage: the schedule position its current value dies after.
  std::vector<int> DiesAfter;
  for (unsigned Pos = 0; Pos < S.Order.size(); ++Pos) {
    const Apply &N = *S.Order[Pos];
    if (!P.PlannedApply[N.id()])
      continue;
    for (const Variable *Out : N.outputs()) {
      if (P.ViewOf[Out->id()] >= 0)
        continue;
      // Results and update values outlive the call; a value nothing reads
      // dies where it is made.
      int Dies = std::max<int>(Until(Out->id()), Pos);
      unsigned Storage = DiesAfter.size();
      if (AllowGC)
        for (unsigned K = 0; K < DiesAfter.size(); ++K)
          // Strictly before: the Apply still reads its inputs while it
          // writes its outputs.
          if (DiesAfter[K] < int(Pos)) {
            Storage = K;
            break;
          }
      if (Storage == DiesAfter.size())
        DiesAfter.push_back(Dies);
      else
        DiesAfter[Storage] = Dies;
      P.StorageOf[Out->id()] = Storage;
    }
  }
  P.NumStorages = DiesAfter.size();
  return P;
}

StoragePlan graphjit::planLoweredStorage(const FunctionGraph &F,
                                         const Schedule &S, bool AllowGC) {
  std::vector<bool> Planned(F.numApplies(), false);
  const std::vector<std::string> Symbols = F.inputSymbols();
  for (const Apply *N : S.Order)
    Planned[N->id()] = canPlanOutputs(*N, Symbols);
  return planStorage(F, S, AllowGC, Planned);
}
