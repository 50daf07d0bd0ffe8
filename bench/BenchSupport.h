//===- BenchSupport.h - What the benchmarks share ---------------*- C++ -*-===//
//
// A clock, compiling and calling that exit with the error on failure, and
// reproducible random inputs: the benchmarks' common ground.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_BENCH_BENCHSUPPORT_H
#define GRAPHJIT_BENCH_BENCHSUPPORT_H

#include "graphjit/Function.h"
#include "graphjit/Random.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cstdlib>

namespace graphjit::bench {

inline double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline std::unique_ptr<Function> compileOrDie(FunctionGraph &F,
                                              const CompileOptions &O) {
  auto Fn = Function::compile(F, O);
  if (!Fn) {
    llvm::errs() << llvm::toString(Fn.takeError()) << "\n";
    std::exit(1);
  }
  return std::move(*Fn);
}

inline void callOrDie(Function &Fn, const std::vector<NDArray> &In) {
  auto R = Fn.call(In);
  if (!R) {
    llvm::errs() << llvm::toString(R.takeError()) << "\n";
    std::exit(1);
  }
}

inline NDArray randomArray(DType T, const Shape &S, uint64_t Seed) {
  NDArray A = NDArray::zeros(T, S);
  Rng R(Seed);
  fillDefaultInput(A, R);
  return A;
}

} // namespace graphjit::bench

#endif
