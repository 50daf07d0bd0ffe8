//===- CallPlan.cpp - What a Function precomputes for its calls ----------===//

#include "link/call/CallPlan.h"

using namespace graphjit;

CallPlan::CallPlan(const FunctionGraph &F, const Schedule &S)
    : Commit(F, S) {
  std::vector<Variable *> Vars = F.variables();
  NumVars = Vars.size();
  for (Variable *V : F.inputs())
    InputIds.push_back(V->id());
  SetIds = InputIds;
  for (Variable *V : Vars) {
    if (V->kind() == Variable::Constant) {
      Constants.push_back({V->id(), &V->constantValue()});
      continue;
    }
    ClearIds.push_back(V->id());
    if (V->kind() == Variable::SharedRead) {
      SharedReads.push_back({V->id(), V->shared()});
      SetIds.push_back(V->id());
    }
  }
  llvm::ArrayRef<Variable *> Outs = F.outputs();
  for (unsigned I = 0; I < Outs.size(); ++I) {
    OutputIds.push_back(Outs[I]->id());
    MoveOutput.push_back(Outs[I]->kind() == Variable::Result &&
                         !llvm::is_contained(Outs.drop_front(I + 1), Outs[I]));
  }

  // As the py linker has always freed: a node's inputs, then its outputs.
  ReleaseAfter.resize(S.Order.size());
  for (unsigned Pos = 0; Pos < S.Order.size(); ++Pos) {
    const Apply &N = *S.Order[Pos];
    for (llvm::ArrayRef<Variable *> List : {N.inputs(), N.outputs()})
      for (Variable *V : List)
        if (S.LastUse[V->id()] == int(Pos) &&
            !llvm::is_contained(ReleaseAfter[Pos], V->id()))
          ReleaseAfter[Pos].push_back(V->id());
  }

  ResultIds = OutputIds;
  for (const Update &U : F.updates())
    ResultIds.push_back(U.Value->id());
  for (const Update &U : F.updates())
    MoveUpdate.push_back(U.Value->kind() == Variable::Result &&
                         llvm::count(ResultIds, U.Value->id()) == 1);

  // The checks of Function::bindInputs(), in its order, with no sizes
  // given: a symbol is bound where it first appears and checked after.
  llvm::StringMap<int> SymbolIndex;
  for (Variable *V : F.inputs()) {
    const TensorType &T = V->type();
    InputCheck C{T.Dtype, T.rank(), unsigned(DimChecks.size()), 0};
    for (unsigned D = 0; D < T.rank(); ++D) {
      const Dim &Want = T.Dims[D];
      if (Want.isKnown()) {
        DimChecks.push_back({D, Want.Size, -1, false});
        continue;
      }
      if (!Want.isSymbolic())
        continue;
      auto [It, New] = SymbolIndex.try_emplace(Want.Symbol, Symbols.size());
      if (New)
        Symbols.push_back(Want.Symbol);
      DimChecks.push_back({D, -1, It->second, New});
    }
    C.NumDims = DimChecks.size() - C.FirstDim;
    InputChecks.push_back(C);
  }
  // JIT code indexes gj_frame::dims in the graph's own order.
  assert(Symbols == F.inputSymbols());
}

bool CallPlan::bind(llvm::ArrayRef<NDArray> Inputs,
                    llvm::ArrayRef<int64_t *> DimSlots) const {
  if (Inputs.size() != InputChecks.size())
    return false;
  for (unsigned I = 0; I < Inputs.size(); ++I) {
    const NDArray &A = Inputs[I];
    const InputCheck &C = InputChecks[I];
    if (A.isNull() || A.dtype() != C.Dtype || A.rank() != C.Rank)
      return false;
    for (unsigned K = C.FirstDim, E = C.FirstDim + C.NumDims; K < E; ++K) {
      const DimCheck &D = DimChecks[K];
      int64_t Got = A.dim(D.Axis);
      if (D.Symbol < 0) {
        if (Got != D.Size)
          return false;
      } else if (D.Binds) {
        *DimSlots[D.Symbol] = Got;
      } else if (*DimSlots[D.Symbol] != Got) {
        return false;
      }
    }
  }
  return true;
}

CallState::CallState(const CallPlan &P, llvm::ArrayRef<Apply *> Nodes,
                     bool Jit, const StoragePlan *Storage)
    : Values(P.NumVars), Runner(Nodes) {
  for (auto [Id, Value] : P.Constants)
    Values[Id] = *Value;
  if (Jit) // Syncs the constants' slots, which no call changes.
    Frame = std::make_unique<CallFrame>(Values, Nodes, Runner, Storage,
                                        P.Commit.empty() ? nullptr : &P.Commit);
  for (unsigned Id : P.ClearIds)
    if (!Storage || !Storage->isPlanned(Id))
      ClearIds.push_back(Id);
  // StringMap entries never move, so their values can be written directly.
  for (const std::string &S : P.Symbols)
    DimSlots.push_back(&Dims.try_emplace(S, 0).first->second);
  SymbolSizes.assign(P.Symbols.size(), 0);
  if (Frame)
    Frame->setSymbolSizes(SymbolSizes.data());
}

void CallState::setSymbolSizes(const CallPlan &P, const DimBindings *Bound) {
  for (size_t K = 0; K < SymbolSizes.size(); ++K)
    SymbolSizes[K] = Bound ? Bound->lookup(P.Symbols[K]) : *DimSlots[K];
}

void CallState::clear() {
  for (unsigned Id : ClearIds)
    Values[Id].dropBuffer();
  if (Frame)
    Frame->end(ClearIds);
}
