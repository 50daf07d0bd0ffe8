//===- RewriteGraph.cpp - The optimizer's mutable graph ------------------===//

#include "RewriteGraph.h"
#include "ops/elemwise/ElemwiseOps.h"
#include "ops/linalg/GemmOp.h"
#include "graphjit/OpRegistry.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Casting.h"
#include <algorithm>
#include <cstring>

using namespace graphjit;
using namespace graphjit::rewrite;
using llvm::Expected;

std::string rewrite::describeNode(const RNode &N) {
  std::string S = "Apply " + N.OpName + " (" + N.Loc.str();
  if (!N.MadeBy.empty())
    S += ", made by " + llvm::join(N.MadeBy, ", ");
  return S + ")";
}

RValue *RewriteGraph::newValue(Variable::Kind K, TensorType T) {
  auto V = std::make_unique<RValue>();
  V->Kind = K;
  V->Type = std::move(T);
  V->Id = Values.size();
  Values.push_back(std::move(V));
  return Values.back().get();
}

void RewriteGraph::addUse(RValue *V, RNode *Client) {
  ++V->Uses;
  if (V->Clients.empty() || V->Clients.back() != Client)
    V->Clients.push_back(Client);
}

std::unique_ptr<RewriteGraph> RewriteGraph::build(const FunctionGraph &F) {
  std::unique_ptr<RewriteGraph> G(new RewriteGraph(F));
  std::vector<Variable *> Vars = F.variables();
  std::vector<RValue *> ById(Vars.size());
  for (Variable *V : Vars) {
    RValue *R = G->newValue(V->kind(), V->type());
    R->Name = V->name();
    R->Loc = V->loc();
    if (V->kind() == Variable::Constant) {
      R->Value = V->constantValue();
      R->Literal = V->literalText();
      R->Weak = V->isWeakLiteral();
      R->Settled = V->isSettledLiteral();
    }
    R->Shared = V->shared();
    ById[V->id()] = R;
  }
  for (Apply *A : F.applies()) {
    auto N = std::make_unique<RNode>();
    N->Op = A->opRef();
    N->OpName = A->op().name();
    N->Id = N->Position = G->Nodes.size();
    N->Loc = A->loc();
    N->Locs = A->sourceLocs().vec();
    N->MadeBy = A->rewrites().vec();
    for (Variable *In : A->inputs()) {
      N->Inputs.push_back(ById[In->id()]);
      G->addUse(ById[In->id()], N.get());
    }
    for (Variable *Out : A->outputs()) {
      RValue *R = ById[Out->id()];
      R->Owner = N.get();
      R->OutIndex = Out->outputIndex();
      N->Outputs.push_back(R);
    }
    G->Nodes.push_back(std::move(N));
    ++G->LiveNodes;
  }
  for (Variable *In : F.inputs()) {
    RValue *R = ById[In->id()];
    G->Inputs.push_back(R);
    for (unsigned D = 0; D < R->Type.rank(); ++D)
      if (R->Type.Dims[D].isSymbolic())
        G->BoundDims.try_emplace(R->Type.Dims[D].Symbol, R, D);
  }
  for (Variable *Out : F.outputs()) {
    G->OutputValues.push_back(ById[Out->id()]);
    ++ById[Out->id()]->Uses;
  }
  for (const Update &U : F.updates()) {
    G->UpdateValues.push_back(ById[U.Value->id()]);
    ++ById[U.Value->id()]->Uses;
  }
  return G;
}

RValue *RewriteGraph::resolve(RValue *V) {
  // Chains are short (a value replaced, its replacement replaced, ...).
  while (V->ReplacedBy)
    V = V->ReplacedBy;
  return V;
}

Expected<RNode *> RewriteGraph::makeNode(llvm::StringRef FormatName,
                                         llvm::ArrayRef<RValue *> Ins,
                                         const AttrMap &Attrs) {
  Expected<OpRef> Op = OpRegistry::get().make(FormatName, Attrs, Ins.size());
  if (!Op)
    return Op.takeError();
  return makeNode(std::move(*Op), Ins);
}

Expected<RNode *> RewriteGraph::makeNode(OpRef Op,
                                         llvm::ArrayRef<RValue *> Ins) {
  std::vector<TensorType> InTypes;
  for (RValue *V : Ins)
    InTypes.push_back(V->Type);
  Expected<std::vector<TensorType>> OutTypes = Op->inferTypes(InTypes);
  if (!OutTypes)
    return OutTypes.takeError();
  auto N = std::make_unique<RNode>();
  N->Op = std::move(Op);
  N->OpName = N->Op->name(); // after inferTypes: transpose learns its rank
  N->Id = N->Position = Nodes.size();
  for (RValue *V : Ins) {
    N->Inputs.push_back(V);
    addUse(V, N.get());
  }
  for (unsigned I = 0; I < OutTypes->size(); ++I) {
    RValue *R = newValue(Variable::Result, (*OutTypes)[I]);
    R->Owner = N.get();
    R->OutIndex = I;
    N->Outputs.push_back(R);
  }
  Nodes.push_back(std::move(N));
  ++LiveNodes;
  return Nodes.back().get();
}

RValue *RewriteGraph::makeConstant(NDArray Value, SourceLoc Loc) {
  std::vector<Dim> Dims;
  for (int64_t D : Value.shape())
    Dims.push_back(Dim::known(D));
  RValue *C =
      newValue(Variable::Constant, TensorType(Value.dtype(), std::move(Dims)));
  C->Value = std::move(Value);
  C->Loc = std::move(Loc);
  return C;
}

void RewriteGraph::replaceAllUses(RValue *Old, RValue *New,
                                  std::vector<RNode *> &Touched) {
  if (Old == New)
    return;
  std::vector<RNode *> Clients = std::move(Old->Clients);
  Old->Clients.clear();
  for (RNode *C : Clients) {
    if (C->Dead)
      continue;
    bool Changed = false;
    for (RValue *&In : C->Inputs)
      if (In == Old) {
        In = New;
        --Old->Uses;
        addUse(New, C);
        Changed = true;
      }
    if (Changed)
      Touched.push_back(C);
  }
  // What is left are outputs and updates: they follow ReplacedBy.
  New->Uses += Old->Uses;
  Old->Uses = 0;
  Old->ReplacedBy = New;
}

void RewriteGraph::removeIfUnused(RNode *Root) {
  std::vector<RNode *> Work{Root};
  while (!Work.empty()) {
    RNode *N = Work.back();
    Work.pop_back();
    if (N->Dead)
      continue;
    bool Used = false;
    for (RValue *Out : N->Outputs)
      Used |= Out->Uses > 0;
    if (Used)
      continue;
    N->Dead = true;
    --LiveNodes;
    for (RValue *In : N->Inputs) {
      --In->Uses;
      if (In->Uses == 0 && In->Owner && !In->Owner->Dead)
        Work.push_back(In->Owner);
    }
  }
}

void RewriteGraph::removeUnreachable() {
  // Imported Applies are in topological order: consumers go first, and
  // removing one removes what only it used.
  for (size_t I = Nodes.size(); I-- > 0;)
    removeIfUnused(Nodes[I].get());
}

std::vector<RNode *> RewriteGraph::order(RNode **OnCycle) const {
  enum : uint8_t { White, Gray, Black };
  std::vector<uint8_t> Color(Nodes.size(), White);
  std::vector<RNode *> Order;
  Order.reserve(LiveNodes);
  std::vector<std::pair<RNode *, unsigned>> Stack;
  *OnCycle = nullptr;
  std::vector<RNode *> Roots;
  Roots.reserve(LiveNodes);
  for (const auto &N : Nodes)
    if (!N->Dead)
      Roots.push_back(N.get());
  // Updates in place come last: nothing reads them, and every other
  // reader of the shared variables they overwrite must run first.
  std::vector<bool> Last(Nodes.size(), false);
  for (RNode *N : Roots)
    Last[N->Id] = overwritesShared(*N);
  std::sort(Roots.begin(), Roots.end(), [&](RNode *A, RNode *B) {
    if (Last[A->Id] != Last[B->Id])
      return bool(Last[B->Id]);
    return A->Position != B->Position ? A->Position < B->Position
                                      : A->Id < B->Id;
  });
  for (RNode *Root : Roots) {
    if (Color[Root->Id] != White)
      continue;
    Color[Root->Id] = Gray;
    Stack.push_back({Root, 0});
    while (!Stack.empty()) {
      RNode *N = Stack.back().first;
      unsigned I = Stack.back().second;
      if (I == N->Inputs.size()) {
        Color[N->Id] = Black;
        Order.push_back(N);
        Stack.pop_back();
        continue;
      }
      ++Stack.back().second;
      RNode *P = N->Inputs[I]->Owner;
      if (!P || P->Dead)
        continue;
      if (Color[P->Id] == Gray) {
        *OnCycle = P;
        return {};
      }
      if (Color[P->Id] == White) {
        Color[P->Id] = Gray;
        Stack.push_back({P, 0});
      }
    }
  }
  return Order;
}

std::vector<RNode *> RewriteGraph::topologicalOrder() const {
  RNode *OnCycle;
  return order(&OnCycle);
}

Expected<std::unique_ptr<FunctionGraph>>
RewriteGraph::write(bool KeepUnused) const {
  RNode *OnCycle = nullptr;
  std::vector<RNode *> Order = order(&OnCycle);
  if (OnCycle)
    return llvm::createStringError("the rewritten graph has a cycle through " +
                                   describeNode(*OnCycle));
  auto G = std::make_unique<FunctionGraph>(Source.module(), Source.name());
  G->setLoc(Source.loc());
  std::vector<Variable *> Map(Values.size(), nullptr);
  auto Named = [&](RValue *R, Variable *V) {
    if (!R->Name.empty() && V->kind() != Variable::Input)
      G->setName(V, R->Name);
    Map[R->Id] = V;
  };
  for (RValue *In : Inputs)
    Map[In->Id] = G->addInput(In->Name, In->Type, In->Loc);

  // Constants and shared reads first, in the order they were made.
  std::vector<bool> Used(Values.size(), KeepUnused);
  for (RNode *N : Order)
    for (RValue *In : N->Inputs)
      Used[In->Id] = true;
  for (RValue *V : OutputValues)
    Used[resolve(V)->Id] = true;
  for (RValue *V : UpdateValues)
    Used[resolve(V)->Id] = true;
  for (const auto &R : Values) {
    if (!Used[R->Id])
      continue;
    if (R->Kind == Variable::Constant) {
      Variable *V = G->addConstant(R->Value, R->Literal, R->Weak, R->Loc);
      if (R->Settled)
        G->retypeLiteral(V, R->Type.Dtype);
      Named(R.get(), V);
    } else if (R->Kind == Variable::SharedRead) {
      Named(R.get(), G->addSharedRead(R->Shared, R->Loc));
    }
  }

  for (RNode *N : Order) {
    std::vector<Variable *> Ins;
    for (RValue *In : N->Inputs) {
      if (!Map[In->Id])
        return llvm::createStringError("internal error: " + describeNode(*N) +
                                       " uses a value that no Apply makes");
      Ins.push_back(Map[In->Id]);
    }
    std::vector<TensorType> OutTypes;
    for (RValue *Out : N->Outputs)
      OutTypes.push_back(Out->Type);
    Apply *A = G->addApply(N->Op, std::move(Ins), OutTypes, N->Loc, N->MadeBy,
                           N->Locs);
    for (unsigned I = 0; I < N->Outputs.size(); ++I)
      Named(N->Outputs[I], A->output(I));
  }

  auto Lookup = [&](RValue *V) -> Variable * { return Map[resolve(V)->Id]; };
  for (size_t I = 0; I < OutputValues.size(); ++I) {
    Variable *V = Lookup(OutputValues[I]);
    if (!V)
      return llvm::createStringError(
          "internal error: an output of the rewritten graph is not defined");
    G->addOutput(V, Source.outputName(I));
  }
  llvm::ArrayRef<Update> Updates = Source.updates();
  for (size_t I = 0; I < Updates.size(); ++I) {
    if (!Lookup(UpdateValues[I]))
      return llvm::createStringError("internal error: the update of '" +
                                     Updates[I].Target->Name +
                                     "' is not defined after rewriting");
    G->addUpdate(Updates[I].Target, Lookup(UpdateValues[I]), Updates[I].Loc);
  }
  return G;
}

static const char *constantBytes(const NDArray &A, NDArray &Keep) {
  if (A.isContiguous())
    return A.data();
  Keep = A.contiguous();
  return Keep.data();
}

bool RewriteGraph::sameConstant(RValue &A, RValue &B) {
  if (A.Value.dtype() != B.Value.dtype() || A.Value.shape() != B.Value.shape())
    return false;
  if (constantHash(A) != constantHash(B))
    return false;
  if (A.Value.numBytes() == 0)
    return true;
  NDArray KeepA, KeepB;
  const char *PA = constantBytes(A.Value, KeepA);
  const char *PB = constantBytes(B.Value, KeepB);
  // Bytes, not values: 0.0 and -0.0 differ, and NaNs are kept as they are.
  return std::memcmp(PA, PB, A.Value.numBytes()) == 0;
}

size_t RewriteGraph::constantHash(RValue &C) {
  if (C.Hashed)
    return C.ContentHash;
  NDArray Keep;
  const char *P = constantBytes(C.Value, Keep);
  llvm::hash_code H = llvm::hash_combine(
      unsigned(C.Value.dtype()),
      llvm::hash_combine_range(C.Value.shape().begin(), C.Value.shape().end()),
      llvm::hash_combine_range(P, P + C.Value.numBytes()));
  C.ContentHash = size_t(H);
  C.Hashed = true;
  return C.ContentHash;
}

void RewriteGraph::dropInplace() {
  for (const auto &N : Nodes) {
    if (N->Dead)
      continue;
    if (const auto *E = llvm::dyn_cast<Elemwise>(&N->op())) {
      if (E->inplaceInput() < 0)
        continue;
      N->Op = E->withInplace(-1);
    } else if (std::optional<GemmParams> P = gemmParams(N->op());
               P && P->Inplace) {
      AttrMap Attrs = N->op().attrs();
      Attrs.erase("inplace");
      // The attributes came from a valid op: remaking it cannot fail.
      N->Op = llvm::cantFail(
          OpRegistry::get().make("gemm", Attrs, N->Inputs.size()));
    } else {
      continue;
    }
    N->OpName = N->Op->name();
  }
}

bool rewrite::overwritesShared(const RNode &N) {
  for (unsigned K = 0; K < N.Outputs.size(); ++K) {
    OutputAlias Al = N.op().outputAlias(K);
    if (Al.K == OutputAlias::Inplace && Al.Input >= 0 &&
        size_t(Al.Input) < N.Inputs.size() &&
        N.Inputs[Al.Input]->Kind == Variable::SharedRead)
      return true;
  }
  return false;
}
