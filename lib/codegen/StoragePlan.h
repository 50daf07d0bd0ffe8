//===- StoragePlan.h - Where planned outputs live --------------*- C++ -*-===//
//
// The memory plan of a compiled function (issue 17): the outputs of the
// Applies whose lowering computes their shapes in IR ("planned" Applies)
// live in storages, reused call after call, instead of buffers the runtime
// allocates and frees per Apply. Lifetimes come from the schedule: with
// allow_gc, a storage holds one value after another (interval colouring in
// schedule order: a value takes the first storage whose last value died
// before it is made); without, every planned value has its own, so that
// the peaks keep allow_gc's meaning. A storage's size is decided at run
// time (the largest value it held), so the plan is redone for new shapes
// only by growing a storage, which the compiled code asks the runtime for.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_CODEGEN_STORAGEPLAN_H
#define GRAPHJIT_CODEGEN_STORAGEPLAN_H

#include "graphjit/Schedule.h"
#include <vector>

namespace graphjit {

struct StoragePlan {
  static constexpr int Unplanned = -1;
  /// By Variable id: its storage, or Unplanned (the runtime makes it).
  std::vector<int> StorageOf;
  /// By Apply id: whether its thunk plans its outputs.
  std::vector<bool> PlannedApply;
  unsigned NumStorages = 0;

  bool isPlanned(unsigned VarId) const {
    return VarId < StorageOf.size() && StorageOf[VarId] != Unplanned;
  }
  bool operator==(const StoragePlan &O) const {
    return StorageOf == O.StorageOf && NumStorages == O.NumStorages;
  }
};

/// The plan of F run in S's order: Applies that Planned says can plan
/// their outputs do; their outputs share storages by lifetime when AllowGC.
StoragePlan planStorage(const FunctionGraph &F, const Schedule &S,
                        bool AllowGC, const std::vector<bool> &Planned);
/// The same, with every Apply whose lowering can plan its outputs planned
/// (what lowerFunction does with PlanMemory).
StoragePlan planLoweredStorage(const FunctionGraph &F, const Schedule &S,
                               bool AllowGC);

} // namespace graphjit

#endif
