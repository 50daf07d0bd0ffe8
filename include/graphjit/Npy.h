//===- graphjit/Npy.h - NumPy .npy files -----------------------*- C++ -*-===//
//
// Reads and writes NumPy's .npy format (versions 1.0, 2.0 and 3.0) for every
// graphjit dtype, C order, little-endian. Anything else (Fortran order,
// big-endian, object or unsupported dtypes, a truncated file, a corrupt
// header) is rejected with a message that says what and why.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_NPY_H
#define GRAPHJIT_NPY_H

#include "graphjit/NDArray.h"
#include "llvm/Support/Error.h"

namespace graphjit {

/// Parses the bytes of a .npy file. Name is used in messages.
llvm::Expected<NDArray> parseNpy(llvm::StringRef Bytes, llvm::StringRef Name);
/// Reads a .npy file.
llvm::Expected<NDArray> readNpy(llvm::StringRef Path);
/// The bytes of A as a version 1.0 .npy file (C order).
std::string formatNpy(const NDArray &A);
/// Writes A to Path as .npy.
llvm::Error writeNpy(llvm::StringRef Path, const NDArray &A);

} // namespace graphjit

#endif
