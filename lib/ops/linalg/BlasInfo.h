//===- BlasInfo.h - Which BLAS the products run on --------------*- C++ -*-===//
//
// graphjit's products and LAPACK calls run on the BLAS it was linked with
// (OpenBLAS on Debian). An OpenBLAS older than the CPU does not know it and
// falls back to kernels without AVX: Debian 12's 0.3.21 runs Sapphire
// Rapids Xeons on its Prescott kernels, several times slower. The profile
// says which library and kernel ran (the report's Machine line, the JSON's
// `machine`, made by ProfileStats), and its tips say when the kernel is
// such a fallback.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_BLASINFO_H
#define GRAPHJIT_OPS_BLASINFO_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace graphjit {

struct BlasInfo {
  /// "OpenBLAS 0.3.21", or "a BLAS other than OpenBLAS".
  std::string Library;
  /// OpenBLAS's kernel set ("Haswell", "SkylakeX", "Prescott"); empty if
  /// unknown.
  std::string Kernel;
  int Threads = 0; ///< OpenBLAS's threads; 0 if unknown.
  /// A kernel set without AVX on a CPU with AVX2: OpenBLAS does not know
  /// the CPU.
  bool FallbackKernel = false;
};

/// The BLAS of this process.
const BlasInfo &blasInfo();

/// Whether OpenBLAS kernel set Kernel ("Prescott", case aside) uses no
/// AVX: what OpenBLAS falls back to for a CPU it does not know.
bool blasKernelLacksAvx(llvm::StringRef Kernel);

} // namespace graphjit

#endif
