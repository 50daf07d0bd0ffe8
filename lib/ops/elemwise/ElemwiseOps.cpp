//===- ElemwiseOps.cpp - The Elemwise op: names, types, registration -----===//
//
// Everything about Elemwise but the run-time loops (ElemwisePerform.cpp,
// CompositePerform.cpp): its profile name, static type inference (dtype
// rules from ScalarOps, NumPy broadcasting on symbolic dims), flops, fused
// and in-place variants, and the registration of one graph-format op per
// scalar operation and of `composite`.
//
//===----------------------------------------------------------------------===//

#include "ops/elemwise/ElemwiseOps.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include <algorithm>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

// The printer writes attributes back: an in-place op's says which input.
static AttrMap withInplaceAttr(AttrMap Attrs, int InplaceInput) {
  Attrs.erase("inplace");
  if (InplaceInput >= 0)
    Attrs["inplace"] = AttrValue::integer(InplaceInput);
  return Attrs;
}

Elemwise::Elemwise(ScalarOpKind Kind, AttrMap Attrs, DType CastTo,
                   int InplaceInput)
    : Op(scalarOpInfo(Kind).Name,
         withInplaceAttr(std::move(Attrs), InplaceInput), OpKind::Elemwise),
      Kind(Kind), CastTo(CastTo), Inplace(InplaceInput) {}

Elemwise::Elemwise(std::shared_ptr<const CompositeScalar> C, int InplaceInput)
    : Op("composite",
         withInplaceAttr({{"expr", AttrValue::ident(C->str())}},
                         InplaceInput),
         OpKind::Elemwise),
      Kind(C->Steps.back().Kind), CastTo(C->Steps.back().CastTo),
      Inplace(InplaceInput), Comp(std::move(C)),
      Spelling(attrs().at("expr").S) {}

OpRef Elemwise::withInplace(int I) const {
  if (Comp)
    return std::make_shared<Elemwise>(Comp, I);
  return std::make_shared<Elemwise>(Kind, attrs(), CastTo, I);
}

Expected<OpRef> graphjit::makeCompositeElemwise(CompositeScalar C,
                                                int InplaceInput) {
  if (Error E = checkComposite(C))
    return E;
  if (InplaceInput >= int(C.NumInputs))
    return llvm::createStringError(
        "in-place on input " + std::to_string(InplaceInput) +
        " of a Composite with " + std::to_string(C.NumInputs) + " inputs");
  return std::make_shared<Elemwise>(
      std::make_shared<const CompositeScalar>(std::move(C)),
      InplaceInput < 0 ? -1 : InplaceInput);
}

CompositeScalar graphjit::compositeOf(const Elemwise &E, unsigned NumInputs) {
  if (const CompositeScalar *C = E.composite())
    return *C;
  CompositeScalar C;
  C.NumInputs = NumInputs;
  CompositeStep S{E.scalarOp(), E.castTo(), {}};
  for (unsigned I = 0; I < NumInputs; ++I)
    S.Args.push_back(I);
  C.Steps.push_back(std::move(S));
  return C;
}

std::string Elemwise::name() const {
  // Theano's destroy_map spelling: output 0 overwrites input I.
  std::string Suffix =
      Inplace >= 0 ? "[(0, " + std::to_string(Inplace) + ")]" : "";
  if (Comp)
    return "Elemwise{Composite{" + Spelling + "}}" + Suffix;
  if (Kind == ScalarOpKind::Cast)
    return "Elemwise{Cast{" + dtypeNumpyName(CastTo).str() + "}}" + Suffix;
  if (Inplace >= 0)
    return std::string("Elemwise{") + scalarOpInfo(Kind).Name + "}" + Suffix;
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

Error Elemwise::signaturesOf(
    llvm::ArrayRef<DType> DTypes, ScalarSignature *Single,
    std::shared_ptr<const StepSignatures> *Steps) const {
  if (Comp) {
    std::shared_ptr<const StepSignatures> Last = std::atomic_load(&LastSteps);
    if (Last && llvm::ArrayRef<DType>(Last->In) == DTypes) {
      *Steps = std::move(Last);
      return Error::success();
    }
    Expected<std::vector<ScalarSignature>> Sigs =
        compositeSignatures(*Comp, DTypes);
    if (!Sigs)
      return Sigs.takeError();
    auto New = std::make_shared<StepSignatures>();
    New->In.assign(DTypes.begin(), DTypes.end());
    New->Steps = std::move(*Sigs);
    std::atomic_store(&LastSteps, std::shared_ptr<const StepSignatures>(New));
    *Steps = std::move(New);
  } else {
    Expected<ScalarSignature> Sig = scalarSignature(Kind, DTypes, CastTo);
    if (!Sig)
      return Sig.takeError();
    *Single = std::move(*Sig);
  }
  return Error::success();
}

Expected<std::vector<TensorType>>
Elemwise::inferTypes(llvm::ArrayRef<TensorType> Inputs) const {
  llvm::SmallVector<DType, 4> DTypes;
  for (const TensorType &T : Inputs)
    DTypes.push_back(T.Dtype);
  ScalarSignature Single;
  std::shared_ptr<const StepSignatures> Steps;
  if (Error E = signaturesOf(DTypes, &Single, &Steps))
    return E;
  DType Out = Comp ? Steps->Steps.back().Out : Single.Out;
  if (Inplace >= 0) {
    if (unsigned(Inplace) >= Inputs.size())
      return llvm::createStringError(
          "in-place on input " + std::to_string(Inplace) + ", but " +
          name() + " has " + std::to_string(Inputs.size()) + " inputs");
    // The output reuses that input's buffer: it must hold the output's
    // elements.
    if (Inputs[Inplace].Dtype != Out)
      return llvm::createStringError(
          "in-place on input " + std::to_string(Inplace) + " (" +
          dtypeName(Inputs[Inplace].Dtype).str() +
          ") needs the output's dtype " + dtypeName(Out).str());
  }
  Expected<std::vector<Dim>> Dims = broadcastDims(Inputs);
  if (!Dims)
    return Dims.takeError();
  return std::vector<TensorType>{TensorType(Out, std::move(*Dims))};
}

double Elemwise::flops(llvm::ArrayRef<Shape> Inputs,
                       llvm::ArrayRef<Shape> Outputs) const {
  if (Outputs.empty())
    return 0;
  // a + b + c is two additions per element.
  auto PerStep = [](ScalarOpKind K, size_t Arity) {
    double F = scalarOpInfo(K).FlopsPerElement;
    if ((K == ScalarOpKind::Add || K == ScalarOpKind::Mul) && Arity > 1)
      F *= double(Arity - 1);
    return F;
  };
  double PerElement = 0;
  if (Comp)
    for (const CompositeStep &S : Comp->Steps)
      PerElement += PerStep(S.Kind, S.Args.size());
  else
    PerElement = PerStep(Kind, Inputs.size());
  return PerElement * double(numElementsOf(Outputs[0]));
}

/// The `inplace` attribute every elemwise op of the format takes: the
/// input the output overwrites (-1 when absent).
static Expected<int> readInplace(const AttrReader &Reader,
                                 llvm::StringRef OpName, unsigned NumInputs) {
  Expected<int64_t> I = Reader.getInt("inplace", -1);
  if (!I)
    return I.takeError();
  if (Reader.has("inplace") && (*I < 0 || *I >= int64_t(NumInputs)))
    return attrError("inplace",
                     "inplace=" + std::to_string(*I) + " is not an input of " +
                         OpName.str() + " (it has " +
                         std::to_string(NumInputs) + ": 0 to " +
                         std::to_string(NumInputs - 1) + ")");
  return int(*I);
}

// The factory of one graph-format op: cast takes its dtype, every op may
// be in place.
static Expected<OpRef> makeElemwise(ScalarOpKind Kind, const AttrMap &Attrs,
                                    unsigned NumInputs) {
  const char *Name = scalarOpInfo(Kind).Name;
  AttrReader Reader(Name, Attrs);
  Expected<int> Inplace = readInplace(Reader, Name, NumInputs);
  if (!Inplace)
    return Inplace.takeError();
  if (Kind != ScalarOpKind::Cast) {
    if (Error E = Reader.checkOnly({"inplace"}))
      return E;
    return std::make_shared<Elemwise>(Kind, Attrs, DType::F64, *Inplace);
  }
  if (Error E = Reader.checkOnly({"dtype", "inplace"}))
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
  return std::make_shared<Elemwise>(Kind, Attrs, *To, *Inplace);
}

// composite(x, y, expr="exp(i0) / (i0 + i1)"): the fused Elemwise the
// printer writes for Elemwise{Composite{...}}.
static Expected<OpRef> makeComposite(const AttrMap &Attrs,
                                     unsigned NumInputs) {
  AttrReader Reader("composite", Attrs);
  if (Error E = Reader.checkOnly({"expr", "inplace"}))
    return E;
  Expected<int> Inplace = readInplace(Reader, "composite", NumInputs);
  if (!Inplace)
    return Inplace.takeError();
  const AttrValue *Expr = Reader.get("expr");
  if (!Expr)
    return attrError("expr", "op 'composite' needs attribute 'expr', its "
                             "scalar program (expr=\"exp(i0) + i1\")");
  if (Expr->K != AttrValue::Ident)
    return attrError("expr", "attribute 'expr' of 'composite' must be a "
                             "string, not '" +
                                 Expr->str() + "'");
  Expected<CompositeScalar> C = parseComposite(Expr->S, NumInputs);
  if (!C)
    return attrError("expr", llvm::toString(C.takeError()));
  Expected<OpRef> Op = makeCompositeElemwise(std::move(*C), *Inplace);
  if (!Op)
    return attrError("expr", llvm::toString(Op.takeError()));
  return Op;
}

void graphjit::registerElemwiseOps(OpRegistry &R) {
  for (const ScalarOpInfo &Info : ScalarOpTable) {
    ScalarOpKind Kind = Info.Kind;
    R.add(OpSpec{Info.Name, Info.MinArity, Info.MaxArity,
                 [Kind](const AttrMap &Attrs, unsigned NumInputs) {
                   return makeElemwise(Kind, Attrs, NumInputs);
                 },
                 Info.Summary});
  }
  R.add(OpSpec{"composite", 1, -1, &makeComposite,
               "composite(x, y, expr=\"exp(i0) / (i0 + i1)\"): a fused "
               "Elemwise (Theano's Composite); i<k> is input k"});
}
