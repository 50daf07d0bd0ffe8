//===- ElemwiseOps.cpp - The Elemwise op: names, types, registration -----===//
//
// Everything about Elemwise but the run-time loops (ElemwisePerform.cpp):
// its profile name, static type inference (dtype rules from ScalarOps,
// NumPy broadcasting on symbolic dims), flops, and the registration of one
// graph-format op per scalar operation.
//
//===----------------------------------------------------------------------===//

#include "ElemwiseOps.h"
#include "graphjit/OpRegistry.h"
#include <algorithm>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

Elemwise::Elemwise(ScalarOpKind Kind, AttrMap Attrs, DType CastTo)
    : Op(scalarOpInfo(Kind).Name, std::move(Attrs)), Kind(Kind),
      CastTo(CastTo) {}

std::string Elemwise::name() const {
  if (Kind == ScalarOpKind::Cast)
    return "Elemwise{Cast{" + dtypeNumpyName(CastTo).str() + "}}";
  return std::string("Elemwise{") + scalarOpInfo(Kind).Name + ",no_inplace}";
}

Expected<std::vector<Dim>>
graphjit::broadcastDims(llvm::ArrayRef<TensorType> Inputs) {
  unsigned Rank = 0;
  for (const TensorType &T : Inputs)
    Rank = std::max(Rank, T.rank());
  std::vector<Dim> Out(Rank, Dim::known(1));
  // Per output dim, the input whose known size (other than 1) it took, so
  // that a conflict can name both operands.
  std::vector<int> From(Rank, -1);
  for (unsigned K = 0; K < Inputs.size(); ++K) {
    const TensorType &T = Inputs[K];
    unsigned Off = Rank - T.rank();
    for (unsigned I = 0; I < T.rank(); ++I) {
      const Dim &X = T.Dims[I];
      Dim &D = Out[Off + I];
      if (X.isKnown() && X.Size == 1)
        continue;
      if (D.isKnown() && D.Size == 1) {
        D = X;
        From[Off + I] = K;
      } else if (D.isKnown()) {
        if (X.isKnown() && X.Size != D.Size) {
          const TensorType &Prev = Inputs[From[Off + I]];
          return llvm::createStringError(
              "cannot broadcast " + Prev.str() + " with " + T.str() +
              " (input " + std::to_string(From[Off + I]) + " has size " +
              std::to_string(D.Size) + " where input " + std::to_string(K) +
              " has size " + std::to_string(X.Size) + ")");
        }
      } else if (X.isKnown()) {
        // A symbol or unknown meeting a known size: at run time it must be
        // that size or 1, and the result is that size either way.
        D = X;
        From[Off + I] = K;
      } else if (!(D.isSymbolic() && D == X)) {
        D = Dim::unknown();
      }
    }
  }
  return Out;
}

Expected<std::vector<TensorType>>
Elemwise::inferTypes(llvm::ArrayRef<TensorType> Inputs) const {
  llvm::SmallVector<DType, 4> DTypes;
  for (const TensorType &T : Inputs)
    DTypes.push_back(T.Dtype);
  Expected<ScalarSignature> Sig = scalarSignature(Kind, DTypes, CastTo);
  if (!Sig)
    return Sig.takeError();
  Expected<std::vector<Dim>> Dims = broadcastDims(Inputs);
  if (!Dims)
    return Dims.takeError();
  return std::vector<TensorType>{TensorType(Sig->Out, std::move(*Dims))};
}

double Elemwise::flops(llvm::ArrayRef<Shape> Inputs,
                       llvm::ArrayRef<Shape> Outputs) const {
  if (Outputs.empty())
    return 0;
  double PerElement = scalarOpInfo(Kind).FlopsPerElement;
  // a + b + c is two additions per element.
  if ((Kind == ScalarOpKind::Add || Kind == ScalarOpKind::Mul) &&
      Inputs.size() > 1)
    PerElement *= double(Inputs.size() - 1);
  return PerElement * double(numElementsOf(Outputs[0]));
}

// The factory of one graph-format op: only cast takes an attribute.
static Expected<OpRef> makeElemwise(ScalarOpKind Kind, const AttrMap &Attrs) {
  const char *Name = scalarOpInfo(Kind).Name;
  AttrReader Reader(Name, Attrs);
  if (Kind != ScalarOpKind::Cast) {
    if (Error E = Reader.checkOnly({}))
      return E;
    return std::make_shared<Elemwise>(Kind, Attrs);
  }
  if (Error E = Reader.checkOnly({"dtype"}))
    return E;
  Expected<std::string> Spelling = Reader.getIdent("dtype");
  if (!Spelling)
    return Spelling.takeError();
  std::optional<DType> To = parseDType(*Spelling);
  if (!To) {
    std::string Known;
    for (DType T : AllDTypes)
      Known += " " + dtypeName(T).str();
    return attrError("dtype", "unknown dtype '" + *Spelling +
                                  "' for cast; expected one of:" + Known);
  }
  return std::make_shared<Elemwise>(Kind, Attrs, *To);
}

void graphjit::registerElemwiseOps(OpRegistry &R) {
  for (const ScalarOpInfo &Info : ScalarOpTable) {
    ScalarOpKind Kind = Info.Kind;
    R.add(OpSpec{Info.Name, Info.MinArity, Info.MaxArity,
                 [Kind](const AttrMap &Attrs, unsigned NumInputs) {
                   (void)NumInputs;
                   return makeElemwise(Kind, Attrs);
                 },
                 Info.Summary});
  }
}
