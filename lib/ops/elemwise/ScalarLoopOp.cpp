//===- ScalarLoopOp.cpp - scalar_loop -------------------------------------===//
//
//   scalar_loop(n_steps, x0, x1, ..., c0, c1, ...,
//               updates=["i0 * i2", "i1 + i0"], until="i0 > i3")
//
// Per element of the inputs broadcast together: the carried values x
// start at the inputs x0, x1, ...; a step replaces each by its update, a
// Composite spelling (composite's expr) over the loop's values i0, i1, ...
// (the carried values, then the constants c), all computed from the values
// before the step and converted to the carried value's dtype. At most
// n_steps steps (an integer input); with `until`, the loop also stops after
// the step whose condition, computed from the same values, holds, and the
// condition is a last, bool, output (false where no step ran). PyTensor's
// ScalarLoop exactly, including its ValueError for a negative n_steps
// without a condition.
//
//===----------------------------------------------------------------------===//

#include "ops/elemwise/ScalarLoopOp.h"
#include "ops/elemwise/ElemwiseLoop.h"
#include "ops/elemwise/ElemwiseOps.h"
#include "ops/StandardOps.h"
#include "ops/Strided.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include <cstring>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

ScalarLoopOp::ScalarLoopOp(AttrMap Attrs, unsigned NumCarried,
                           unsigned NumConstants,
                           std::vector<LoopProgram> Updates,
                           std::optional<LoopProgram> Until,
                           std::string Spelling)
    : ComputedOp("scalar_loop", std::move(Attrs), OpKind::ScalarLoop),
      NumCarried(NumCarried), NumConstants(NumConstants),
      Updates(std::move(Updates)), Until(std::move(Until)),
      Spelling(std::move(Spelling)) {}

namespace {

/// The types of the loop values program P reads, from the op's inputs.
std::vector<TensorType> readTypes(const ScalarLoopOp &Op, const LoopProgram &P,
                                  llvm::ArrayRef<TensorType> In) {
  std::vector<TensorType> T;
  for (unsigned V : P.Reads)
    T.push_back(In[Op.loopValueInput(V)]);
  return T;
}

} // namespace

Expected<std::vector<TensorType>>
ScalarLoopOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  if (!isInteger(In[0].Dtype))
    return opError("scalar_loop: n_steps must be integers, not " +
                   In[0].str());
  Expected<std::vector<Dim>> Dims = broadcastDims(In);
  if (!Dims)
    return Dims.takeError();
  auto Check = [&](const LoopProgram &P, const llvm::Twine &What) -> Error {
    Expected<std::vector<TensorType>> T =
        P.Elemwise->inferTypes(readTypes(*this, P, In));
    if (!T)
      return opError("scalar_loop: " + What + ": " +
                     llvm::toString(T.takeError()));
    return Error::success();
  };
  std::vector<TensorType> Out;
  for (unsigned K = 0; K < NumCarried; ++K) {
    if (Error E = Check(Updates[K], "update " + llvm::Twine(K)))
      return std::move(E);
    Out.push_back(TensorType(In[loopValueInput(K)].Dtype, *Dims));
  }
  if (Until) {
    if (Error E = Check(*Until, "until"))
      return std::move(E);
    Out.push_back(TensorType(DType::Bool, *Dims));
  }
  return Out;
}

Error ScalarLoopOp::prepare(llvm::ArrayRef<NDArray> In,
                            std::vector<NDArray> &Out,
                            const ExecContext &) const {
  llvm::SmallVector<Shape, 8> Shapes;
  for (const NDArray &A : In)
    Shapes.push_back(A.shape());
  Expected<Shape> S = broadcastShapes(Shapes);
  if (!S)
    return S.takeError();
  // Only the counts of elements that loop: an empty output runs none (as
  // PyTensor's Elemwise, which never calls the ScalarLoop then).
  if (!Until && numElementsOf(*S) > 0)
    for (int64_t I = 0, E = In[0].numElements(); I < E; ++I)
      if (In[0].getInt(I) < 0)
        return opError("ValueError: ScalarLoop does not have a termination "
                       "condition.");
  Out.resize(numOutputs());
  for (unsigned K = 0; K < Out.size(); ++K) {
    DType T = K < NumCarried ? In[loopValueInput(K)].dtype() : DType::Bool;
    if (Error E = NDArray::emptyInto(Out[K], T, *S))
      return E;
  }
  return Error::success();
}

Error ScalarLoopOp::compute(llvm::ArrayRef<NDArray> In,
                            llvm::ArrayRef<NDArray> Out,
                            const ExecContext &Ctx) const {
  const Shape &S = Out[0].shape();
  std::vector<NDArray> Wide; // each input at the output's shape
  for (const NDArray &A : In)
    Wide.push_back(A.view(S, broadcastStrides(A, S)));
  auto Element = [](const NDArray &A, int64_t I) {
    return A.view({}, {}, A.byteOffsetOf(I));
  };
  // P's value from the loop values Vals, converted to T.
  auto Run = [&](const LoopProgram &P, llvm::ArrayRef<NDArray> Vals,
                 DType T) -> Expected<NDArray> {
    std::vector<NDArray> Ins, Res(1);
    for (unsigned V : P.Reads)
      Ins.push_back(Vals[V]);
    if (Error E = P.Elemwise->perform(Ins, Res, Ctx))
      return std::move(E);
    NDArray R = NDArray::zeros(T, {});
    convertInto(Res[0], R);
    return R;
  };
  for (int64_t I = 0, E = Out[0].numElements(); I < E; ++I) {
    std::vector<NDArray> Vals;
    for (unsigned V = 0; V < NumCarried + NumConstants; ++V) {
      NDArray A = Element(Wide[loopValueInput(V)], I);
      Vals.push_back(V < NumCarried ? A.copy() : A);
    }
    bool Stop = false;
    for (int64_t Step = 0, N = Wide[0].getInt(I); Step < N && !Stop;
         ++Step) {
      std::vector<NDArray> New;
      for (unsigned K = 0; K < NumCarried; ++K) {
        Expected<NDArray> R = Run(Updates[K], Vals, Vals[K].dtype());
        if (!R)
          return R.takeError();
        New.push_back(std::move(*R));
      }
      if (Until) {
        Expected<NDArray> R = Run(*Until, Vals, DType::Bool);
        if (!R)
          return R.takeError();
        Stop = R->getInt(0) != 0;
      }
      for (unsigned K = 0; K < NumCarried; ++K)
        Vals[K] = std::move(New[K]);
    }
    for (unsigned K = 0; K < NumCarried; ++K)
      std::memcpy(Out[K].data() + Out[K].byteOffsetOf(I), Vals[K].data(),
                  Vals[K].elementSize());
    if (Until)
      *(Out[NumCarried].data() + Out[NumCarried].byteOffsetOf(I)) = Stop;
  }
  return Error::success();
}

namespace {

/// Spelling, parsed over Count loop values, as a fused Elemwise over the
/// values it reads.
Expected<LoopProgram> makeProgram(llvm::StringRef Attr,
                                  llvm::StringRef Spelling, unsigned Count) {
  Expected<CompositeScalar> C =
      parseComposite(Spelling, Count, /*EveryInputUsed=*/false);
  if (!C)
    return attrError(Attr.str(), llvm::toString(C.takeError()));
  // Its inputs become the values it reads, in the order it reads them;
  // its steps come after them.
  LoopProgram P;
  std::vector<int> At(Count, -1);
  for (const CompositeStep &St : C->Steps)
    for (unsigned A : St.Args)
      if (A < Count && At[A] < 0) {
        At[A] = int(P.Reads.size());
        P.Reads.push_back(A);
      }
  const unsigned Read = P.Reads.size();
  for (CompositeStep &St : C->Steps)
    for (unsigned &A : St.Args)
      A = A < Count ? unsigned(At[A]) : A - Count + Read;
  C->NumInputs = Read;
  Expected<OpRef> E = makeCompositeElemwise(std::move(*C));
  if (!E)
    return attrError(Attr.str(), llvm::toString(E.takeError()));
  P.Elemwise = std::move(*E);
  return P;
}

Expected<std::string> stringAttr(const AttrValue &V, llvm::StringRef Attr) {
  if (V.K != AttrValue::Ident)
    return attrError(Attr.str(), "scalar_loop: '" + Attr +
                                     "' takes Composite spellings "
                                     "(\"i0 * i1\"), not '" +
                                     V.str() + "'");
  return V.S;
}

Expected<OpRef> makeScalarLoop(const AttrMap &Attrs, unsigned NumInputs) {
  AttrReader R("scalar_loop", Attrs);
  if (Error E = R.checkOnly({"updates", "until"}))
    return E;
  const AttrValue *U = R.get("updates");
  if (!U || U->K != AttrValue::List || U->Elts.empty())
    return attrError("updates", "scalar_loop needs 'updates', a list of one "
                                "Composite spelling per carried value "
                                "(updates=[\"i0 * i1\"])");
  unsigned Carried = U->Elts.size();
  if (NumInputs < 1 + Carried)
    return attrError("updates",
                     "scalar_loop: " + llvm::Twine(Carried) +
                         " carried values need n_steps and " +
                         llvm::Twine(Carried) + " initial values, but it has " +
                         llvm::Twine(NumInputs) + " inputs");
  unsigned Count = NumInputs - 1;
  std::vector<LoopProgram> Updates;
  std::string Spelling = "ScalarLoop{";
  for (unsigned K = 0; K < Carried; ++K) {
    Expected<std::string> S = stringAttr(U->Elts[K], "updates");
    if (!S)
      return S.takeError();
    Expected<LoopProgram> P = makeProgram("updates", *S, Count);
    if (!P)
      return P.takeError();
    Updates.push_back(std::move(*P));
    Spelling += (K ? "; " : "") + *S;
  }
  std::optional<LoopProgram> Until;
  if (const AttrValue *C = R.get("until")) {
    Expected<std::string> S = stringAttr(*C, "until");
    if (!S)
      return S.takeError();
    Expected<LoopProgram> P = makeProgram("until", *S, Count);
    if (!P)
      return P.takeError();
    Until = std::move(*P);
    Spelling += " until " + *S;
  }
  Spelling += "}";
  return std::make_shared<ScalarLoopOp>(Attrs, Carried, Count - Carried,
                                        std::move(Updates), std::move(Until),
                                        std::move(Spelling));
}

} // namespace

void graphjit::registerScalarLoopOps(OpRegistry &R) {
  R.add(OpSpec{"scalar_loop", 2, -1, makeScalarLoop,
               "each element's own loop (PyTensor's ScalarLoop): "
               "scalar_loop(n_steps, x0, c0, updates=[\"i0 * i1\"], "
               "until=\"i0 > i1\")"});
}
