//===- ObjectLinkage.h - Symbols that one object names, another defines -*- C++ -*-===//
//
// The JIT compiles for the small code model, position-independent
// (JitEngine.cpp): calls are rel32 and data is RIP-relative, so fast
// instruction selection handles every call of the glue (the large code
// model's absolute calls sent each call's block to SelectionDAG: 42% of
// the 1,000-Apply chain's compile). rel32 reaches 2 GB; the objects of
// one module are allocated apart, so what one object defines and another
// uses goes through JITLink's GOT and stubs, made in range in the user's
// own allocation, never a direct reference across objects: such symbols
// have default visibility and are not dso_local. JITLink relaxes the
// GOT load or the stub into a direct reference where the target is in
// range.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_JIT_OBJECTLINKAGE_H
#define GRAPHJIT_JIT_OBJECTLINKAGE_H

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/GlobalValue.h"
#include "llvm/IR/Module.h"

namespace graphjit {

/// GV, not local, made reachable from another object of the JITDylib.
inline void makeReachable(llvm::GlobalValue &GV) {
  GV.setVisibility(llvm::GlobalValue::DefaultVisibility);
  GV.setDSOLocal(false);
}

/// GV made external and reachable from another object of the JITDylib.
inline void shareAcrossObjects(llvm::GlobalValue &GV) {
  GV.setLinkage(llvm::GlobalValue::ExternalLinkage);
  makeReachable(GV);
}

/// Every symbol of M that is not local to it made reachable from another
/// object, its linkage kept: for the parts llvm::SplitModule cuts (which
/// makes locals hidden globals).
inline void shareNonLocalSymbols(llvm::Module &M) {
  for (llvm::GlobalValue &GV : M.global_values())
    if (!GV.hasLocalLinkage() && !GV.getName().starts_with("llvm."))
      makeReachable(GV);
}

/// The code model the JIT compiles for: small and position-independent.
inline void useSmallCodeModel(llvm::orc::JITTargetMachineBuilder &B) {
  B.setCodeModel(llvm::CodeModel::Small);
  B.setRelocationModel(llvm::Reloc::PIC_);
}

} // namespace graphjit

#endif
