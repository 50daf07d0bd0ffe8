//===- BlasSymbols.h - The names of the BLAS graphjit links -----*- C++ -*-===//
//
// GJ_BLAS(name) is a BLAS, LAPACK or OpenBLAS symbol of the library
// graphjit links (cmake/GraphjitBlas.cmake): scipy-openblas32 prefixes
// every one with scipy_ (scipy_cblas_dgemm, scipy_dpotrf_), so that it and
// NumPy's own OpenBLAS live in one process; the system's has no prefix.
// The library's own <cblas.h> (on the include path graphjit_use_blas
// gives) declares its CBLAS names.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_BLASSYMBOLS_H
#define GRAPHJIT_OPS_BLASSYMBOLS_H

#ifndef GRAPHJIT_BLAS_PREFIX
#define GRAPHJIT_BLAS_PREFIX
#endif

#define GJ_BLAS_JOIN_(Prefix, Name) Prefix##Name
#define GJ_BLAS_JOIN(Prefix, Name) GJ_BLAS_JOIN_(Prefix, Name)
#define GJ_BLAS(Name) GJ_BLAS_JOIN(GRAPHJIT_BLAS_PREFIX, Name)

#endif
