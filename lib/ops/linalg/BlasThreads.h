//===- BlasThreads.h - Small BLAS and LAPACK calls on one thread -*- C++ -*-===//
//
// OpenBLAS wakes its threads for any call, and on a busy machine waking them
// costs milliseconds: a 40x40 Cholesky took 5-25 ms a call on this project's
// 2-core VMs (docs/BENCHMARKS.md, "Real models") where one thread takes 4 us.
// A SmallBlasScope around a call of under SmallBlasFlops runs it on the
// calling thread alone, then gives OpenBLAS its threads back; larger calls
// keep them. Nothing happens with a BLAS other than OpenBLAS, or where the
// user asked for one thread (OPENBLAS_NUM_THREADS=1).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_BLASTHREADS_H
#define GRAPHJIT_OPS_BLASTHREADS_H

namespace graphjit {

/// Below this many flops a BLAS or LAPACK call runs on one thread.
constexpr double SmallBlasFlops = 4.0e6;

class SmallBlasScope {
public:
  explicit SmallBlasScope(double Flops);
  ~SmallBlasScope();
  SmallBlasScope(const SmallBlasScope &) = delete;
  SmallBlasScope &operator=(const SmallBlasScope &) = delete;

private:
  int Restore = 0; ///< OpenBLAS's thread count to give back, 0: none
};

} // namespace graphjit

#endif
