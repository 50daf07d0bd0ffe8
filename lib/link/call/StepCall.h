//===- StepCall.h - A Function called step after step -----------*- C++ -*-===//
//
// The scan op calls its body once per step, thousands of times per call
// of the outer function, on inputs whose shapes stay the same. A general
// call (Function::callInto) pays for what a step does not need: leasing a
// call state, checking and binding the inputs, making arrays of the
// results out of planned storage (and giving the storage back on the next
// step), and clearing the state. A StepCall holds one call state for all
// the steps (the function's spare one), binds the inputs again only when a shape changes, and hands
// the results out as arrays on the memory the JIT code left them in.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_STEPCALL_H
#define GRAPHJIT_LINK_STEPCALL_H

#include "graphjit/Function.h"
#include "link/call/CallPlan.h"
#include <optional>

namespace graphjit {

class StepCall {
public:
  /// Whether F's calls can run as steps: JIT code on the host, with no
  /// updates and no profiler (those need the general call's bookkeeping).
  static bool supports(const Function &F);

  explicit StepCall(Function &F);
  ~StepCall();
  StepCall(const StepCall &) = delete;
  StepCall &operator=(const StepCall &) = delete;

  /// One step on Inputs. Outputs (resized) become arrays on the memory
  /// the step left each output in, owning none of it: they hold until the
  /// next run() or the StepCall's end, and a caller that keeps a value
  /// copies it. Errors are the general call's.
  llvm::Error run(llvm::ArrayRef<NDArray> Inputs,
                  std::vector<NDArray> &Outputs);

private:
  const Function &F;
  /// The function's spare call state, as a general call takes it: a scan
  /// that runs a few steps per call pays for no new state.
  CallStateLease Lease;
  CallState &S;
  ExecContext Ctx;
  /// The sizes bindInputs() found where the plan could not bind alone.
  std::optional<DimBindings> Bound;
  /// The inputs' dtypes and shapes the state is bound for; empty: none.
  std::vector<std::pair<DType, Shape>> BoundFor;

  llvm::Error bind(llvm::ArrayRef<NDArray> Inputs);
};

} // namespace graphjit

#endif
