//===- VectorMath.h - Vectorized transcendental functions -------*- C++ -*-===//
//
// So that no elemwise loop calls scalar libm per element (issue 17), the
// optimizer may vectorize calls to exp, log, tanh, log1p, expm1, erf and
// the other functions glibc's vector math library (libmvec) provides, in
// f32 and f64, at SSE (2 doubles, 4 floats) and AVX2 (4 doubles, 8 floats)
// widths. LLVM 19's preset for libmvec names only sin, cos, tan, pow, exp
// and log; the rest of libmvec's functions are added here under the same
// vector ABI. glibc documents them to within 4 ulp; docs/ops-elemwise.md
// has what test/numpy/test_vector_math.py measured against NumPy.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_JIT_VECTORMATH_H
#define GRAPHJIT_JIT_VECTORMATH_H

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/TargetParser/Triple.h"

namespace graphjit {

/// Loads libmvec into the process (once), so that the JIT resolves the
/// vector functions; false where it is not there (not glibc on x86-64),
/// and then nothing is vectorized through it.
bool loadVectorMathLibrary();

/// Adds libmvec's vector variants to TLII's table (when loaded).
void addVectorMathFunctions(llvm::TargetLibraryInfoImpl &TLII,
                            const llvm::Triple &T);

} // namespace graphjit

#endif
