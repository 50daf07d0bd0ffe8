//===- SplitCodegen.h - Machine code of a module on several threads -*- C++ -*-===//
//
// Code generation is most of a cold compile and its functions are
// independent once optimized, so a module is cut into parts that compile
// at once, each into an object file of its own, as LLVM's LTO backends do
// (docs/architecture.md, "Compile time").
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_JIT_SPLITCODEGEN_H
#define GRAPHJIT_JIT_SPLITCODEGEN_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"
#include <functional>
#include <memory>
#include <vector>

namespace graphjit {

/// How many parts codegenInParts would cut M into on this machine: 1 (not
/// worth cutting) for a module of few or small functions, else up to the
/// hardware's threads, at most 4.
unsigned codegenPartsFor(const llvm::Module &M);

/// M's machine code as Parts object files, generated on as many threads:
/// M is split by llvm::SplitModule (its local symbols become globals,
/// reached across the parts through the GOT and stubs: ObjectLinkage.h,
/// so that the parts link to one another) and each part is moved
/// to a context of its own through bitcode, since an LLVMContext serves
/// one thread. MakeTM makes each thread's TargetMachine, and GiveBackTM
/// (if set) takes it back when its part is done. M itself is changed (its
/// locals externalized): compile it only once.
llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
codegenInParts(
    llvm::Module &M, unsigned Parts,
    const std::function<llvm::Expected<std::unique_ptr<llvm::TargetMachine>>()>
        &MakeTM,
    const std::function<void(std::unique_ptr<llvm::TargetMachine>)>
        &GiveBackTM = {});

} // namespace graphjit

#endif
