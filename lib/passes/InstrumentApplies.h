//===- InstrumentApplies.h - Time every Apply with counters ---*- C++ -*-===//
//
// The graphjit-instrument pass. Every function that contains calls marked
// with !graphjit.apply (docs/instrumentation.md) gets a constant descriptor
// `@<function>.gj_profile` (gj_profile_desc, graphjit/runtime/RuntimeABI.h),
// a call to gj_profile_enter at entry for the thread's counter block, a
// clock read at every Apply boundary with the ticks and one call added to
// that Apply's counter (plain loads and stores: no locks, no calls on the
// TSC clock), and a call to gj_profile_exit with the whole call's ticks
// before every return.
// Consecutive Applies share one read: the read before an Apply ends the
// previous one, so code between two Applies (the driver's error test,
// gj_release) is charged to the earlier. With the `memory` option it also
// hooks allocations (InstrumentAppliesOptions::Memory). It runs before
// inlining, so the reads bracket each Apply's code wherever optimization
// moves it. Malformed markings are reported and leave the module unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_PASSES_INSTRUMENTAPPLIES_H
#define GRAPHJIT_PASSES_INSTRUMENTAPPLIES_H

#include "graphjit/runtime/RuntimeABI.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace llvm {
class Module;
class PassBuilder;
} // namespace llvm

namespace graphjit {

/// Which clock the instrumented code reads (gj_profile_desc::clock).
enum class CounterClock : unsigned {
  Tsc = 0,  ///< llvm.readcyclecounter: the TSC on x86-64, inline.
  Call = 1, ///< gj_profile_now(): nanoseconds, where there is no usable TSC.
  /// Sampling: one store of the Apply's id per Apply (and its call count);
  /// a sampler thread attributes time (runtime/SampleRuntime.h). The
  /// whole call is timed with gj_profile_now().
  Sample = 2,
};

struct InstrumentAppliesOptions {
  CounterClock Clock = CounterClock::Tsc;
  /// Also hook allocations (profile_memory): gj_memory_enter/exit around
  /// the call, gj_memory_apply around each Apply, and the module's calls
  /// of malloc, calloc, realloc, aligned_alloc and free routed to the
  /// gj_memory_* hooks.
  bool Memory = false;
  /// Also record the timeline (profiling__trace): gj_trace_slice after
  /// every Apply and at the end of every call (runtime/TraceRuntime.h).
  bool Trace = false;
};

/// The name of the descriptor the pass emits for function Function.
inline std::string profileDescriptorName(llvm::StringRef Function) {
  return (Function + GJ_PROFILE_DESC_SUFFIX).str();
}

/// What instrumentApplies did.
struct InstrumentAppliesResult {
  unsigned Functions = 0; ///< Functions instrumented.
  unsigned Applies = 0;   ///< Marked calls instrumented.
  /// Calls of the C allocator routed to the memory hooks (Memory only).
  unsigned HookedAllocations = 0;
  /// Functions skipped because their descriptor already exists (the module
  /// was instrumented before), one message each.
  std::vector<std::string> Warnings;
};

/// Instruments every function of M that has marked Applies. On a malformed
/// marking, returns an error naming the function and the call, and leaves
/// M unchanged. Functions already instrumented are skipped with a warning.
llvm::Expected<InstrumentAppliesResult>
instrumentApplies(llvm::Module &M, const InstrumentAppliesOptions &Opts = {});

/// The new-pass-manager pass around instrumentApplies: errors and warnings
/// go to LLVMContext::diagnose.
class InstrumentAppliesPass
    : public llvm::PassInfoMixin<InstrumentAppliesPass> {
public:
  static constexpr const char *PassName = "graphjit-instrument";

  explicit InstrumentAppliesPass(InstrumentAppliesOptions Opts = {})
      : Opts(Opts) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  void printPipeline(llvm::raw_ostream &OS,
                     llvm::function_ref<llvm::StringRef(llvm::StringRef)>
                         MapClassName2PassName);
  static bool isRequired() { return true; }

  /// Parses the parameters of `graphjit-instrument<...>`: `clock=tsc` (the
  /// default) or `clock=call`, and `memory`, separated by ';'.
  static llvm::Expected<InstrumentAppliesOptions>
  parseParams(llvm::StringRef Params);

private:
  InstrumentAppliesOptions Opts;
};

/// Makes `-passes=graphjit-instrument` and `graphjit-instrument<clock=...>`
/// known to PB's pipeline parser (the opt plugin and graphjit alike).
void registerGraphjitPasses(llvm::PassBuilder &PB);

} // namespace graphjit

#endif
