//===- TargetMachinePool.h - Target machines kept between compiles -*- C++ -*-===//
//
// A compile in parts wants a TargetMachine per part, one per thread. Making
// one, and the X86 subtarget it makes on its first function, costs about
// 3 M instructions, a tenth of a small function's code generation; so the
// engine keeps those it made and lends them out again (docs/architecture.md,
// "Compile time"). A machine is used by one thread at a time; the pool
// itself may be used from several.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_JIT_TARGETMACHINEPOOL_H
#define GRAPHJIT_JIT_TARGETMACHINEPOOL_H

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"
#include <memory>
#include <mutex>
#include <vector>

namespace graphjit {

class TargetMachinePool {
public:
  explicit TargetMachinePool(llvm::orc::JITTargetMachineBuilder Builder)
      : Builder(std::move(Builder)) {}

  /// A machine of the pool's target at the builder's code generation
  /// level: a spare one, else a new one.
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> take();
  /// Takes TM back for the next take(), at the builder's level again (a
  /// glue part sets O0, and O0 turns on fast instruction selection).
  void give(std::unique_ptr<llvm::TargetMachine> TM);

  /// A machine lent for one scope, given back when the lease ends.
  class Lease {
  public:
    Lease(TargetMachinePool &Pool, std::unique_ptr<llvm::TargetMachine> TM)
        : Pool(&Pool), TM(std::move(TM)) {}
    Lease(Lease &&Other) = default;
    Lease &operator=(Lease &&Other) = delete;
    ~Lease() {
      if (TM)
        Pool->give(std::move(TM));
    }
    llvm::TargetMachine &operator*() const { return *TM; }
    llvm::TargetMachine *operator->() const { return TM.get(); }

  private:
    TargetMachinePool *Pool;
    std::unique_ptr<llvm::TargetMachine> TM;
  };
  llvm::Expected<Lease> lease();

  /// How many machines the pool has made.
  unsigned made() const;

private:
  llvm::orc::JITTargetMachineBuilder Builder;
  mutable std::mutex Lock;
  std::vector<std::unique_ptr<llvm::TargetMachine>> Spare;
  unsigned Made = 0;
  /// What a new machine says.
  llvm::CodeGenOptLevel Level = llvm::CodeGenOptLevel::Default;
  bool FastISel = false;
};

} // namespace graphjit

#endif
