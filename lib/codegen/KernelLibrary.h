//===- KernelLibrary.h - The scalar kernels, linked into JIT modules -*- C++ -*-//
//
// The bitcode of codegen/ScalarKernelsBitcode.cpp, compiled once per dtype
// and embedded in graphjit at build time. Lowerings ask for kernels by
// name while they emit calls, which parses the libraries of the dtypes
// they name; at the end the kernels used are linked into the module, made
// internal and always-inline, so that they vanish into the loops that call
// them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LOWER_KERNELLIBRARY_H
#define GRAPHJIT_LOWER_KERNELLIBRARY_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include <array>
#include <memory>
#include <optional>

namespace graphjit {

class KernelLibrary {
public:
  /// One library per dtype: its operations and the conversions to it.
  static constexpr unsigned NumLibraries = 8;

  explicit KernelLibrary(llvm::Module &M) : M(M) {}
  ~KernelLibrary();

  /// A declaration in M of kernel Name, or an error if there is none.
  llvm::Expected<llvm::Function *> get(llvm::StringRef Name);
  /// Links the kernels asked for into M and marks them internal and
  /// always-inline.
  llvm::Error linkUsed();

private:
  llvm::Module &M;
  /// Each parsed on first use.
  std::array<std::unique_ptr<llvm::Module>, NumLibraries> Libraries;
  static std::optional<unsigned> libraryOf(llvm::StringRef Name);
  llvm::Expected<llvm::Module *> library(unsigned I);
};

} // namespace graphjit

#endif
