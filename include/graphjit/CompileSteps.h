//===- graphjit/CompileSteps.h - What compiling writes and times -*- C++ -*-===//
//
// The options and measurements that every compile step shares: where the
// IR and assembly dumps go, and the seconds each step took. Kept apart
// from Function.h so that the JIT and codegen layers below the linker can
// use them (docs/architecture.md).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_COMPILESTEPS_H
#define GRAPHJIT_COMPILESTEPS_H

#include <string>

namespace graphjit {

/// Where the optional IR and assembly dumps go (empty: not written).
struct EmitOptions {
  std::string LLVM;          ///< The module as lowered.
  std::string LLVMOptimized; ///< After the optimization pipeline.
  std::string Asm;           ///< The host assembly.
  /// The GPU kernels as PTX for PtxArch (a function with device Applies;
  /// written before the device is opened, so also without a GPU).
  std::string Ptx;
  std::string PtxArch = "sm_90";
};

/// Seconds spent in each step of compiling one function.
struct CompileTimes {
  double Rewrite = 0;  ///< The graph optimizer, validation included.
  double Lower = 0;    ///< FunctionGraph -> LLVM IR.
  double Optimize = 0; ///< The LLVM optimization pipeline.
  double Codegen = 0;  ///< Machine code generation (an object file).
  double Link = 0;     ///< JIT linking of the object, cached or not.
  /// The object came from the compile cache: no optimization, no codegen.
  bool Cached = false;
  double total() const { return Rewrite + Lower + Optimize + Codegen + Link; }
};

} // namespace graphjit

#endif
