//===- CallFrame.h - The runtime's side of one JIT call --------*- C++ -*-===//
//
// A CallFrame is what gj_frame::impl points to while JIT code runs: the
// call's values (NDArrays, by Variable id, owning their memory), the slots
// JIT code reads (their data pointers, shapes and strides), and the first
// error. The gj_* entry points of RuntimeABI.h work on it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_RUNTIME_CALLFRAME_H
#define GRAPHJIT_RUNTIME_CALLFRAME_H

#include "graphjit/Graph.h"
#include "runtime/RuntimeABI.h"
#include <string>
#include <vector>

namespace graphjit {

class CallFrame {
public:
  CallFrame(std::vector<NDArray> &Values, llvm::ArrayRef<Apply *> Nodes,
            const ExecContext &Ctx);

  gj_frame *abi() { return &Abi; }
  static CallFrame &of(gj_frame *F) {
    return *static_cast<CallFrame *>(F->impl);
  }

  /// Copies Values[Var]'s descriptor into its slot.
  void syncSlot(unsigned Var);
  /// Runs Step of node Id and syncs its outputs' slots; 0 or an error code.
  int32_t runNode(int32_t Id, int Step);
  int32_t compute(int32_t Id);
  void release(int32_t Var);

  /// The error of a failed call, in the linkers' common wording.
  std::string Error;

private:
  gj_frame Abi;
  std::vector<gj_slot> Slots;
  std::vector<NDArray> &Values;
  llvm::ArrayRef<Apply *> Nodes;
  const ExecContext &Ctx;
  int32_t fail(llvm::Error E);
};

} // namespace graphjit

#endif
