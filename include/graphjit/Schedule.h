//===- graphjit/Schedule.h - The order Applies run in ----------*- C++ -*-===//
//
// The schedule step of the compile pipeline (docs/architecture.md): a
// topological order of a FunctionGraph's Applies and the last use of each
// variable, which the linkers, the lowering and the memory profile read.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_SCHEDULE_H
#define GRAPHJIT_SCHEDULE_H

#include "graphjit/Graph.h"
#include <vector>

namespace graphjit {

/// The order in which a function's Applies run, and when each variable
/// dies: the input of the linkers and, later, of the memory profile.
struct Schedule {
  std::vector<Apply *> Order;
  /// For each Variable id, the position in Order after which it is no longer
  /// needed; -1 for variables that must outlive the call (outputs, update
  /// values, inputs, constants, shared reads).
  std::vector<int> LastUse;
};

Schedule makeSchedule(const FunctionGraph &F);

} // namespace graphjit

#endif
