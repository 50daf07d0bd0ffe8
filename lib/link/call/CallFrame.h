//===- CallFrame.h - The runtime's side of one JIT call --------*- C++ -*-===//
//
// A CallFrame is what gj_frame::impl points to while JIT code runs: the
// call's values (NDArrays, by Variable id, owning their memory), the slots
// JIT code reads (their data pointers, shapes and strides), the storages of
// the memory plan (codegen/StoragePlan.h), and the first error. The gj_*
// entry points of RuntimeABI.h work on it.
//
// A planned value exists only in its slot and storage until the runtime
// needs it as an NDArray (an input of a Py op or of gj_prepare, a result):
// materialize() then makes its Values entry share the storage's buffer and
// marks the storage handed out, so that the next value placed there first
// asks gj_storage_grow, which reuses the buffer only if nothing holds it.
//
// A frame lives as long as the CallState that owns it and serves one call
// at a time: begin() starts a call, end() drops what the call left.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_CALLFRAME_H
#define GRAPHJIT_RUNTIME_CALLFRAME_H

#include "codegen/StoragePlan.h"
#include "graphjit/Graph.h"
#include "link/call/NodeRunner.h"
#include "link/call/UpdateCommit.h"
#include "runtime/ProfileRuntime.h"
#include "graphjit/runtime/RuntimeABI.h"
#include <string>
#include <vector>

namespace graphjit {

class FunctionProfiler;

class CallFrame {
public:
  /// Values: the call's values by Variable id (sized already); Nodes: the
  /// Applies by id; Runner runs them outside JIT code; Plan: where the
  /// planned values live (null: nothing is planned); Commit: the updates
  /// in place (null: none), checked when the first of them asks to run.
  CallFrame(std::vector<NDArray> &Values, llvm::ArrayRef<Apply *> Nodes,
            NodeRunner &Runner, const StoragePlan *Plan,
            const UpdateCommit *Commit = nullptr);

  gj_frame *abi() { return &Abi; }
  /// Where JIT code reads the call's symbolic dims (gj_frame::dims).
  void setSymbolSizes(const int64_t *Sizes) { Abi.dims = Sizes; }
  static CallFrame &of(gj_frame *F) {
    return *static_cast<CallFrame *>(F->impl);
  }

  /// Starts a call: Vars are the variables whose values the caller has just
  /// set (the others' slots are filled as nodes make them).
  void begin(const ExecContext &Ctx, llvm::ArrayRef<unsigned> Vars);
  /// Forgets the data pointers of Vars once the call is over, and the
  /// planned values it materialized.
  void end(llvm::ArrayRef<unsigned> Vars);

  /// Copies Values[Var]'s descriptor into its slot.
  void syncSlot(unsigned Var);
  /// Where JIT code last left Var's value (StepCall reads results there).
  const gj_slot &slot(unsigned Var) const { return Slots[Var]; }
  /// Runs Step of node Id and syncs its outputs' slots; 0 or an error code.
  int32_t runNode(int32_t Id, int Step);
  int32_t compute(int32_t Id);
  void release(int32_t Var);
  char *growStorage(int32_t Storage, int64_t Bytes);
  int32_t failPlanned(int32_t Id);

  /// Makes planned value Var's Values entry, if it has none (see above).
  void materialize(unsigned Var);
  void materialize(llvm::ArrayRef<unsigned> Vars) {
    for (unsigned V : Vars)
      materialize(V);
  }
  /// Tells the profiler (when it records tensors) what the planned
  /// Applies saw, from their slots; after the driver ran.
  void reportPlannedApplies(llvm::ArrayRef<Apply *> Order);
  /// If planned value Var was materialized and only its storage holds its
  /// memory besides it, the storage lets go of it (and will ask for new),
  /// so that the value alone holds it.
  void giveUpStorage(unsigned Var);

  /// The error of a failed call, in the linkers' common wording.
  std::string Error;
  /// Set while the function is profiled: Applies report what they made.
  FunctionProfiler *Profiler = nullptr;

private:
  gj_frame Abi;
  std::vector<gj_slot> Slots;
  std::vector<NDArray> &Values;
  llvm::ArrayRef<Apply *> Nodes;
  NodeRunner &Runner;
  const ExecContext *Ctx = nullptr;
  const StoragePlan *Plan;
  const UpdateCommit *Commit;
  bool Committed = false; ///< In this call.
  std::vector<gj_storage> Storages; ///< What JIT code reads, by storage.
  /// By storage: its memory, and the values materialized from it (the
  /// value it holds, views of it) since a value was last placed there.
  std::vector<std::shared_ptr<Buffer>> StorageBuffers;
  std::vector<llvm::SmallVector<unsigned, 2>> HandedOutAs;
  std::vector<unsigned> Materialized; ///< In this call.
  std::vector<const Variable *> PlannedVars; ///< By Variable id, or null.
  int32_t fail(llvm::Error E);
  void materializeInputs(const Apply &N);
  llvm::Error commit();
};

/// The entry points above, for binding in the JIT (JitEngine::
/// registerSymbols, called by graphjit::initialize()).
llvm::ArrayRef<RuntimeSymbol> frameSymbols();

} // namespace graphjit

#endif
