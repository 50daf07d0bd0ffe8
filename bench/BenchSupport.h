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
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

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

/// Median seconds per call of A and of B, timed in alternation (so that the
/// machine's drift hits both alike).
inline std::pair<double, double> sideBySide(Function &A, Function &B,
                                            const std::vector<NDArray> &In,
                                            int Reps, int Inner) {
  std::vector<double> TA, TB;
  for (int R = 0; R < Reps; ++R) {
    for (auto [Fn, T] : {std::pair{&A, &TA}, std::pair{&B, &TB}}) {
      double Start = now();
      for (int I = 0; I < Inner; ++I)
        callOrDie(*Fn, In);
      T->push_back((now() - Start) / Inner);
    }
  }
  std::sort(TA.begin(), TA.end());
  std::sort(TB.begin(), TB.end());
  return {TA[TA.size() / 2], TB[TB.size() / 2]};
}

/// A chain of N+1 scalar Applies (alternately add 0.5 and mul 0.999) in
/// the graph format: `func chain(x: f64[]) -> (vN)`. Compiled with
/// optimizer None, every Apply runs on its own.
inline std::string scalarChainGraph(unsigned N) {
  std::string Text = "func chain(x: f64[]) -> (v" + std::to_string(N) +
                     ") {\n  v0 = add(x, 1.0)\n";
  for (unsigned I = 1; I <= N; ++I)
    Text += "  v" + std::to_string(I) + " = " + (I % 2 ? "mul(v" : "add(v") +
            std::to_string(I - 1) + (I % 2 ? ", 0.999)\n" : ", 0.5)\n");
  return Text + "}\n";
}

inline NDArray randomArray(DType T, const Shape &S, uint64_t Seed) {
  NDArray A = NDArray::zeros(T, S);
  Rng R(Seed);
  fillDefaultInput(A, R);
  return A;
}

} // namespace graphjit::bench

#endif
