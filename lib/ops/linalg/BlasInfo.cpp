//===- BlasInfo.cpp - Which BLAS the products run on ----------------------===//

#include "ops/linalg/BlasInfo.h"
#include "ops/linalg/BlasSymbols.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/TargetParser/Host.h"

// OpenBLAS's own description, declared weak: null with another BLAS.
extern "C" {
char *GJ_BLAS(openblas_get_config)(void) __attribute__((weak));
char *GJ_BLAS(openblas_get_corename)(void) __attribute__((weak));
int GJ_BLAS(openblas_get_num_threads)(void) __attribute__((weak));
}

using namespace graphjit;

bool graphjit::blasKernelLacksAvx(llvm::StringRef Kernel) {
  // OpenBLAS's x86-64 kernel sets before Sandy Bridge and Bulldozer.
  return llvm::StringSwitch<bool>(Kernel.lower())
      .Cases("prescott", "core2", "penryn", "dunnington", "nehalem", "atom",
             true)
      .Cases("opteron", "opteron_sse3", "barcelona", "bobcat", "katmai",
             true)
      .Default(false);
}

const BlasInfo &graphjit::blasInfo() {
  static const BlasInfo Info = [] {
    BlasInfo I;
    if (!GJ_BLAS(openblas_get_config)) {
      I.Library = "a BLAS other than OpenBLAS";
      return I;
    }
    // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64".
    llvm::SmallVector<llvm::StringRef, 4> Words;
    llvm::StringRef(GJ_BLAS(openblas_get_config)()).split(Words, ' ', 2, false);
    I.Library = Words.size() >= 2 ? Words[0].str() + " " + Words[1].str()
                                  : std::string("OpenBLAS");
    if (GJ_BLAS(openblas_get_corename))
      I.Kernel = GJ_BLAS(openblas_get_corename)();
    if (GJ_BLAS(openblas_get_num_threads))
      I.Threads = GJ_BLAS(openblas_get_num_threads)();
    llvm::StringMap<bool> Features = llvm::sys::getHostCPUFeatures();
    I.FallbackKernel =
        blasKernelLacksAvx(I.Kernel) && Features.lookup("avx2");
    return I;
  }();
  return Info;
}
