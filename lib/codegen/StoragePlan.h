//===- StoragePlan.h - Where planned outputs live --------------*- C++ -*-===//
//
// The memory plan of a compiled function (issue 17): the outputs of the
// Applies whose lowering computes their shapes in IR ("planned" Applies)
// live in storages, reused call after call, instead of buffers the runtime
// allocates and frees per Apply. Lifetimes come from the schedule: with
// allow_gc, a storage holds one value after another (interval colouring in
// schedule order: a value takes the first storage whose last value died
// before it is made); without, every planned value has its own, so that
// the peaks keep allow_gc's meaning. A planned view (a DimShuffle) has no
// storage: it reads its input's memory, which therefore lives as long as
// the view is read. A storage's size is decided at run
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
  /// By Variable id: its storage, or Unplanned (the runtime makes it, or
  /// it is a planned view).
  std::vector<int> StorageOf;
  /// By Variable id: for a planned view, the variable whose memory it
  /// views (itself maybe a view); else -1.
  std::vector<int> ViewOf;
  /// By Variable id: the schedule position after which neither it nor a
  /// planned view of it is read (Schedule::LastUse extended through the
  /// views; -1: it outlives the call).
  std::vector<int> LiveUntil;
  /// By Apply id: whether its thunk plans its outputs.
  std::vector<bool> PlannedApply;
  unsigned NumStorages = 0;

  bool isPlanned(unsigned VarId) const {
    return VarId < StorageOf.size() && StorageOf[VarId] != Unplanned;
  }
  bool isView(unsigned VarId) const {
    return VarId < ViewOf.size() && ViewOf[VarId] >= 0;
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
