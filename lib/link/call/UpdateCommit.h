//===- UpdateCommit.h - Checking a call before updates in place -*- C++ -*-===//
//
// An update in place (the optimizer's shared_update_inplace: Gemm{inplace}
// or an in-place Elemwise over a shared variable) writes a shared
// variable's new value over its old one, and runs after every other Apply
// (validation sees to it). Before the first of them writes, commitUpdates()
// makes sure that the call can no longer fail and that nobody else sees
// the memory written:
//  - every other update's value has its target's shape (which
//    Function::callIn would otherwise refuse once it is too late);
//  - every update in place passes its op's checks (prepare()) and makes
//    its target's shape;
//  - a shared value whose memory someone else also holds (a result the
//    caller kept, a Python array, another function's call) is copied, and
//    the copy is written instead.
// So a failed call leaves every shared variable as it was, as it does
// without updates in place.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_UPDATECOMMIT_H
#define GRAPHJIT_LINK_UPDATECOMMIT_H

#include "link/call/NodeRunner.h"
#include "graphjit/Schedule.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace graphjit {

struct UpdateCommit {
  UpdateCommit(const FunctionGraph &F, const Schedule &S);

  /// An update in place: its Apply, the variable id of the shared read it
  /// overwrites, and its update's index.
  struct InPlace {
    const Apply *Node;
    unsigned Target;
    unsigned Update;
  };
  std::vector<InPlace> Entries;
  /// The schedule position of the first entry (the rest follow it); past
  /// the schedule's end when there is none.
  unsigned Start = 0;
  /// By Apply id: whether it is an entry.
  std::vector<bool> IsEntry;
  /// By update: whether its value is made in place.
  std::vector<bool> ByUpdate;
  /// By update: its value's variable id and its target's shape.
  std::vector<unsigned> ValueIds;
  std::vector<Shape> TargetShapes;
  const FunctionGraph &Graph;

  bool empty() const { return Entries.empty(); }
};

/// The error of an update whose value has the wrong shape.
llvm::Error updateShapeError(const Update &U, const Shape &Got);

/// The checks above, run once per call right before the first update in
/// place. Values: the call's values, those the checks read made arrays
/// (inputs of the entries, the other updates' values); Changed(Var) is told
/// when Values[Var] was replaced by a copy. The entries' outputs prepare()
/// made stay in Values: JIT code computes them next (the interpreter's
/// perform() makes them anew).
llvm::Error commitUpdates(const UpdateCommit &C, std::vector<NDArray> &Values,
                          NodeRunner &Runner, const ExecContext &Ctx,
                          llvm::function_ref<void(unsigned)> Changed);

} // namespace graphjit

#endif
