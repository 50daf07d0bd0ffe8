//===- ModuleLowering.h - A FunctionGraph as one LLVM module ---*- C++ -*-===//
//
// Lowers a scheduled FunctionGraph to one LLVM module: a thunk per Apply
// (JIT code where the op has a lowering, a call to gj_perform otherwise;
// outputs planned in the frame's storages where the lowering computes their
// shapes, made by gj_prepare otherwise)
// and the driver `i32 gj_driver(ptr %frame)` that calls the thunks in
// schedule order, stops at the first error, and releases each intermediate
// after its last use when allow_gc is on. Each call of a thunk carries the
// `!graphjit.apply` metadata of the instrumentation contract
// (docs/instrumentation.md).
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LOWER_MODULELOWERING_H
#define GRAPHJIT_LOWER_MODULELOWERING_H

#include "StoragePlan.h"
#include "graphjit/Schedule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include <memory>

namespace graphjit {

struct LoweredModule {
  std::unique_ptr<llvm::LLVMContext> Context;
  std::unique_ptr<llvm::Module> Module;
  /// For each Apply id: whether it runs JIT code ("C") or perform ("Py").
  std::vector<bool> IsCompiled;
  /// Where the planned Applies' outputs live (the frame's storages).
  StoragePlan Storage;
};

/// The name of the driver function in every lowered module.
inline constexpr const char *DriverName = "gj_driver";
/// The named metadata holding the memory plan: each Variable's storage.
inline constexpr const char *StoragePlanMetadata = "graphjit.storage";

/// The Apply markings of M's driver, in call order: "id name kind" each.
std::vector<std::string> applyMarkings(const llvm::Module &M);

/// M (read from File: IR that `-emit-llvm` wrote for this function, maybe
/// instrumented or otherwise transformed since) instead of the lowered
/// module Lowered: an error unless its driver marks the same Applies, in
/// the same order, with the same kinds, and the same memory plan. Slots and
/// node ids are only right for the function the IR was emitted for.
llvm::Expected<LoweredModule> loadLoweredModule(llvm::StringRef File,
                                                const LoweredModule &Lowered);

/// PlanMemory: thunks that can plan their outputs do (StoragePlan.h);
/// otherwise every lowered Apply asks gj_prepare for its outputs (what the
/// memory profile measures).
llvm::Expected<LoweredModule>
lowerFunction(const FunctionGraph &F, const Schedule &S, bool AllowGC,
              bool PlanMemory, const llvm::DataLayout &DL,
              const std::string &Triple);

} // namespace graphjit

#endif
