//===- graphjit/Random.h - Seeded random arrays ----------------*- C++ -*-===//
//
// A small, fully specified generator (xoshiro256** seeded by splitmix64) so
// that `uniform(..., seed=S)`, `normal(..., seed=S)` and the command line's
// generated inputs give the same numbers on every machine and compiler.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RANDOM_H
#define GRAPHJIT_RANDOM_H

#include "graphjit/NDArray.h"
#include <cstdint>

namespace graphjit {

class Rng {
public:
  explicit Rng(uint64_t Seed);
  uint64_t next();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Standard normal (Box-Muller; one of each pair is kept, for simplicity).
  double normal();

private:
  uint64_t S[4];
};

/// Fills A (any dtype, contiguous) with uniform values in [Low, High),
/// converted to A's dtype.
void fillUniform(NDArray &A, double Low, double High, Rng &R);
/// Stores exactly V (converted to A's dtype) in every element: -0.0 stays
/// -0.0, which fillUniform(A, V, V) would not keep.
void fillConstant(NDArray &A, double V);
/// Fills A with normal values of mean Mean and deviation Std.
void fillNormal(NDArray &A, double Mean, double Std, Rng &R);
/// What the command line generates for an input it was not given: floats
/// uniform in [0, 1), integers uniform in [0, 10) (u8 and signed alike),
/// bools true or false with equal odds.
void fillDefaultInput(NDArray &A, Rng &R);

} // namespace graphjit

#endif
