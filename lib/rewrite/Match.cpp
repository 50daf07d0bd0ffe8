//===- Match.cpp - Recognizing Applies the rewrites look for -------------===//

#include "Match.h"
#include "ops/shape/ShapeOps.h"
#include "llvm/Support/Casting.h"

using namespace graphjit;
using namespace graphjit::rewrite;

const Elemwise *rewrite::elemwiseOp(const RNode &N) {
  return llvm::dyn_cast<Elemwise>(&N.op());
}

const Elemwise *rewrite::elemwiseOf(const RNode &N, ScalarOpKind K) {
  const Elemwise *E = elemwiseOp(N);
  if (!E || E->composite() || E->inplaceInput() >= 0)
    return nullptr;
  return E->scalarOp() == K ? E : nullptr;
}

RNode *rewrite::liveOwner(const RValue &V) {
  return V.Owner && !V.Owner->Dead ? V.Owner : nullptr;
}

RNode *rewrite::producedBy(const RValue &V, ScalarOpKind K) {
  RNode *P = liveOwner(V);
  return P && elemwiseOf(*P, K) ? P : nullptr;
}

std::optional<std::vector<int>> rewrite::dimShufflePattern(const RNode &N) {
  llvm::StringRef Name = N.OpName;
  if (!llvm::isa<DimShuffleOp>(N.op()) || !Name.consume_front("DimShuffle{") ||
      !Name.consume_back("}"))
    return std::nullopt;
  std::vector<int> P;
  if (Name.empty())
    return P;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Name.split(Parts, ',');
  for (llvm::StringRef S : Parts) {
    int D;
    if (S == "x")
      P.push_back(-1);
    else if (!S.getAsInteger(10, D) && D >= 0)
      P.push_back(D);
    else
      return std::nullopt;
  }
  return P;
}

RValue *rewrite::transposed(const RValue &V) {
  RNode *P = liveOwner(V);
  if (!P || P->Inputs.size() != 1 || P->Inputs[0]->Type.rank() != 2)
    return nullptr;
  std::optional<std::vector<int>> Pattern = dimShufflePattern(*P);
  if (!Pattern || *Pattern != std::vector<int>{1, 0})
    return nullptr;
  return P->Inputs[0];
}

std::optional<double> rewrite::constantScalar(const RValue &V) {
  if (!V.isConstant() || V.Value.numElements() != 1)
    return std::nullopt;
  if (isFloat(V.Value.dtype()))
    return V.Value.getDouble(0);
  return double(V.Value.getInt(0));
}
