//===- StoragePlan.cpp - Where planned outputs live -----------------------===//

#include "StoragePlan.h"
#include "ThunkEmitter.h"
#include <limits>

using namespace graphjit;

StoragePlan graphjit::planStorage(const FunctionGraph &F, const Schedule &S,
                                  bool AllowGC,
                                  const std::vector<bool> &Planned) {
  StoragePlan P;
  P.StorageOf.assign(F.variables().size(), StoragePlan::Unplanned);
  P.PlannedApply = Planned;
  P.PlannedApply.resize(F.numApplies(), false);
  // By storage: the schedule position its current value dies after.
  std::vector<int> DiesAfter;
  constexpr int Never = std::numeric_limits<int>::max();
  for (unsigned Pos = 0; Pos < S.Order.size(); ++Pos) {
    const Apply &N = *S.Order[Pos];
    if (!P.PlannedApply[N.id()])
      continue;
    for (const Variable *Out : N.outputs()) {
      int Last = S.LastUse[Out->id()];
      // Results and update values outlive the call; a value nothing reads
      // dies where it is made.
      int Dies = Last < 0 ? Never : std::max<int>(Last, Pos);
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
  for (const Apply *N : S.Order)
    Planned[N->id()] = canPlanOutputs(*N);
  return planStorage(F, S, AllowGC, Planned);
}
