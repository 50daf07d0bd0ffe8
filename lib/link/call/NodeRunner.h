//===- NodeRunner.h - Running one Apply outside JIT code -------*- C++ -*-===//
//
// What every linker shares: running one Apply's perform() (or, for JIT
// code, its prepare() and compute()) on the call's values, checking the
// outputs against their static types, and wording errors the same way
// whichever linker ran the node: `FILE:LINE:COL: error: Apply node N, NAME,
// with inputs DTYPE SHAPE, ...: WHY`.
//
// A NodeRunner keeps, per Apply, the argument arrays it hands the op, so
// that a call reusing it allocates nothing of its own (see CallState).
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

class NodeRunner {
public:
  /// Nodes: the function's Applies by id.
  explicit NodeRunner(llvm::ArrayRef<Apply *> Nodes);

  /// Runs Step of N on Values and stores its outputs there.
  llvm::Error run(const Apply &N, NodeStep Step, std::vector<NDArray> &Values,
                  const ExecContext &Ctx);
  /// Runs N's compute() on the outputs prepare() made.
  llvm::Error compute(const Apply &N, std::vector<NDArray> &Values,
                      const ExecContext &Ctx);

private:
  /// An Apply's inputs and outputs as its op takes them. Between runs they
  /// are null but keep the capacity of their shapes.
  struct Args {
    std::vector<NDArray> In, Out;
  };
  std::vector<Args> ByNode;

  Args &argsFor(const Apply &N, const std::vector<NDArray> &Values);
};

} // namespace graphjit

#endif
