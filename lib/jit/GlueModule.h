//===- GlueModule.h - Long drivers compiled apart, at O0 -------*- C++ -*-===//
//
// A long driver (ModuleLowering: more Applies than are worth optimizing)
// is optnone glue: a call and a test per Apply. Even unoptimized, the O3
// code generator's register allocator and liveness analyses cost time
// that grows faster than its blocks, so the glue is compiled at O0 (fast
// instruction selection, the block-local fast register allocator: time
// linear in the Applies) in a module of its own, and the kernels at the
// host's level in theirs. The two objects link into one JITDylib.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_JIT_GLUEMODULE_H
#define GRAPHJIT_JIT_GLUEMODULE_H

#include "llvm/IR/Module.h"
#include <memory>

namespace graphjit {

/// Splits M in two: returns a module of everything but M's optnone
/// function definitions (a copy: the kernels are small), and leaves in M
/// only those definitions (the glue, large: not copied) and declarations
/// of what they use. The symbols the two share become external (default
/// visibility: the JIT linker reaches them through its GOT and stubs).
/// Null, with M unchanged, when M has no optnone definition or nothing
/// else defined.
std::unique_ptr<llvm::Module> splitGlue(llvm::Module &M);

} // namespace graphjit

#endif
