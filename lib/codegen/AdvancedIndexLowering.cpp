//===- AdvancedIndexLowering.cpp - JIT code for leading integer indices --===//
//
// advanced_subtensor and advanced_inc_subtensor whose integer arrays index
// the leading axes of x, one each, in order (pattern [0, 1, ..., k-1]:
// x[i, j], the pick of one category per row that PyMC's categorical and
// ordinal likelihoods and their gradients make): loops here with planned
// outputs, instead of prepare() and compute() through the runtime. The
// index arrays broadcast together to B; the output is B's dims then x's
// axes past k (AdvancedIndexing.h).
//
//   gather:  out[b, ...] = x[i0[b], i1[b], ..., ...]
//   scatter: out = x, then out[i0[b], ..., ...] += y[b, ...] (np.add.at:
//            once per occurrence, in order), or = y[b, ...] with set
//
// An index outside [-len, len) hands the Apply to gj_compute, which redoes
// it and fails with NumPy's IndexError, as take's loops do.
//
//===----------------------------------------------------------------------===//

#include "StructuralLoweringUtil.h"
#include "ops/arrayfn/ArrayFnOps.h"

using namespace graphjit;
using namespace llvm;

namespace {

/// The first index input: 1 for the gather (x, i...), 2 for the scatter
/// (x, y, i...).
unsigned firstIndex(const Apply &N) {
  return arrayFnParams(N.op()).Fn == ArrayFn::AdvancedSubtensor ? 1 : 2;
}

/// The rank of the broadcast index arrays.
unsigned indexRank(const Apply &N) {
  unsigned R = 0;
  for (unsigned I = firstIndex(N); I < N.inputs().size(); ++I)
    R = std::max(R, N.inputs()[I]->type().rank());
  return R;
}

/// Index input V's byte strides over the broadcast index dims (rank R):
/// right-aligned, 0 where it is broadcast.
SmallVector<Value *, 8> indexStrides(ThunkEmitter &E, const Variable *V,
                                     unsigned R) {
  ArrayValues A = loadArray(E, V);
  SmallVector<Value *, 8> S(R - A.Dims.size(), E.constI64(0));
  for (unsigned K = 0; K < A.Dims.size(); ++K)
    S.push_back(E.B.CreateSelect(E.B.CreateICmpEQ(A.Dims[K], E.constI64(1)),
                                 E.constI64(0), A.Strides[K]));
  return S;
}

/// The broadcast dims of the index arrays (rank R); Ok says whether they
/// broadcast.
SmallVector<Value *, 8> indexDims(ThunkEmitter &E, unsigned R, Value *&Ok) {
  const Apply &N = E.Node;
  IRBuilder<> &B = E.B;
  SmallVector<Value *, 8> Dims(R, E.constI64(1));
  Ok = B.getTrue();
  for (unsigned I = firstIndex(N); I < N.inputs().size(); ++I) {
    const Variable *V = N.inputs()[I];
    unsigned Off = R - V->type().rank();
    for (unsigned K = 0; K < V->type().rank(); ++K) {
      Value *D = E.dim(V, K), *&O = Dims[Off + K];
      Value *OIsOne = B.CreateICmpEQ(O, E.constI64(1));
      Ok = B.CreateAnd(Ok, B.CreateOr(B.CreateICmpEQ(D, E.constI64(1)),
                                      B.CreateOr(OIsOne,
                                                 B.CreateICmpEQ(D, O))));
      O = B.CreateSelect(OIsOne, D, O);
    }
  }
  return Dims;
}

void emitAdvancedIndexDims(ThunkEmitter &E, OutputDims &Dims) {
  const Apply &N = E.Node;
  const Variable *X = N.inputs()[0];
  if (arrayFnParams(N.op()).Fn == ArrayFn::AdvancedIncSubtensor) {
    for (unsigned D = 0; D < X->type().rank(); ++D)
      Dims[0].push_back(E.dim(X, D));
    return;
  }
  const unsigned K = N.inputs().size() - 1;
  Value *Ok;
  SmallVector<Value *, 8> B = indexDims(E, indexRank(N), Ok);
  E.failUnless(Ok, "indices.broadcast"); // prepare() words it
  Dims[0].assign(B.begin(), B.end());
  for (unsigned D = K; D < X->type().rank(); ++D)
    Dims[0].push_back(E.dim(X, D));
}

/// Runs Body(XOffset, Index) over the broadcast index dims, XOffset the
/// byte offset into an array of Strides (x's or the output's) that the
/// indices pick on its leading axes (of sizes Lens), each index checked;
/// one out of range returns from the thunk with gj_compute's code.
void forEachPick(ThunkEmitter &E, ArrayRef<Value *> IndexDims,
                 ArrayRef<Value *> Lens, ArrayRef<Value *> Strides,
                 function_ref<void(Value *, ArrayRef<Value *>)> Body) {
  const Apply &N = E.Node;
  IRBuilder<> &B = E.B;
  const unsigned First = firstIndex(N), R = IndexDims.size();
  SmallVector<Value *, 4> Bases;
  SmallVector<SmallVector<Value *, 8>, 4> Steps;
  SmallVector<DType, 4> Types;
  for (unsigned I = First; I < N.inputs().size(); ++I) {
    Bases.push_back(E.data(N.inputs()[I]));
    Steps.push_back(indexStrides(E, N.inputs()[I], R));
    Types.push_back(N.inputs()[I]->type().Dtype);
  }
  E.emitLoopNest(IndexDims, [&](ArrayRef<Value *> At) {
    Value *Off = E.constI64(0);
    for (unsigned J = 0; J < Bases.size(); ++J) {
      Value *V = E.convert(
          E.loadElement(Types[J], advance(E, Bases[J], At, Steps[J])),
          Types[J], DType::I64);
      Value *Row = checkedIndex(E, V, Lens[J]);
      Off = B.CreateAdd(Off, B.CreateMul(Row, Strides[J]));
    }
    Body(Off, At);
  });
}

Error emitAdvancedIndex(ThunkEmitter &E) {
  const Apply &N = E.Node;
  IRBuilder<> &B = E.B;
  const bool Gather = arrayFnParams(N.op()).Fn == ArrayFn::AdvancedSubtensor;
  const unsigned K = N.inputs().size() - firstIndex(N), R = indexRank(N);
  const Variable *XV = N.inputs()[0], *OutV = N.output(0);
  const DType T = OutV->type().Dtype;
  ArrayValues X = loadArray(E, XV), Out = loadArray(E, OutV);
  ArrayRef<Value *> Lens = ArrayRef(X.Dims).take_front(K);
  ArrayRef<Value *> Rest = ArrayRef(X.Dims).drop_front(K);
  if (Gather) {
    ArrayRef<Value *> IndexDims = ArrayRef(Out.Dims).take_front(R);
    forEachPick(E, IndexDims, Lens, ArrayRef(X.Strides).take_front(K),
                [&](Value *XOff, ArrayRef<Value *> At) {
                  Value *Dst = advance(E, Out.Data, At,
                                       ArrayRef(Out.Strides).take_front(R));
                  emitCopy(E, Rest, Dst, ArrayRef(Out.Strides).drop_front(R),
                           T,
                           B.CreateInBoundsGEP(B.getInt8Ty(), X.Data, XOff),
                           ArrayRef(X.Strides).drop_front(K), T);
                });
    return Error::success();
  }
  // The scatter: x copied, then y (broadcast to B's dims and x's rest,
  // right-aligned) added or stored at each pick.
  const bool Set = arrayFnParams(N.op()).Set;
  const Variable *YV = N.inputs()[1];
  ArrayValues Y = loadArray(E, YV);
  Value *Ok;
  SmallVector<Value *, 8> IndexDims = indexDims(E, R, Ok);
  SmallVector<Value *, 8> Full(IndexDims.begin(), IndexDims.end());
  Full.append(Rest.begin(), Rest.end());
  const unsigned YRank = Y.Dims.size(), FullRank = Full.size();
  SmallVector<Value *, 8> YStrides(FullRank - YRank, E.constI64(0));
  for (unsigned I = 0; I < YRank; ++I) {
    Value *D = Y.Dims[I], *To = Full[FullRank - YRank + I];
    Value *IsOne = B.CreateICmpEQ(D, E.constI64(1));
    Ok = B.CreateAnd(Ok, B.CreateOr(IsOne, B.CreateICmpEQ(D, To)));
    YStrides.push_back(B.CreateSelect(IsOne, E.constI64(0), Y.Strides[I]));
  }
  computeUnless(E, Ok); // the scatter's prepare() checks nothing
  emitCopy(E, X.Dims, Out.Data, Out.Strides, T, X.Data, X.Strides, T);
  forEachPick(
      E, IndexDims, Lens, ArrayRef(Out.Strides).take_front(K),
      [&](Value *OutOff, ArrayRef<Value *> At) {
        Value *Dst = B.CreateInBoundsGEP(B.getInt8Ty(), Out.Data, OutOff);
        Value *Src = advance(E, Y.Data, At, ArrayRef(YStrides).take_front(R));
        SmallVector<Value *, 8> RestY(YStrides.begin() + R, YStrides.end());
        emitStridedNest(
            E, Rest, {Dst, Src},
            {SmallVector<Value *, 8>(Out.Strides.begin() + K,
                                     Out.Strides.end()),
             RestY},
            [&](ArrayRef<Value *> P) {
              Value *V = E.loadElement(T, P[1]);
              if (!Set) {
                Value *Old = E.loadElement(T, P[0]);
                V = isBool(T)    ? B.CreateOr(Old, V)
                    : isFloat(T) ? B.CreateFAdd(Old, V)
                                 : B.CreateAdd(Old, V);
              }
              E.storeElement(T, V, P[0]);
            });
      });
  return Error::success();
}

} // namespace

bool graphjit::plansAdvancedIndex(const Apply &N) {
  const ArrayFnParams &P = arrayFnParams(N.op());
  if (P.Fn != ArrayFn::AdvancedSubtensor &&
      P.Fn != ArrayFn::AdvancedIncSubtensor)
    return false;
  const unsigned First = firstIndex(N), K = N.inputs().size() - First;
  const TensorType &X = N.inputs()[0]->type();
  if (K == 0 || K > X.rank() || P.Pattern.size() != K)
    return false;
  for (unsigned J = 0; J < K; ++J)
    if (P.Pattern[J] != int64_t(J))
      return false;
  for (unsigned I = First; I < N.inputs().size(); ++I) {
    DType T = N.inputs()[I]->type().Dtype;
    if (isFloat(T) || T == DType::Bool)
      return false;
  }
  if (P.Fn == ArrayFn::AdvancedIncSubtensor) {
    // y of x's dtype, broadcasting to x[...]'s rank at most.
    const TensorType &Y = N.inputs()[1]->type();
    if (Y.Dtype != X.Dtype || Y.rank() > indexRank(N) + X.rank() - K)
      return false;
  }
  return true;
}

void graphjit::emitPlannedAdvancedIndexDims(ThunkEmitter &E,
                                            OutputDims &Dims) {
  emitAdvancedIndexDims(E, Dims);
}

Error graphjit::emitPlannedAdvancedIndex(ThunkEmitter &E) {
  return emitAdvancedIndex(E);
}
