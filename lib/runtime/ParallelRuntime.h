//===- ParallelRuntime.h - Large loops on several threads ------*- C++ -*-===//
//
// gj_parallel_for, which JIT code calls for an element-wise loop over a
// large output (lib/codegen/ElemwiseLowering.cpp, "parallel"): the range
// is cut into one piece per thread, each a multiple of Align elements but
// the last, and the calling thread runs the first piece while the pool's
// workers run the others. Memory-bound loops gain where one core cannot
// use the machine's bandwidth (docs/architecture.md, "Threads").
//
// The pool starts on first use with GRAPHJIT_THREADS threads in all (the
// caller counting as one; default: the hardware's threads, at most 4; 1:
// never parallel). A loop runs on the caller alone when the pool is busy
// with another call's loop, and in a child after fork(), which starts a
// pool of its own when it needs one.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_PARALLELRUNTIME_H
#define GRAPHJIT_RUNTIME_PARALLELRUNTIME_H

#include "runtime/ProfileRuntime.h"
#include <cstdint>

extern "C" {
/// Runs Body(Ctx, Begin, End) over pieces covering [0, N) once each,
/// returning when all have run.
void gj_parallel_for(void (*Body)(void *Ctx, int64_t Begin, int64_t End),
                     void *Ctx, int64_t N, int64_t Align);
}

namespace graphjit {

class ParallelRuntime {
public:
  /// The threads a loop runs on, the caller included (starts the pool).
  static unsigned threads();
  /// The entry point by name, for binding in the JIT.
  static llvm::ArrayRef<RuntimeSymbol> symbols();
};

} // namespace graphjit

#endif
