//===- JitCode.h - A function's machine code -------------------*- C++ -*-===//
//
// What the compile pipeline's link step leaves a Function: its JIT-compiled
// driver and which Applies run compiled code. Released with the Function.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_JITCODE_H
#define GRAPHJIT_LINK_JITCODE_H

#include "graphjit/Function.h"
#include "codegen/StoragePlan.h"
#include "jit/JitEngine.h"

namespace graphjit {

/// The machine code of a function and its driver.
struct Function::JitCode {
  CompiledCode Code;
  int32_t (*Driver)(gj_frame *) = nullptr;
  std::vector<bool> IsCompiled; ///< By Apply id.
  StoragePlan Storage;          ///< Where planned values live.
  ~JitCode() {
    if (!Code.Dylib)
      return;
    if (auto Engine = JitEngine::get())
      Engine->release(Code);
    else
      llvm::consumeError(Engine.takeError());
  }
};

} // namespace graphjit

#endif
