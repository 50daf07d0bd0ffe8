//===- KernelLibrary.h - The scalar kernels, linked into JIT modules -*- C++ -*-//
//
// The bitcode of runtime/ScalarKernelsBitcode.cpp, embedded in graphjit at
// build time. Lowerings ask for kernels by name while they emit calls; at
// the end the kernels used are linked into the module, made internal and
// always-inline, so that they vanish into the loops that call them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LOWER_KERNELLIBRARY_H
#define GRAPHJIT_LOWER_KERNELLIBRARY_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include <memory>

namespace graphjit {

class KernelLibrary {
public:
  explicit KernelLibrary(llvm::Module &M) : M(M) {}
  ~KernelLibrary();

  /// A declaration in M of kernel Name, or an error if there is none.
  llvm::Expected<llvm::Function *> get(llvm::StringRef Name);
  /// Links the kernels asked for into M and marks them internal and
  /// always-inline.
  llvm::Error linkUsed();

private:
  llvm::Module &M;
  std::unique_ptr<llvm::Module> Library; ///< Parsed on first use.
  llvm::Error load();
};

} // namespace graphjit

#endif
