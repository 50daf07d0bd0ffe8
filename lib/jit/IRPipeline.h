//===- IRPipeline.h - The passes that optimize a module's IR ----*- C++ -*-===//
//
// At the default level (2) graphjit optimizes its kernels with a pipeline
// of its own instead of LLVM's default<O2>. The kernels are short counted
// loops over arrays that call always-inlined scalar functions; LLVM's O2
// runs its whole function simplification pipeline inside the inliner's
// call-graph walk and then again after it, seven InstCombines in all, for
// code that one pass of each cleanup makes as good. The kernel pipeline
// keeps what those loops need (inlining, one round of cleanup, CSE of the
// inlined math, rotation, LICM, induction variables, the loop vectorizer
// with libmvec, unrolling, tail calls) and drops the rest: on the train
// steps it makes the same loops as O2 (the dispatch code around them may
// allocate registers differently) for about half the IR pipeline's
// instructions (docs/BENCHMARKS.md, "Cold compile, session 17").
// Levels 0, 1 and 3, and level 2 with LLVMPipeline, use LLVM's defaults.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_JIT_IRPIPELINE_H
#define GRAPHJIT_JIT_IRPIPELINE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include <string>

namespace graphjit {

/// How a module's IR is optimized.
struct Optimization {
  /// LLVM's level, 0 to 3.
  unsigned Level = 2;
  /// At level 2, LLVM's default<O2> instead of the kernel pipeline.
  bool LLVMPipeline = false;

  bool usesKernelPipeline() const { return Level == 2 && !LLVMPipeline; }
  /// What the compile cache's key says of it, e.g. "O2 kernel pipeline".
  std::string name() const;
};

/// The kernel pipeline in opt's syntax: `opt-19 -passes='...'` runs it.
llvm::StringRef kernelPipeline();

/// Runs the pipeline Opt names on M, for TM's target, with libmvec's
/// vector functions known to the vectorizer (VectorMath.h).
void optimizeIR(llvm::Module &M, llvm::TargetMachine &TM, Optimization Opt);

} // namespace graphjit

#endif
