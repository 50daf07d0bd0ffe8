//===- ShapeOps.cpp - dimshuffle, transpose, reshape, flatten, shape -----===//
//
// The ops that only change how an array's elements are laid out or read:
// DimShuffle (dimshuffle, transpose) and Reshape (reshape, flatten) return
// views of their input, Shape_i reads one dim. NumPy's semantics throughout;
// alloc and the *_like ops live in AllocOps.cpp. For the JIT, prepare() makes
// the views (all the work there is) and Shape_i's output, whose value
// ShapeLowering.cpp writes.
//
//===----------------------------------------------------------------------===//

#include "ops/shape/ShapeOps.h"
#include "ops/StructuralParams.h"
#include "ops/StructuralOps.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include "llvm/Support/Casting.h"
#include <map>
#include <optional>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// DimShuffle
//===----------------------------------------------------------------------===//

std::string DimShuffleOp::name() const {
  int Rank = BoundRank.load();
  if (IsTranspose && Rank < 0)
    return "DimShuffle{transpose}";
  std::vector<int> P = IsTranspose ? reversed(Rank) : Pattern;
  std::string S = "DimShuffle{";
  for (size_t I = 0; I < P.size(); ++I)
    S += (I ? "," : "") + (P[I] == Broadcast ? std::string("x")
                                             : std::to_string(P[I]));
  return S + "}";
}

Expected<std::vector<TensorType>>
DimShuffleOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &X = In[0];
  if (IsTranspose) {
    int Bound = -1;
    if (!BoundRank.compare_exchange_strong(Bound, int(X.rank())) &&
        Bound != int(X.rank()))
      return opError("this transpose was made for rank " +
                     std::to_string(Bound) + ", not rank " +
                     std::to_string(X.rank()));
  }
  std::vector<int> P = patternFor(X.rank());
  if (Error E = checkPattern(P, X))
    return E;
  std::vector<Dim> Dims;
  for (int D : P)
    Dims.push_back(D == Broadcast ? Dim::known(1) : X.Dims[D]);
  return std::vector<TensorType>{TensorType(X.Dtype, std::move(Dims))};
}

Error DimShuffleOp::prepare(llvm::ArrayRef<NDArray> In,
                            std::vector<NDArray> &Out,
                            const ExecContext &) const {
  const NDArray &X = In[0];
  std::vector<int> P = patternFor(X.rank());
  std::vector<bool> Used(X.rank(), false);
  Shape S, St;
  for (int D : P) {
    if (D == Broadcast) {
      S.push_back(1);
      St.push_back(0);
      continue;
    }
    if (D >= int(X.rank()))
      return opError("dimshuffle pattern refers to dim " +
                     std::to_string(D) + " of an array of rank " +
                     std::to_string(X.rank()));
    Used[D] = true;
    S.push_back(X.dim(D));
    St.push_back(X.strides()[D]);
  }
  for (unsigned D = 0; D < X.rank(); ++D)
    if (!Used[D] && X.dim(D) != 1)
      return opError("dimshuffle cannot drop dim " + std::to_string(D) +
                     " of an array of shape " + shapeStr(X.shape()) +
                     ": it has size " + std::to_string(X.dim(D)) +
                     ", not 1");
  Out[0] = X.view(S, St);
  return Error::success();
}

std::vector<int> DimShuffleOp::reversed(int Rank) {
  std::vector<int> P;
  for (int I = Rank - 1; I >= 0; --I)
    P.push_back(I);
  return P;
}

Error DimShuffleOp::checkPattern(llvm::ArrayRef<int> P, const TensorType &X) {
  std::vector<bool> Used(X.rank(), false);
  for (int D : P) {
    if (D == Broadcast)
      continue;
    if (D >= int(X.rank()))
      return attrError("pattern", "pattern of 'dimshuffle' refers to dim " +
                                      std::to_string(D) + ", but the input " +
                                      X.str() + " has rank " +
                                      std::to_string(X.rank()));
    Used[D] = true;
  }
  for (unsigned D = 0; D < X.rank(); ++D)
    // A dim of unknown size may be 1: prepare and the JIT check it.
    if (!Used[D] && X.Dims[D].isKnown() && !X.Dims[D].isBroadcastable())
      return attrError("pattern",
                       "pattern of 'dimshuffle' drops dim " +
                           std::to_string(D) + " of " + X.str() +
                           ", which is not of size 1; only dims of size 1, or of "
                           "a size known at run time only, can be dropped");
  return Error::success();
}

namespace {

Expected<OpRef> makeDimShuffle(const AttrMap &Attrs, unsigned) {
  AttrReader R("dimshuffle", Attrs);
  if (Error E = R.checkOnly({"pattern"}))
    return E;
  const AttrValue *V = R.get("pattern");
  if (!V)
    return attrError("pattern", "op 'dimshuffle' needs attribute 'pattern'");
  std::vector<AttrValue> Elts =
      V->K == AttrValue::List ? V->Elts : std::vector<AttrValue>{*V};
  std::vector<int> Pattern;
  std::vector<int64_t> Seen;
  for (const AttrValue &E : Elts) {
    if (E.K == AttrValue::Ident && E.S == "x") {
      Pattern.push_back(DimShuffleOp::Broadcast);
      continue;
    }
    // Dims beyond any real rank would be caught by inferTypes anyway; the
    // bound keeps the int conversion exact.
    if (E.K != AttrValue::Int || E.I < 0 || E.I > 1 << 20)
      return attrError("pattern", "entries of 'pattern' must be input dims "
                                  "(integers from 0) or x, not '" +
                                      E.str() + "'");
    if (llvm::is_contained(Seen, E.I))
      return attrError("pattern", "dim " + std::to_string(E.I) +
                                      " appears twice in 'pattern'");
    Seen.push_back(E.I);
    Pattern.push_back(int(E.I));
  }
  return std::make_shared<DimShuffleOp>("dimshuffle", Attrs,
                                        std::move(Pattern), false);
}

Expected<OpRef> makeTranspose(const AttrMap &Attrs, unsigned) {
  AttrReader R("transpose", Attrs);
  if (Error E = R.checkOnly({}))
    return E;
  return std::make_shared<DimShuffleOp>("transpose", Attrs, std::vector<int>{},
                                        true);
}

} // namespace

//===----------------------------------------------------------------------===//
// Reshape and Flatten
//===----------------------------------------------------------------------===//

namespace {

/// NumPy's _attempt_nocopy_reshape (C order): strides that give NewDims over
/// A's memory, if there are any. A has at least one element and as many as
/// NewDims describes.
std::optional<Shape> noCopyStrides(const NDArray &A, const Shape &NewDims) {
  // Dims of size 1 do not constrain anything; leave them out.
  Shape OD, OS;
  for (unsigned I = 0; I < A.rank(); ++I)
    if (A.dim(I) != 1) {
      OD.push_back(A.dim(I));
      OS.push_back(A.strides()[I]);
    }
  const size_t OldN = OD.size(), NewN = NewDims.size();
  Shape NS(NewN, 0);
  size_t Oi = 0, Oj = 1, Ni = 0, Nj = 1;
  while (Ni < NewN && Oi < OldN) {
    // Grow [Oi, Oj) and [Ni, Nj) until they cover the same element count.
    int64_t Np = NewDims[Ni], Op = OD[Oi];
    while (Np != Op) {
      if (Np < Op) {
        if (Nj >= NewN)
          return std::nullopt;
        Np *= NewDims[Nj++];
      } else {
        if (Oj >= OldN)
          return std::nullopt;
        Op *= OD[Oj++];
      }
    }
    // The old axes must be combinable: each stride spans the next dim.
    for (size_t Ok = Oi; Ok + 1 < Oj; ++Ok) {
      int64_t Span;
      if (__builtin_mul_overflow(OD[Ok + 1], OS[Ok + 1], &Span) ||
          OS[Ok] != Span)
        return std::nullopt;
    }
    NS[Nj - 1] = OS[Oj - 1];
    for (size_t Nk = Nj - 1; Nk > Ni; --Nk)
      if (__builtin_mul_overflow(NS[Nk], NewDims[Nk], &NS[Nk - 1]))
        return std::nullopt;
    Ni = Nj++;
    Oi = Oj++;
  }
  // Trailing new dims (all of size 1).
  int64_t Last = Ni >= 1 ? NS[Ni - 1] : int64_t(A.elementSize());
  for (size_t Nk = Ni; Nk < NewN; ++Nk)
    NS[Nk] = Last;
  return NS;
}

/// A's elements in C order with shape S (same count): a view when the
/// strides allow it, else a view of a contiguous copy.
Expected<NDArray> reshapeView(const NDArray &A, const Shape &S) {
  if (elementCount(A.shape()) != 0)
    if (std::optional<Shape> St = noCopyStrides(A, S))
      return A.view(S, *St);
  // Any strides do for no elements; C order for a copy. Huge dims beside a
  // 0 could overflow them.
  Expected<Shape> St = checkedContiguousStrides(S, A.elementSize());
  if (!St)
    return St.takeError();
  if (elementCount(A.shape()) == 0)
    return A.view(S, *St);
  NDArray C;
  if (Error E = createOutput(C, A.dtype(), A.shape()))
    return E;
  copyConvert(A, C);
  return C.view(S, *St);
}

/// NumPy's spelling of a requested shape: "(5,newaxis)".
std::string requestedShapeStr(const Shape &S) {
  std::string R = "(";
  for (size_t I = 0; I < S.size(); ++I)
    R += (I ? "," : "") + (S[I] == -1 ? std::string("newaxis")
                                      : std::to_string(S[I]));
  return R + (S.size() == 1 ? ",)" : ")");
}

} // namespace

std::string ReshapeOp::name() const {
  return IsFlatten ? "Flatten"
                   : "Reshape{" + std::to_string(Target.size()) +
                         ", shape=[" + shapeEntriesStr(Target) + "]}";
}

Expected<std::vector<TensorType>>
ReshapeOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &X = In[0];
  if (IsFlatten)
    return std::vector<TensorType>{TensorType(X.Dtype, {flatDim(X)})};
  std::vector<Dim> Dims = shapeEntryDims(Target);
  if (Error E = inferStatically(X, Dims))
    return E;
  return std::vector<TensorType>{TensorType(X.Dtype, std::move(Dims))};
}

Error ReshapeOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                         const ExecContext &Ctx) const {
  const NDArray &X = In[0];
  int64_t Size = elementCount(X.shape());
  if (IsFlatten)
    return setOutput(Out[0], reshapeView(X, {Size}));
  Expected<Shape> S = resolveShapeEntries(Target, Ctx);
  if (!S)
    return S.takeError();
  auto Mismatch = [&] {
    return opError("cannot reshape array of size " + std::to_string(Size) +
                   " into shape " + requestedShapeStr(*S));
  };
  // The product of the given sizes; -1 counts as 1 here.
  int64_t Known = 1;
  int Infer = -1;
  for (size_t I = 0; I < S->size(); ++I) {
    if ((*S)[I] == -1) {
      Infer = int(I);
      continue;
    }
    if (__builtin_mul_overflow(Known, (*S)[I], &Known))
      return Mismatch();
  }
  if (Infer >= 0) {
    if (Known == 0 || Size % Known != 0)
      return Mismatch();
    Shape Full = *S;
    Full[Infer] = Size / Known;
    return setOutput(Out[0], reshapeView(X, Full));
  }
  if (Known != Size)
    return Mismatch();
  return setOutput(Out[0], reshapeView(X, *S));
}

Error ReshapeOp::setOutput(NDArray &Out, Expected<NDArray> V) {
  if (!V)
    return V.takeError();
  Out = std::move(*V);
  return Error::success();
}

Dim ReshapeOp::flatDim(const TensorType &X) {
  if (X.rank() == 0)
    return Dim::known(1);
  // One dim that is not 1 is the flattened size itself (symbolic too).
  int64_t Known = 1;
  const Dim *Other = nullptr;
  for (const Dim &D : X.Dims) {
    if (D.isKnown()) {
      if (__builtin_mul_overflow(Known, D.Size, &Known))
        return Dim::unknown();
      continue;
    }
    if (Other)
      return Dim::unknown();
    Other = &D;
  }
  if (!Other)
    return Dim::known(Known);
  if (Known == 1)
    return *Other;
  return Known == 0 ? Dim::known(0) : Dim::unknown();
}

Error ReshapeOp::inferStatically(const TensorType &X,
                                 std::vector<Dim> &Dims) const {
  int64_t InKnown = 1, OutKnown = 1;
  std::map<std::string, int> Symbols; // input minus output occurrences
  bool InOverflow = false, OutOverflow = false;
  for (const Dim &D : X.Dims) {
    if (D.isKnown())
      InOverflow |= __builtin_mul_overflow(InKnown, D.Size, &InKnown);
    else if (D.isSymbolic())
      ++Symbols[D.Symbol];
    else
      return Error::success(); // an unknown input dim: nothing to tell
  }
  int Infer = -1;
  for (size_t I = 0; I < Target.size(); ++I) {
    if (Target[I].isSymbol())
      --Symbols[Target[I].Symbol];
    else if (Target[I].isInferred())
      Infer = int(I);
    else
      OutOverflow |=
          __builtin_mul_overflow(OutKnown, Target[I].Size, &OutKnown);
  }
  if (InOverflow || OutOverflow)
    return Error::success(); // the run time reports it
  bool SymbolsCancel = true, NoSymbols = true;
  for (const auto &Entry : Symbols)
    SymbolsCancel &= Entry.second == 0;
  for (const Dim &D : X.Dims)
    NoSymbols &= !D.isSymbolic();
  for (const ShapeEntry &E : Target)
    NoSymbols &= !E.isSymbol();
  // Spell what was asked for in the message the way NumPy would.
  auto Mismatch = [&] {
    std::string Want = "(";
    for (size_t I = 0; I < Target.size(); ++I)
      Want += (I ? "," : "") +
              (Target[I].isSymbol()     ? Target[I].Symbol
               : Target[I].isInferred() ? std::string("newaxis")
                                        : std::to_string(Target[I].Size));
    Want += Target.size() == 1 ? ",)" : ")";
    std::string What = NoSymbols ? "of size " + std::to_string(InKnown) +
                                       " (" + X.str() + ")"
                                 : "of type " + X.str();
    return opError("cannot reshape array " + What + " into shape " + Want);
  };
  if (Infer >= 0) {
    // NumPy refuses to infer next to a zero-size dim, whatever the input.
    if (OutKnown == 0)
      return Mismatch();
    if (!SymbolsCancel)
      return Error::success();
    // With cancelling symbols of size 0 the run time fails too, as the
    // known product is then 0.
    if (InKnown % OutKnown != 0)
      return Mismatch();
    Dims[Infer] = Dim::known(InKnown / OutKnown);
    return Error::success();
  }
  // Symbols of size 0 could make any counts agree; only judge known ones.
  if (NoSymbols && InKnown != OutKnown)
    return Mismatch();
  return Error::success();
}

namespace {

Expected<OpRef> makeReshape(const AttrMap &Attrs, unsigned) {
  AttrReader R("reshape", Attrs);
  if (Error E = R.checkOnly({"shape"}))
    return E;
  Expected<std::vector<ShapeEntry>> Target =
      readShapeAttr(R, "reshape", "shape", /*AllowInfer=*/true);
  if (!Target)
    return Target.takeError();
  return std::make_shared<ReshapeOp>("reshape", Attrs, std::move(*Target),
                                     false);
}

Expected<OpRef> makeFlatten(const AttrMap &Attrs, unsigned) {
  AttrReader R("flatten", Attrs);
  if (Error E = R.checkOnly({}))
    return E;
  return std::make_shared<ReshapeOp>("flatten", Attrs,
                                     std::vector<ShapeEntry>{}, true);
}

} // namespace

//===----------------------------------------------------------------------===//
// Shape_i
//===----------------------------------------------------------------------===//

Expected<std::vector<TensorType>>
ShapeIOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  if (Expected<unsigned> A = checkAxis(Axis, In[0].rank()); !A)
    return attrError("axis", llvm::toString(A.takeError()));
  return std::vector<TensorType>{TensorType::scalar(DType::I64)};
}

Error ShapeIOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                        const ExecContext &) const {
  if (Expected<unsigned> A = checkAxis(Axis, In[0].rank()); !A)
    return A.takeError();
  return createOutput(Out[0], DType::I64, {});
}

Error ShapeIOp::perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                        const ExecContext &Ctx) const {
  if (Error E = prepare(In, Out, Ctx))
    return E;
  *Out[0].dataAs<int64_t>() = In[0].dim(*normalizedAxis(In[0].rank()));
  return Error::success();
}

namespace {

Expected<OpRef> makeShapeI(const AttrMap &Attrs, unsigned) {
  AttrReader R("shape", Attrs);
  if (Error E = R.checkOnly({"axis"}))
    return E;
  Expected<int64_t> Axis = R.getInt("axis");
  if (!Axis)
    return Axis.takeError();
  return std::make_shared<ShapeIOp>(Attrs, *Axis);
}

} // namespace

std::optional<std::vector<TargetDim>> graphjit::reshapeTarget(const Op &O) {
  const auto *R = llvm::dyn_cast<ReshapeOp>(&O);
  if (!R)
    return std::nullopt;
  if (R->isFlatten())
    return std::vector<TargetDim>{{-1, ""}};
  std::vector<TargetDim> Dims;
  for (const ShapeEntry &E : R->target())
    Dims.push_back({E.isSymbol() ? 0 : E.Size, E.Symbol});
  return Dims;
}

std::optional<unsigned> graphjit::shapeIAxis(const Op &O, unsigned Rank) {
  const auto *S = llvm::dyn_cast<ShapeIOp>(&O);
  if (!S)
    return std::nullopt;
  return S->normalizedAxis(Rank);
}

void graphjit::registerShapeOps(OpRegistry &R) {
  R.add(OpSpec{"dimshuffle", 1, 1, makeDimShuffle,
               "reorder dims, insert broadcastable ones (x), drop "
               "broadcastable ones: dimshuffle(x, pattern=[x,1,0])"});
  R.add(OpSpec{"transpose", 1, 1, makeTranspose,
               "reverse the dims (a view): transpose(x)"});
  R.add(OpSpec{"reshape", 1, 1, makeReshape,
               "NumPy reshape in C order, a view when possible: "
               "reshape(x, shape=[n,-1])"});
  R.add(OpSpec{"flatten", 1, 1, makeFlatten,
               "the elements in C order as a 1-D array: flatten(x)"});
  R.add(OpSpec{"shape", 1, 1, makeShapeI,
               "the size of one dim as an i64 scalar: shape(x, axis=0)"});
  registerAllocOps(R);
}
