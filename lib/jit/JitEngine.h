//===- JitEngine.h - ORC LLJIT for the host CPU ----------------*- C++ -*-===//
//
// One process-wide LLJIT configured for the host CPU (its name and
// features), so that the vectorizer sees the real vector width. Its steps
// (optimize with the host TargetMachine, codegen to an object file or find
// it in the compile cache, CompileCache.h, link into a JITDylib of its own)
// are separate calls, which the function pipeline sequences; it knows
// nothing of graphs or of instrumentation. The runtime's symbols are
// resolved explicitly; libm and OpenBLAS come from the process. Safe to
// call from several threads.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_JIT_JITENGINE_H
#define GRAPHJIT_JIT_JITENGINE_H

#include "CompileCache.h"
#include "CompileInParts.h"
#include "IRPipeline.h"
#include "runtime/ProfileRuntime.h"
#include "graphjit/runtime/RuntimeABI.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
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

  /// The steps of compiling a module, each its own call so that the
  /// function pipeline (lib/link/compile/CompilePipeline.cpp) times and prints
  /// each. In order: setTarget, cacheKey and cachedObject (a hit skips
  /// optimize and codegen), optimize, codegen, link.
  ///
  /// Gives M's functions the host CPU and its features.
  void setTarget(llvm::Module &M) const;
  /// M's key in the compile cache (CompileCache.h) under Opt; empty
  /// when there is no cache.
  std::string cacheKey(const llvm::Module &M, Optimization Opt) const;
  /// What the key takes besides the module: the optimization, the target
  /// (triple, CPU, features), LLVM's version, the pipeline's and
  /// graphjit's, so that no other version links an object of this one.
  std::string cacheConfiguration(Optimization Opt) const;
  /// The objects cached under Key, or none (also for an empty Key).
  ObjectFiles cachedObjects(llvm::StringRef Key) const;
  /// Forgets a cached object that did not link.
  void dropCachedObject(llvm::StringRef Key);
  /// The IR pipeline Opt names (IRPipeline.h) for the host TargetMachine.
  llvm::Error optimize(llvm::Module &M, Optimization Opt);
  /// How many threads optimizeAndCodegen would compile M, whose driver is
  /// Entry, on (CompileInParts.h), within setCodegenThreads' limit; 0:
  /// optimize then codegen M whole instead.
  unsigned compileParts(const llvm::Module &M, llvm::StringRef Entry) const;
  /// optimize and codegen at once, M cut into its glue and a part of
  /// kernels for each of Parts threads; stored in the cache under Key
  /// (unless empty). Times gets the threads' seconds in each step.
  llvm::Expected<ObjectFiles> optimizeAndCodegen(llvm::Module &M,
                                                 llvm::StringRef Entry,
                                                 unsigned Parts,
                                                 Optimization Opt,
                                                 llvm::StringRef Key,
                                                 PartTimes &Times);
  /// Host assembly of M and of the Glue split from it (GlueModule.h; may
  /// be null), written to Path (neither is changed).
  llvm::Error writeAssembly(const llvm::Module &M, const llvm::Module *Glue,
                            llvm::StringRef Path);
  /// The object files of M and of the Glue split from it (GlueModule.h;
  /// may be null), compiled at O0, stored in the cache under Key (unless
  /// empty).
  llvm::Expected<ObjectFiles> codegen(llvm::Module &M, llvm::Module *Glue,
                                      llvm::StringRef Key);
  /// Links Objects into a JITDylib of their own (removed again by
  /// release()) and looks Entry up; with Profiled, Entry's profile
  /// descriptor too (the instrumentation pass's, passes/).
  llvm::Expected<CompiledCode> link(ObjectFiles Objects, llvm::StringRef Entry,
                                    bool Profiled);

  /// All the steps at once, for modules that are not a function's (the
  /// GPU kernels compiled for the host): cached like the rest.
  llvm::Expected<CompiledCode> compile(std::unique_ptr<llvm::Module> M,
                                       std::unique_ptr<llvm::LLVMContext> Ctx,
                                       llvm::StringRef Entry,
                                       Optimization Opt);
  /// Where compiled objects are kept (CompileCache.h); empty: nowhere.
  /// The most threads optimization and code generation may use for one
  /// module (0, the default: as many as CompileInParts.h and
  /// SplitCodegen.h find worth it; 1: one).
  void setCodegenThreads(unsigned N);
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
  /// The cap on a module's compile threads (0: none), under P's lock.
  unsigned threadCap() const;
  JitEngine();
};

} // namespace graphjit

#endif
