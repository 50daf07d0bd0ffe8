//===- JitEngine.h - ORC LLJIT for the host CPU ----------------*- C++ -*-===//
//
// One process-wide LLJIT configured for the host CPU (its name and
// features), so that the vectorizer sees the real vector width. compile()
// runs the O0-O3 pipeline with the host TargetMachine, generates an object
// file (or finds it in the compile cache, CompileCache.h), links it into
// a JITDylib of its own (removed again by release()) and looks the driver
// up. Runtime and BLAS
// symbols are resolved explicitly; libm and OpenBLAS come from the process.
// Safe to call from several threads.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_JIT_JITENGINE_H
#define GRAPHJIT_JIT_JITENGINE_H

#include "graphjit/CompileSteps.h"
#include "runtime/ProfileRuntime.h"
#include "runtime/RuntimeABI.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <memory>
#include <string>

namespace llvm::orc {
class JITDylib;
}

namespace graphjit {

/// A compiled module: its driver's address and what holds its code.
struct CompiledCode {
  void *Driver = nullptr;
  llvm::orc::JITDylib *Dylib = nullptr;
  /// The driver's profile descriptor when compiled with Profile, else null.
  const gj_profile_desc *Profile = nullptr;
};

class JitEngine {
public:
  /// The process's engine, created on first use.
  static llvm::Expected<JitEngine &> get();

  /// Entry points of higher layers that JIT code calls (the linkers'
  /// gj_prepare, gj_perform, gj_compute, gj_release), bound by address when
  /// the engine starts: graphjit::initialize() registers them, so that the
  /// JIT never links against the layers above it. Call before get().
  static void registerSymbols(llvm::ArrayRef<RuntimeSymbol> Symbols);

  const llvm::DataLayout &dataLayout() const;
  const std::string &triple() const;
  /// The host CPU's name, e.g. "znver5".
  llvm::StringRef cpuName() const;

  /// Optimizes M at OptLevel (0-3), writes what Emit asks for, and compiles
  /// it. Entry is the function whose address is returned. With Profile,
  /// the Applies marked in M are instrumented first (passes/), after the
  /// -emit-llvm dump, which stays the module as lowered; with
  /// ProfileMemory too, their allocations are hooked as well.
  llvm::Expected<CompiledCode>
  compile(std::unique_ptr<llvm::Module> M,
          std::unique_ptr<llvm::LLVMContext> Ctx, llvm::StringRef Entry,
          unsigned OptLevel, const EmitOptions &Emit, CompileTimes &Times,
          bool Profile = false, bool ProfileMemory = false);
  /// Where compiled objects are kept (CompileCache.h); empty: nowhere.
  void setCacheDirectory(std::string Dir);
  std::string cacheDirectory() const;

  /// The address of another symbol Name of a compiled module (a module
  /// with several entry points, like the GPU kernels compiled for the
  /// host).
  llvm::Expected<void *> lookup(const CompiledCode &Code, llvm::StringRef Name);

  /// Frees the code of a compiled module.
  void release(CompiledCode &Code);

  ~JitEngine();

private:
  struct Impl;
  std::unique_ptr<Impl> P;
  JitEngine();
};

} // namespace graphjit

#endif
