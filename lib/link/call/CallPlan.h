//===- CallPlan.h - What a Function precomputes for its calls --*- C++ -*-===//
//
// A call of a compiled Function should do only the work its arguments
// require. CallPlan is what depends on the graph alone, computed once when
// the Function is made: which values a call sets and clears, how the
// inputs' dims are checked and bind the symbolic dims (so that binding does
// no string work and no hashing), and what allow_gc frees after each node.
// CallState is what one call works in (its values, the JIT frame, the dim
// bindings); a Function keeps one between calls and reuses it, so that a
// call allocates little beyond its new arrays.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_LINK_CALLPLAN_H
#define GRAPHJIT_LINK_CALLPLAN_H

#include "link/call/NodeRunner.h"
#include "graphjit/Function.h"
#include "link/call/CallFrame.h"
#include "link/call/SpareLease.h"
#include "link/call/UpdateCommit.h"
#include <atomic>
#include <memory>

namespace graphjit {

struct CallPlan {
  CallPlan(const FunctionGraph &F, const Schedule &S);

  unsigned NumVars = 0;
  /// Variable ids of the inputs, in the header's order.
  std::vector<unsigned> InputIds;
  std::vector<std::pair<unsigned, const NDArray *>> Constants;
  std::vector<std::pair<unsigned, const SharedVariable *>> SharedReads;
  /// Values a call sets before any node runs: inputs and shared reads.
  std::vector<unsigned> SetIds;
  /// Values a call leaves behind: all but the constants.
  std::vector<unsigned> ClearIds;
  std::vector<unsigned> OutputIds;
  /// Values the runtime reads after the nodes ran: outputs, update values.
  std::vector<unsigned> ResultIds;
  /// By output: whether the call may move its value out (a node's result
  /// that no later output repeats) rather than copy it.
  std::vector<bool> MoveOutput;
  /// By position in the schedule: the values allow_gc frees after it.
  std::vector<std::vector<unsigned>> ReleaseAfter;
  /// By update: whether its value may become the shared value without a
  /// copy (a node's result that no output or other update also holds),
  /// when the call alone holds its buffer.
  std::vector<bool> MoveUpdate;
  /// The updates in place, checked before the first of them runs.
  UpdateCommit Commit;

  /// The symbolic dims the inputs bind, in order of first binding.
  std::vector<std::string> Symbols;

  /// Whether Inputs pass every check Function::bindInputs() makes when no
  /// sizes are given; if so, *DimSlots[K] is the size of Symbols[K].
  /// Failures are only detected here: bindInputs() words them.
  bool bind(llvm::ArrayRef<NDArray> Inputs,
            llvm::ArrayRef<int64_t *> DimSlots) const;

private:
  struct InputCheck {
    DType Dtype;
    unsigned Rank;
    unsigned FirstDim, NumDims; ///< Its entries of DimChecks.
  };
  /// One input dim that is known or symbolic.
  struct DimCheck {
    unsigned Axis;
    int64_t Size;  ///< Known: the size; symbolic: -1.
    int Symbol;    ///< Index into Symbols, or -1.
    bool Binds;    ///< The symbol's first appearance.
  };
  std::vector<InputCheck> InputChecks;
  std::vector<DimCheck> DimChecks;
};

/// The working memory of one call, reused by the next.
struct CallState {
  /// Jit: whether the function runs JIT code (and needs a CallFrame);
  /// Storage: where its planned values live (null: none).
  CallState(const CallPlan &P, llvm::ArrayRef<Apply *> Nodes, bool Jit,
            const StoragePlan *Storage);

  std::vector<NDArray> Values; ///< By Variable id; constants stay set.
  NodeRunner Runner;
  std::unique_ptr<CallFrame> Frame;
  /// Holds exactly the symbols CallPlan::bind() binds, at DimSlots.
  DimBindings Dims;
  std::vector<int64_t *> DimSlots;
  /// The same sizes by symbol index, where JIT code reads them
  /// (gj_frame::dims); set by setSymbolSizes().
  std::vector<int64_t> SymbolSizes;
  /// Copies the call's bindings (Bound: the plan's, or bindInputs()'s)
  /// into SymbolSizes.
  void setSymbolSizes(const CallPlan &P, const DimBindings *Bound);

  /// Drops every value the call set or made (keeping their capacity).
  void clear();

private:
  /// CallPlan::ClearIds less the planned values, which only exist as
  /// NDArrays where the frame materialized them (and it drops those).
  std::vector<unsigned> ClearIds;
};

/// Takes one of a Function's spare CallStates for one call (or makes one)
/// and puts it back afterwards, cleared, unless the slots are full.
class CallStateLease : public SpareLease<CallState> {
public:
  CallStateLease(llvm::MutableArrayRef<SpareSlot<CallState>> Spare,
                 const CallPlan &Plan,
                 llvm::ArrayRef<Apply *> Nodes, bool Jit,
                 const StoragePlan *Storage)
      : SpareLease(Spare,
                   [&] { return new CallState(Plan, Nodes, Jit, Storage); }) {}
};

} // namespace graphjit

#endif
