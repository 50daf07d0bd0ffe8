//===- graphjit/CompileOptions.h - How a Function is compiled ---*- C++ -*-===//
//
// The linker and the settings of every compile step, profiling and the
// device: what Function::compile takes, and what the compile pipeline,
// the linkers and the profiler read (lib/link).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_COMPILEOPTIONS_H
#define GRAPHJIT_COMPILEOPTIONS_H

#include "graphjit/CompileSteps.h"
#include "graphjit/Rewrite.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace graphjit {

class ProfileStats;

enum class LinkerKind { Py, CPy, C };

/// "py", "c|py" (also "cpy", which needs no quoting in a shell), "c".
llvm::Expected<LinkerKind> parseLinker(llvm::StringRef Name);
llvm::StringRef linkerName(LinkerKind K);

struct CompileOptions {
  LinkerKind Linker = LinkerKind::CPy;
  /// The graph optimizer's settings (docs/optimizer.md); unset: those of
  /// GRAPHJIT_FLAGS (optimizer, optimizer_excluding, optimizer_including;
  /// fast_run by default).
  std::optional<RewriteOptions> Rewrite;
  /// Free every intermediate after its last use (Theano's allow_gc).
  bool AllowGC = true;
  /// The LLVM optimization level, 0 to 3.
  unsigned OptLevel = 2;
  /// At OptLevel 2, optimize with LLVM's default<O2> pipeline instead of
  /// graphjit's kernel pipeline (jit/IRPipeline.h: the same loops, for
  /// about half the IR pipeline's time). Levels 0, 1 and 3 are LLVM's.
  bool LLVMPipeline = false;
  /// Let lowered Applies compute their output shapes in compiled code and
  /// place their outputs in memory planned from the schedule, with no
  /// runtime call (docs/architecture.md, "Planned memory"). Off: each asks
  /// the runtime (gj_prepare) as it must with ProfileMemory, which
  /// measures the runtime's allocations.
  bool PlanMemory = true;
  EmitOptions Emit;
  /// JIT-compile this IR file instead of the lowered module: what
  /// -emit-llvm wrote for this function, perhaps transformed since (e.g.
  /// by opt-19 with the instrumentation plugin). Its Apply markings must
  /// match the function's.
  std::string LLVMInput;
  /// Time every Apply (the instrumentation pass on JIT code, the clock
  /// around perform for py) and report into ProfileInto, or into a
  /// ProfileStats of the function's own when that is null.
  /// GRAPHJIT_FLAGS=profile=True turns it on for every function.
  bool Profile = false;
  /// Also measure memory (the Memory Profile section): every buffer a call
  /// allocates and frees, per Apply, next to the simulated peaks. Implies
  /// Profile. GRAPHJIT_FLAGS=profile_memory=True turns it on.
  bool ProfileMemory = false;
  /// Also record what the graph optimizer did (the Optimizer Profile
  /// section: phases, rewrites, the run time of each rewrite's Applies).
  /// Implies Profile. GRAPHJIT_FLAGS=profile_optimizer=True turns it on.
  bool ProfileOptimizer = false;
  /// Also keep every Apply's per-call times as a distribution (min,
  /// median, p90, max; the first call apart). Implies Profile.
  /// GRAPHJIT_FLAGS=profiling__distributions=True turns it on.
  bool ProfileDistributions = false;
  /// Time the Applies by sampling (profiling__mode=sample): one store per
  /// Apply, a sampler thread attributes the time. Implies Profile.
  bool ProfileSample = false;
  /// Also record every call's timeline (one slice per Apply per call) for
  /// the trace file GRAPHJIT_FLAGS=profiling__trace=FILE names, written at
  /// exit or by writeProcessTrace(). Implies Profile; set by that flag.
  bool Trace = false;
  std::shared_ptr<ProfileStats> ProfileInto;
  /// Where computing Applies run (docs/gpu.md): "cpu", "cuda" or
  /// "cuda-emulated"; unset: the flags' `device` (cpu by default).
  std::optional<std::string> Device;
  /// Print each of these steps' result to PrintTo (null: stderr), as
  /// LLVM's -print-after does: the graph after rewrite, the order after
  /// schedule, the IR after lower, instrument and optimize, a line after
  /// the others.
  std::vector<CompileStep> PrintAfter;
  llvm::raw_ostream *PrintTo = nullptr;
};

} // namespace graphjit

#endif
