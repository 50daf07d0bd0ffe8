//===- graphjit/Function.h - Compiled, callable functions ------*- C++ -*-===//
//
// A Function is a FunctionGraph made callable by a linker: `py` runs every
// Apply through its Op's reference perform(), node by node, in schedule
// order; `c|py` and `c` run JIT-compiled code. A call binds and checks the
// inputs (dtypes, ranks, static and symbolic dims), runs the nodes, frees
// each intermediate after its last use when allow_gc is on, and then
// applies the shared-variable updates, all computed from the values before
// the call.
//
// A call's fixed costs are paid once, when the function is compiled: what
// to check and bind is planned then (lib/link/call/CallPlan.h), and a call
// reuses the working memory of the previous one. A Function may be called
// from several threads at once (each concurrent call gets its own working
// memory); calls that update shared variables should not overlap.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_FUNCTION_H
#define GRAPHJIT_FUNCTION_H

#include "graphjit/CompileOptions.h"
#include "graphjit/Graph.h"
#include "graphjit/Schedule.h"
#include "graphjit/SpareSlots.h"
#include "graphjit/NDArray.h"
#include "llvm/Support/Error.h"
#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace graphjit {

struct CallPlan;
struct CallState;
class ProfileStats;
class FunctionProfiler;
class GpuProgram;
struct CompiledCode;

/// Where the JIT keeps compiled objects between runs (the compile cache;
/// default $GRAPHJIT_CACHE_DIR, else ~/.cache/graphjit); empty: no cache.
/// Applies to functions compiled from then on.
llvm::Error setCompileCacheDirectory(std::string Dir);

/// The most threads the JIT's optimization and code generation may use
/// for one module: 0 (the default) as many as it finds worth it, 1 one
/// (docs/architecture.md, "Compile time"). Applies to functions compiled
/// from then on.
llvm::Error setCodegenThreads(unsigned N);


class Function {
public:
  static llvm::Expected<std::unique_ptr<Function>>
  compile(FunctionGraph &F, const CompileOptions &Opts = {});
  ~Function();

  /// Calls the function on caller-owned arrays (not copied). Returns the
  /// outputs in the order of the function's header. On error nothing is
  /// updated and the function can be called again. Given holds sizes of
  /// symbolic dims that no input determines (used by reshape and alloc).
  /// Thread-safe.
  llvm::Expected<std::vector<NDArray>> call(llvm::ArrayRef<NDArray> Inputs,
                                            const DimBindings &Given = {});
  /// As call(), with the outputs written into Outputs (resized to their
  /// count), for a caller that keeps Outputs from call to call: the
  /// arrays' shape storage is reused, and the memory of the last call's
  /// results, which Outputs lets go of first, goes back to the function's
  /// planned storage. So a steady loop of calls allocates nothing on the
  /// heap. A copy of an output the caller kept elsewhere keeps its memory
  /// and values. On error Outputs holds null arrays. Inputs must not be
  /// elements of Outputs (an error; pass copies, which share the memory).
  llvm::Error callInto(llvm::ArrayRef<NDArray> Inputs,
                       std::vector<NDArray> &Outputs,
                       const DimBindings &Given = {});

  /// The graph that runs: the one compiled, as the optimizer rewrote it.
  const FunctionGraph &graph() const { return Graph; }
  /// What the optimizer did (empty with optimizer=None).
  const RewriteReport &rewriteReport() const { return Rewrites; }
  const CompileTimes &compileTimes() const { return Times; }
  /// Whether Apply ApplyId runs JIT code ("C") or its op's perform ("Py").
  bool isCompiled(unsigned ApplyId) const;
  /// Whether Applies run on a device (a GPU): a call then holds the
  /// device's call lock, shared by every function on it.
  bool usesDevice() const { return Gpu != nullptr; }
  const CompileOptions &options() const { return Opts; }
  const Schedule &schedule() const { return Sched; }
  /// Where this function reports its profile (Theano's f.profile), or null
  /// when it is not profiled: `F->profile()->summary(llvm::outs())`.
  ProfileStats *profile() const { return Stats.get(); }
  /// Names the model terms Apply ApplyId works for in the profile
  /// (ApplyProfile::Terms; several: shared), Gradient when it computes
  /// their gradient: the report's "Time by model variable" (graphjit.pymc
  /// sets them from the model). An error for an Apply the function does
  /// not have; nothing when it is not profiled.
  llvm::Error setApplyTerms(unsigned ApplyId, std::vector<std::string> Terms,
                            bool Gradient);
  /// The steps that made the graph before graphjit compiled it (PyTensor's
  /// rewrites, the translation; CompileTimes::Host), for the profile's
  /// compile section. Nothing when the function is not profiled.
  void setHostCompileTimes(std::vector<std::pair<std::string, double>> Steps);

  /// Checks the inputs against the function's input types and returns the
  /// sizes of the symbolic dims: those in Given, and those the inputs bind
  /// (which must agree with Given).
  llvm::Expected<DimBindings> bindInputs(llvm::ArrayRef<NDArray> Inputs,
                                         const DimBindings &Given = {}) const;

private:
  struct JitCode;
  friend class CompilePipeline;
  friend class StepCall; // A scan's body, called step after step.
  Function(FunctionGraph &F, std::unique_ptr<FunctionGraph> Rewritten,
           const CompileOptions &Opts, Schedule S);
  /// Leases a call state and runs callIn on it, timed when profiled.
  llvm::Error callWith(llvm::ArrayRef<NDArray> Inputs, const DimBindings &Given,
                       std::vector<NDArray> &Results, bool Reuse);
  /// One call: the outputs appended to Results, or with Reuse assigned
  /// to its elements (sized already).
  llvm::Error callIn(CallState &S, llvm::ArrayRef<NDArray> Inputs,
                     const DimBindings &Given, std::vector<NDArray> &Results,
                     bool Reuse);
  llvm::Error runNodes(CallState &S, const ExecContext &Ctx);
  llvm::Error startProfiling(const CompiledCode *Code);

  /// The optimizer's result, when it ran; Graph refers to it then.
  std::unique_ptr<FunctionGraph> Rewritten;
  FunctionGraph &Graph;
  CompileOptions Opts;
  RewriteReport Rewrites;
  Schedule Sched;
  CompileTimes Times;
  std::vector<Apply *> ById; ///< Applies by id.
  std::unique_ptr<JitCode> Jit; ///< Null for the py linker.
  /// The device Applies' kernels; null when all runs on the host.
  std::unique_ptr<GpuProgram> Gpu;
  std::unique_ptr<const CallPlan> Plan;
  /// The working memory of the last calls, for the next ones to take
  /// (lib/link/call/SpareLease.h): a slot per thread of a few calling at once.
  SpareSlots<CallState> SpareStates;
  /// Profiling (null when off): this function's numbers, and where they go.
  std::unique_ptr<FunctionProfiler> Profiler;
  std::shared_ptr<ProfileStats> Stats;
  unsigned StatsHandle = 0;
  /// The profiles of the scans' bodies, reported with this function's.
  std::vector<unsigned> LoopBodyHandles;
  void attachLoopBodies();
};

} // namespace graphjit

#endif
