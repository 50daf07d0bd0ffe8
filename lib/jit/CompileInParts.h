//===- CompileInParts.h - Optimize and codegen on several threads -*- C++ -*-===//
//
// A cold compile is the IR pipeline then code generation, each about half,
// over a module whose kernels are independent: the driver calls each
// Elemwise node function and kernel out of line (noinline), and nothing
// else crosses between them. So the module is cut before optimizing:
//
//  - part 0, the glue: the driver and what it may inline that does not
//    loop (the planned thunks of views and allocations, 0-d node
//    functions), compiled at O0 as a long driver is (GlueModule.h), since
//    optimizing a call and a test per Apply costs more than it saves
//    (half the perceptron step's IR pipeline); a planned thunk that loops
//    (a softmax, a gather) is a kernel, as a noinline function is;
//  - parts 1..T, the kernels, one part per thread, the largest groups
//    first to the thread with the least work (thread 0 starts with the
//    glue), each at the function's optimization level.
//
// Each part moves to a context of its own through bitcode and is
// optimized and compiled on its thread (docs/architecture.md, "Compile
// time"). The scalar kernels, always inlined, go to every part that calls
// them. What is lost: interprocedural facts across parts (a kernel's
// arguments' attributes, fastcc), which the calls between parts, one per
// Apply, do not need.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_JIT_COMPILEINPARTS_H
#define GRAPHJIT_JIT_COMPILEINPARTS_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"
#include <functional>
#include <memory>
#include <vector>

namespace graphjit {

/// How many threads compileInParts would compile unoptimized M on, with
/// Entry its driver: up to the hardware's threads, at most 4 and one more
/// than the kernels; 0 where M is not cut (kernels too few or small, or a
/// long driver, which GlueModule.h splits off instead).
unsigned compilePartsFor(const llvm::Module &M, llvm::StringRef Entry);

/// What each part's thread does: optimize the part with its target
/// machine, then generate its object.
struct PartCompiler {
  std::function<llvm::Expected<std::unique_ptr<llvm::TargetMachine>>()>
      MakeTM;
  /// Takes each part's machine back when the part is compiled (may be
  /// empty: the machines are destroyed).
  std::function<void(std::unique_ptr<llvm::TargetMachine>)> GiveBackTM;
  /// Glue: the part is part 0, whose code generation is already at O0.
  std::function<void(llvm::Module &, llvm::TargetMachine &, bool Glue)>
      Optimize;
};

/// The seconds the parts' threads spent in each step, summed.
struct PartTimes {
  double Optimize = 0, Codegen = 0;
};

/// M's object files, one per part, compiled on Threads threads. M is
/// consumed: it becomes the glue's part (its locals globals the other
/// parts reach through the GOT and stubs, ObjectLinkage.h; the other
/// parts' functions declarations), optimized and compiled; do not use it
/// again.
llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
compileInParts(llvm::Module &M, llvm::StringRef Entry, unsigned Threads,
               const PartCompiler &Compiler, PartTimes &Times);

} // namespace graphjit

#endif
