//===- NodeRunner.h - Running one Apply outside JIT code -------*- C++ -*-===//
//
// What every linker shares: running one Apply's perform() (or, for JIT
// code, its prepare()) on the call's values, checking the outputs against
// their static types, and wording errors the same way whichever linker ran
// the node: `FILE:LINE:COL: error: Apply node N, NAME, with inputs DTYPE
// SHAPE, ...: WHY`.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_NODERUNNER_H
#define GRAPHJIT_LINK_NODERUNNER_H

#include "graphjit/Graph.h"
#include "graphjit/Op.h"

namespace graphjit {

/// An error of node N in a call whose values (by Variable id) are Values.
llvm::Error nodeError(const Apply &N, const std::vector<NDArray> &Values,
                      const llvm::Twine &Why);

enum class NodeStep { Perform, Prepare };

/// Runs Step of N on Values and stores its outputs there.
llvm::Error runNode(const Apply &N, NodeStep Step, std::vector<NDArray> &Values,
                    const ExecContext &Ctx);

} // namespace graphjit

#endif
