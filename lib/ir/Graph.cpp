//===- Graph.cpp - Variables, Apply nodes, FunctionGraphs ----------------===//

#include "graphjit/Graph.h"
#include "llvm/ADT/STLExtras.h"

using namespace graphjit;

std::string SourceLoc::fileLine() const {
  if (!isValid())
    return "<api>";
  return (File ? *File : std::string("<input>")) + ":" + std::to_string(Line);
}

std::string SourceLoc::str() const {
  return fileLine() + (isValid() ? ":" + std::to_string(Col) : "");
}

std::string SharedInit::str() const {
  switch (K) {
  case Zeros: return "zeros";
  case Ones: return "ones";
  case Number: return Spelling.empty() ? formatFloatLiteral(A) : Spelling;
  case Uniform:
    return "uniform(" + formatFloatLiteral(A) + ", " + formatFloatLiteral(B) +
           ", seed=" + std::to_string(Seed) + ")";
  case Normal:
    return "normal(" + formatFloatLiteral(A) + ", " + formatFloatLiteral(B) +
           ", seed=" + std::to_string(Seed) + ")";
  case Npy: {
    std::string Quoted = "\"";
    for (char C : Path) {
      if (C == '"' || C == '\\')
        Quoted += '\\';
      Quoted += C;
    }
    return "npy(" + Quoted + "\")";
  }
  }
  return "";
}

std::string Variable::displayName() const {
  if (!Name.empty())
    return Name;
  switch (K) {
  case Constant:
    return "TensorConstant{" +
           (Literal.empty() ? Value.str(10) : Literal) + "}";
  case SharedRead: return Shared->Name;
  case Result:
    return Owner->op().name() + "." + std::to_string(OutIndex);
  case Input: break;
  }
  return "<unnamed>";
}

std::string Apply::displayName() const {
  std::string S = TheOp->name() + "(";
  for (size_t I = 0; I < Inputs.size(); ++I) {
    if (I)
      S += ", ";
    S += Inputs[I]->displayName();
  }
  return S + ")";
}

int graphjit::sharedInputOverwritten(const Apply &A) {
  for (unsigned K = 0; K < A.outputs().size(); ++K) {
    OutputAlias Al = A.op().outputAlias(K);
    if (Al.K == OutputAlias::Inplace && Al.Input >= 0 &&
        size_t(Al.Input) < A.inputs().size() &&
        A.inputs()[Al.Input]->kind() == Variable::SharedRead)
      return Al.Input;
  }
  return -1;
}

std::vector<Apply *> FunctionGraph::applies() const {
  std::vector<Apply *> R;
  for (const auto &N : Nodes)
    R.push_back(N.get());
  return R;
}

std::vector<Variable *> FunctionGraph::variables() const {
  std::vector<Variable *> R;
  for (const auto &V : Vars)
    R.push_back(V.get());
  return R;
}

Variable *FunctionGraph::sharedRead(const SharedVariable *S) const {
  return SharedReads.lookup(S);
}

std::vector<Apply *> FunctionGraph::clients(const Variable *V) const {
  std::vector<Apply *> R;
  for (const auto &N : Nodes)
    if (llvm::is_contained(N->Inputs, V))
      R.push_back(N.get());
  return R;
}

static void collectSymbols(const Variable *V, std::vector<std::string> &R) {
  for (const Dim &D : V->type().Dims)
    if (D.isSymbolic() && !llvm::is_contained(R, D.Symbol))
      R.push_back(D.Symbol);
}

std::vector<std::string> FunctionGraph::inputSymbols() const {
  std::vector<std::string> R;
  for (Variable *In : Inputs)
    collectSymbols(In, R);
  return R;
}

std::vector<std::string> FunctionGraph::symbolicDims() const {
  // The inputs' dims first; then names that only ops use (reshape, alloc).
  std::vector<std::string> R = inputSymbols();
  for (const auto &V : Vars)
    collectSymbols(V.get(), R);
  return R;
}

Variable *FunctionGraph::newVariable(Variable::Kind K, TensorType T) {
  auto V = std::make_unique<Variable>();
  V->K = K;
  V->Ty = std::move(T);
  V->Id = Vars.size();
  Vars.push_back(std::move(V));
  return Vars.back().get();
}

Variable *FunctionGraph::addInput(std::string Name, TensorType T,
                                  SourceLoc Loc) {
  Variable *V = newVariable(Variable::Input, std::move(T));
  V->Name = std::move(Name);
  V->Loc = std::move(Loc);
  Inputs.push_back(V);
  return V;
}

Variable *FunctionGraph::addConstant(NDArray Value, std::string Literal,
                                     bool Weak, SourceLoc Loc) {
  std::vector<Dim> Dims;
  for (int64_t D : Value.shape())
    Dims.push_back(Dim::known(D));
  Variable *V = newVariable(Variable::Constant,
                            TensorType(Value.dtype(), std::move(Dims)));
  V->Value = std::move(Value);
  V->Literal = std::move(Literal);
  V->Weak = Weak;
  V->WeakFloat = Weak && isFloat(V->Value.dtype());
  V->Loc = std::move(Loc);
  return V;
}

Variable *FunctionGraph::addSharedRead(SharedVariable *S, SourceLoc Loc) {
  if (Variable *V = SharedReads.lookup(S))
    return V;
  Variable *V = newVariable(Variable::SharedRead, S->Type);
  V->Shared = S;
  V->Loc = std::move(Loc);
  SharedReads[S] = V;
  return V;
}

Apply *FunctionGraph::addApply(OpRef TheOp, std::vector<Variable *> Ins,
                               const std::vector<TensorType> &OutTypes,
                               SourceLoc Loc, std::vector<std::string> Rewrites,
                               std::vector<SourceLoc> Locs) {
  auto N = std::make_unique<Apply>();
  N->TheOp = std::move(TheOp);
  N->Inputs = std::move(Ins);
  N->Id = Nodes.size();
  N->Loc = std::move(Loc);
  N->Rewrites = std::move(Rewrites);
  // Only a node standing for several statements keeps a list.
  if (Locs.size() > 1)
    N->Locs = std::move(Locs);
  for (unsigned I = 0; I < OutTypes.size(); ++I) {
    Variable *V = newVariable(Variable::Result, OutTypes[I]);
    V->Owner = N.get();
    V->OutIndex = I;
    V->Loc = N->Loc;
    N->Outputs.push_back(V);
  }
  Nodes.push_back(std::move(N));
  return Nodes.back().get();
}

void FunctionGraph::retypeLiteral(Variable *V, DType T) {
  V->Settled = true;
  if (V->Ty.Dtype == T)
    return;
  V->Value = V->Value.astype(T);
  V->Ty.Dtype = T;
}

SharedVariable *GraphModule::lookupShared(llvm::StringRef Name) const {
  for (const auto &S : Shared)
    if (S->Name == Name)
      return S.get();
  return nullptr;
}

FunctionGraph *GraphModule::lookupFunction(llvm::StringRef Name) const {
  for (const auto &F : Functions)
    if (F->name() == Name)
      return F.get();
  return nullptr;
}

SharedVariable *GraphModule::addShared(std::string Name, TensorType T,
                                       SharedInit Init, SourceLoc Loc) {
  auto S = std::make_unique<SharedVariable>();
  S->Name = std::move(Name);
  S->Type = std::move(T);
  S->Init = std::move(Init);
  S->Loc = std::move(Loc);
  Shared.push_back(std::move(S));
  return Shared.back().get();
}

FunctionGraph *GraphModule::addFunction(std::string Name) {
  Functions.push_back(std::make_unique<FunctionGraph>(this, std::move(Name)));
  return Functions.back().get();
}
