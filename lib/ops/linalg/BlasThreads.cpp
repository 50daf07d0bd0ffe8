//===- BlasThreads.cpp - Small BLAS and LAPACK calls on one thread --------===//
//
// OpenBLAS's thread-count calls, declared weak: with another BLAS they are
// null and the scope does nothing. Scopes nest and may overlap across
// threads: a count of open scopes decides, under a lock, when OpenBLAS
// goes to one thread and when it gets its threads back. A scope that finds
// OpenBLAS on one thread already takes no lock and restores nothing.
//
//===----------------------------------------------------------------------===//

#include "ops/linalg/BlasThreads.h"
#include "ops/linalg/BlasSymbols.h"
#include <mutex>

extern "C" {
int GJ_BLAS(openblas_get_num_threads)(void) __attribute__((weak));
void GJ_BLAS(openblas_set_num_threads)(int) __attribute__((weak));
}

using namespace graphjit;

namespace {
std::mutex Lock;
int OpenScopes = 0;
int SavedThreads = 0;
} // namespace

SmallBlasScope::SmallBlasScope(double Flops) {
  if (Flops >= SmallBlasFlops || !GJ_BLAS(openblas_get_num_threads) ||
      !GJ_BLAS(openblas_set_num_threads))
    return;
  // On one thread already (the user's OPENBLAS_NUM_THREADS=1, or another
  // scope's): nothing to switch, and no lock on a product's call path.
  if (GJ_BLAS(openblas_get_num_threads)() <= 1)
    return;
  std::lock_guard<std::mutex> G(Lock);
  if (OpenScopes++ == 0) {
    SavedThreads = GJ_BLAS(openblas_get_num_threads)();
    if (SavedThreads > 1)
      GJ_BLAS(openblas_set_num_threads)(1);
  }
  Restore = 1;
}

SmallBlasScope::~SmallBlasScope() {
  if (!Restore)
    return;
  std::lock_guard<std::mutex> G(Lock);
  if (--OpenScopes == 0 && SavedThreads > 1)
    GJ_BLAS(openblas_set_num_threads)(SavedThreads);
}
