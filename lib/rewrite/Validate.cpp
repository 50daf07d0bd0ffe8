//===- Validate.cpp - Is a FunctionGraph well formed? --------------------===//
//
// What the optimizer checks of its result (Theano's fgraph.validate): that
// every Apply is typed as its op says and defined before its uses, that
// outputs and updates are the function's own variables, and that an Apply
// writing over an input (Theano's destroy_map) only overwrites a value no
// one else can see. It checks any FunctionGraph, so a test can hand it a
// broken one (or a .graph file can ask for an in-place op where it must
// not).
//
//===----------------------------------------------------------------------===//

#include "graphjit/Builder.h"
#include "graphjit/Rewrite.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace graphjit;
using llvm::Error;

namespace {

/// "Apply 3 Elemwise{sqr,no_inplace} (f.graph:7:3, made by pow_specialize)".
std::string describe(const Apply &A) {
  std::string S = "Apply " + std::to_string(A.id()) + " " + A.op().name() +
                  " (" + A.loc().str();
  llvm::ArrayRef<std::string> By = A.rewrites();
  if (!By.empty()) {
    S += ", made by ";
    for (size_t I = 0; I < By.size(); ++I)
      S += (I ? ", " : "") + By[I];
  }
  return S + ")";
}

std::string typesStr(llvm::ArrayRef<TensorType> Ts) {
  std::string S;
  for (const TensorType &T : Ts)
    S += (S.empty() ? "" : ", ") + T.str();
  return S;
}

Error invalid(const FunctionGraph &F, const llvm::Twine &Why) {
  return llvm::createStringError("function '" + F.name() +
                                 "' is not valid: " + Why);
}

/// The variable whose memory V is: V, or what it views or was written
/// over, followed back.
const Variable *memoryRoot(const Variable *V) {
  while (V->kind() == Variable::Result) {
    const Apply *P = V->owner();
    OutputAlias A = P->op().outputAlias(V->outputIndex());
    if (A.K == OutputAlias::Created || A.Input < 0 ||
        size_t(A.Input) >= P->inputs().size())
      break;
    V = P->inputs()[A.Input];
  }
  return V;
}

/// An Apply that writes over a shared variable (its update in place,
/// docs/architecture.md) makes that variable's new value and nothing
/// else reads it; no output or other update is the variable's memory; it
/// reads that memory in no other slot (an Elemwise may read the variable
/// itself again: each element is read before it is written); and no other
/// update in place reads that memory. Order is checked by the caller.
using ReadCounts = llvm::DenseMap<const Variable *, unsigned>;

Error checkSharedOverwrite(const FunctionGraph &F, const Apply &A,
                           unsigned Out, unsigned Slot,
                           const ReadCounts &Reads, const std::string &Which) {
  const Variable *V = A.inputs()[Slot];
  const Variable *O = A.outputs()[Out];
  bool Updates = llvm::any_of(F.updates(), [&](const Update &U) {
    return U.Value == O && U.Target == V->shared();
  });
  if (!Updates || Reads.lookup(O) != 1)
    return invalid(F, Which + "a shared variable, but its result is not "
                              "that variable's update alone");
  for (unsigned K = 0; K < A.inputs().size(); ++K) {
    const Variable *In = A.inputs()[K];
    if (K != Slot && memoryRoot(In) == V &&
        (In != V || A.op().kind() != OpKind::Elemwise))
      return invalid(F, Which + "a shared variable it also reads in input " +
                            llvm::Twine(K));
  }
  for (const Variable *Res : F.outputs())
    if (memoryRoot(Res) == V)
      return invalid(F, Which + "a shared variable that is also an output "
                                "(or viewed by one)");
  for (const Update &U : F.updates())
    if (U.Value != O && memoryRoot(U.Value) == V)
      return invalid(F, Which + "a shared variable that is also another "
                                "update's value (or viewed by it)");
  for (const Apply *M : F.applies())
    if (M != &A && sharedInputOverwritten(*M) >= 0 &&
        llvm::any_of(M->inputs(),
                     [&](const Variable *In) { return memoryRoot(In) == V; }))
      return invalid(F, Which + "a shared variable that " + describe(*M) +
                                ", another update in place, reads");
  return Error::success();
}

/// Every input an Apply writes over is a result of the function's own, not
/// a view of another value's memory, read by that Apply alone (an
/// element-wise op reads each element of all its slots before writing it),
/// and neither an output nor an update: anything else would see it
/// change (the caller's array, a constant, a value read later). The one
/// exception is a shared variable's update in place (above), which runs
/// after every other Apply.
Error checkDestroyed(const FunctionGraph &F) {
  ReadCounts Reads;
  for (const Apply *A : F.applies())
    for (const Variable *In : A->inputs())
      ++Reads[In];
  for (const Variable *Out : F.outputs())
    ++Reads[Out];
  for (const Update &U : F.updates())
    ++Reads[U.Value];
  const Apply *FirstInPlaceUpdate = nullptr;
  for (const Apply *A : F.applies()) {
    if (sharedInputOverwritten(*A) >= 0) {
      if (!FirstInPlaceUpdate)
        FirstInPlaceUpdate = A;
    } else if (FirstInPlaceUpdate) {
      return invalid(F, describe(*A) + " comes after " +
                            describe(*FirstInPlaceUpdate) +
                            ", which updates a shared variable in place: "
                            "such updates must come after every other Apply");
    }
    for (unsigned K = 0; K < A->outputs().size(); ++K) {
      OutputAlias Al = A->op().outputAlias(K);
      if (Al.K != OutputAlias::Inplace)
        continue;
      if (Al.Input < 0 || size_t(Al.Input) >= A->inputs().size())
        return invalid(F, describe(*A) + " overwrites input " +
                              llvm::Twine(Al.Input) + ", which it does not have");
      const Variable *V = A->inputs()[Al.Input];
      std::string Which = describe(*A) + " overwrites its input " +
                          std::to_string(Al.Input) + " (" + V->displayName() +
                          "), which is ";
      if (V->kind() == Variable::SharedRead) {
        if (Error E = checkSharedOverwrite(F, *A, K, Al.Input, Reads, Which))
          return E;
        continue;
      }
      if (V->kind() != Variable::Result)
        return invalid(F, Which + (V->kind() == Variable::Input
                                       ? "an input of the function"
                                       : "a constant"));
      if (V->owner()->op().outputAlias(V->outputIndex()).K == OutputAlias::View)
        return invalid(F, Which + "a view of another value");
      // Its own other slots read each element before it is written.
      if (Reads.lookup(V) != llvm::count(A->inputs(), V))
        return invalid(F, Which + "read elsewhere too (or is an "
                                  "output or an update)");
    }
  }
  return Error::success();
}

} // namespace

Error graphjit::validateFunction(const FunctionGraph &F) {
  std::vector<Variable *> Vars = F.variables();
  std::vector<Apply *> Nodes = F.applies();
  auto Owned = [&](const Variable *V) {
    return V && V->id() < Vars.size() && Vars[V->id()] == V;
  };

  for (size_t I = 0; I < F.inputs().size(); ++I)
    if (!Owned(F.inputs()[I]) || F.inputs()[I]->kind() != Variable::Input)
      return invalid(F, "input " + llvm::Twine(I) +
                            " is not an input variable of the function");

  std::vector<TensorType> InTypes;
  for (size_t I = 0; I < Nodes.size(); ++I) {
    const Apply &A = *Nodes[I];
    if (A.id() != I)
      return invalid(F, describe(A) + " is at position " + llvm::Twine(I));
    InTypes.clear();
    for (size_t K = 0; K < A.inputs().size(); ++K) {
      const Variable *In = A.inputs()[K];
      if (!Owned(In))
        return invalid(F, describe(A) + ": input " + llvm::Twine(K) +
                              " is not a variable of the function");
      if (In->kind() == Variable::Result) {
        const Apply *P = In->owner();
        if (!P || P->id() >= I || Nodes[P->id()] != P ||
            P->outputs().size() <= In->outputIndex() ||
            P->output(In->outputIndex()) != In)
          return invalid(F, describe(A) + ": input " + llvm::Twine(K) + " (" +
                                In->displayName() +
                                ") is not made by an Apply before it");
      }
      if (In->kind() == Variable::SharedRead &&
          (!In->shared() || In->shared()->Type != In->type()))
        return invalid(F, describe(A) + ": input " + llvm::Twine(K) +
                              " reads a shared variable of another type");
      InTypes.push_back(In->type());
    }
    llvm::Expected<std::vector<TensorType>> Want = A.op().inferTypes(InTypes);
    if (!Want)
      return invalid(F, describe(A) + ": its op rejects inputs of types " +
                            typesStr(InTypes) + ": " +
                            llvm::toString(Want.takeError()));
    std::vector<TensorType> Have;
    for (const Variable *Out : A.outputs())
      Have.push_back(Out->type());
    if (Have != *Want)
      return invalid(F, describe(A) + ": its outputs have types " +
                            typesStr(Have) + ", but its op gives " +
                            typesStr(*Want));
    for (size_t K = 0; K < A.outputs().size(); ++K) {
      const Variable *Out = A.outputs()[K];
      if (!Owned(Out) || Out->kind() != Variable::Result ||
          Out->owner() != &A || Out->outputIndex() != K)
        return invalid(F, describe(A) + ": output " + llvm::Twine(K) +
                              " is not its own");
    }
  }

  if (Error E = checkDestroyed(F))
    return E;

  for (size_t I = 0; I < F.outputs().size(); ++I)
    if (!Owned(F.outputs()[I]))
      return invalid(F, "output " + llvm::Twine(I) +
                            " is not a variable of the function");

  llvm::DenseSet<const SharedVariable *> Updated;
  for (const Update &U : F.updates()) {
    if (!U.Target ||
        (F.module() && F.module()->lookupShared(U.Target->Name) != U.Target))
      return invalid(F, "an update targets a variable that is not a shared "
                        "variable of the module");
    if (!Updated.insert(U.Target).second)
      return invalid(F, "shared variable '" + U.Target->Name +
                            "' is updated twice");
    if (!Owned(U.Value))
      return invalid(F, "the update of '" + U.Target->Name +
                            "' is not a variable of the function");
    if (!storableIn(U.Value->type(), U.Target->Type))
      return invalid(F, "the update of '" + U.Target->Name + "' has type " +
                            U.Value->type().str() +
                            ", but the shared variable is " +
                            U.Target->Type.str());
  }
  return Error::success();
}
