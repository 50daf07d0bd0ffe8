//===- graphjit/CompileSteps.h - What compiling writes and times -*- C++ -*-===//
//
// The steps of the compile pipeline and what they share: where the IR and
// assembly dumps go, and the seconds each step took. Kept apart
// from Function.h so that the JIT and codegen layers below the linker can
// use them (docs/architecture.md).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_COMPILESTEPS_H
#define GRAPHJIT_COMPILESTEPS_H

#include <string>
#include <utility>
#include <vector>

namespace graphjit {

/// Where the optional IR and assembly dumps go (empty: not written).
struct EmitOptions {
  std::string LLVM;          ///< The module as lowered.
  std::string LLVMOptimized; ///< After the optimization pipeline.
  std::string Asm;           ///< The host assembly.
  /// The GPU kernels as PTX for PtxArch (a function with device Applies;
  /// written before the device is opened, so also without a GPU).
  std::string Ptx;
  std::string PtxArch = "sm_90";
};

/// The steps of compiling a function, in the order the pipeline runs them
/// (lib/link/compile/CompilePipeline.cpp, docs/architecture.md).
enum class CompileStep {
  Rewrite,    ///< The graph optimizer; device placement is its gpu phase.
  Schedule,   ///< The order of the Applies and each variable's last use.
  Lower,      ///< FunctionGraph -> LLVM IR.
  Instrument, ///< The Apply timers (passes/), when profiling.
  Optimize,   ///< LLVM's O0-O3 pipeline.
  Codegen,    ///< Machine code (an object file), or the compile cache's.
  Link,       ///< JIT linking of the object.
  Kernels,    ///< The GPU kernels: emitted, compiled and loaded.
};
inline constexpr unsigned NumCompileSteps = 8;

/// "rewrite", "schedule", ... as -print-after and the profile JSON name
/// them.
const char *compileStepName(CompileStep S);
/// The step called Name; false when there is none.
bool parseCompileStep(const std::string &Name, CompileStep &S);

/// Seconds spent in each step of compiling one function (the profile's
/// compile split).
struct CompileTimes {
  double Rewrite = 0;
  double Schedule = 0;
  double Lower = 0;
  double Instrument = 0;
  double Optimize = 0;
  double Codegen = 0;
  double Link = 0;
  double Kernels = 0;
  /// Validating the rewritten graph: a part of Rewrite, so not in total().
  double Validate = 0;
  /// The object came from the compile cache: no optimization, no codegen.
  bool Cached = false;
  /// Optimized and compiled in parts on this many threads (0: in one
  /// piece); Optimize and Codegen then divide the parts' wall time in
  /// proportion to the threads' own time in each (jit/CompileInParts.h).
  unsigned PartThreads = 0;
  /// Steps before graphjit's own, timed by what handed it the graph (for
  /// a PyTensor graph: PyTensor's rewrites, the translation), named, in
  /// order; not part of total().
  std::vector<std::pair<std::string, double>> Host;

  double &of(CompileStep S);
  double of(CompileStep S) const {
    return const_cast<CompileTimes *>(this)->of(S);
  }
  double total() const;
  /// The host's steps together.
  double hostTotal() const;
  /// Sums the steps (the host's by name); cached only if both were.
  CompileTimes &operator+=(const CompileTimes &O);
  bool operator==(const CompileTimes &O) const;
};

} // namespace graphjit

#endif
