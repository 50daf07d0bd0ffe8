//===- GemmOp.cpp - gemm: beta·c + alpha·op(a)·op(b) ----------------------===//
//
// Theano's Gemm and Gemv as one op. out = beta·c + alpha·dot(op(a), op(b))
// for a and b of rank 1 or 2 (the ranks dot takes, less 0-d), c broadcast to
// the product's shape but never beyond it. prepare() checks the shapes and
// makes the C-contiguous output; compute() writes beta·c into it (zeros when
// beta is 0: c is not read, as in BLAS) and then accumulates the product
// with one BLAS call (beta 1) where the operands' layouts allow, else with
// plain loops: no array but the output is ever allocated, so the memory
// profile sees exactly what Theano's would.
//
//===----------------------------------------------------------------------===//

#include "ops/linalg/GemmOp.h"
#include "ops/elemwise/ElemwiseOps.h"
#include "ops/linalg/MatrixProduct.h"
#include "ops/Strided.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include "llvm/Support/Casting.h"
#include <cmath>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

/// A number attribute (an integer or a float), finite.
Expected<double> readNumber(const AttrReader &R, llvm::StringRef Key,
                            double Default) {
  const AttrValue *V = R.get(Key);
  if (!V)
    return Default;
  double D;
  if (V->K == AttrValue::Int)
    D = double(V->I);
  else if (V->K == AttrValue::Float)
    D = V->F;
  else
    return attrError(Key.str(), "attribute '" + Key +
                                    "' of 'gemm' must be a number, not '" +
                                    V->str() + "'");
  if (!std::isfinite(D))
    return attrError(Key.str(), "attribute '" + Key +
                                    "' of 'gemm' must be a finite number, "
                                    "not '" +
                                    V->str() + "'");
  return D;
}

Expected<GemmParams> readParams(const AttrMap &Attrs) {
  AttrReader R("gemm", Attrs);
  if (Error E =
          R.checkOnly({"alpha", "beta", "trans_a", "trans_b", "inplace"}))
    return E;
  GemmParams P;
  Expected<double> Alpha = readNumber(R, "alpha", 1.0);
  if (!Alpha)
    return Alpha.takeError();
  Expected<double> Beta = readNumber(R, "beta", 1.0);
  if (!Beta)
    return Beta.takeError();
  Expected<bool> TransA = R.getBool("trans_a", false);
  if (!TransA)
    return TransA.takeError();
  Expected<bool> TransB = R.getBool("trans_b", false);
  if (!TransB)
    return TransB.takeError();
  Expected<bool> Inplace = R.getBool("inplace", false);
  if (!Inplace)
    return Inplace.takeError();
  P.Alpha = *Alpha;
  P.Beta = *Beta;
  P.TransA = *TransA;
  P.TransB = *TransB;
  P.Inplace = *Inplace;
  return P;
}

/// The shortest spelling of V that reads back as V, without a needless
/// ".0": "1", "-0.1", "1e-08" (names, not graph text).
std::string numberName(double V) {
  std::string S = formatFloatLiteral(V);
  if (llvm::StringRef(S).ends_with(".0"))
    S.resize(S.size() - 2);
  return S;
}

std::vector<Dim> knownDims(const Shape &S) {
  std::vector<Dim> D;
  D.reserve(S.size());
  for (int64_t N : S)
    D.push_back(Dim::known(N));
  return D;
}

/// The one check of operand shapes, on static dims or (all known) run-time
/// ones: ranks, trans flags, the contracted dims, and c against the
/// product. Returns the product's dims (dot(op(a), op(b))).
Expected<std::vector<Dim>> productDims(const GemmParams &P,
                                       llvm::ArrayRef<Dim> C,
                                       llvm::ArrayRef<Dim> A,
                                       llvm::ArrayRef<Dim> B) {
  struct Operand {
    const char *Name;
    llvm::ArrayRef<Dim> Dims;
    bool Trans;
  } Ops[2] = {{"a", A, P.TransA}, {"b", B, P.TransB}};
  for (const Operand &X : Ops) {
    if (X.Dims.size() != 1 && X.Dims.size() != 2)
      return opError(llvm::Twine("gemm takes a and b of rank 1 or 2, not ") +
                     X.Name + " of shape " + compactDimsStr(X.Dims));
    if (X.Trans && X.Dims.size() != 2)
      return opError(llvm::Twine("trans_") + X.Name + " transposes a matrix, "
                     "but " + X.Name + " has shape " + compactDimsStr(X.Dims));
  }
  // The contracted dim of each operand, as an index into its own dims:
  // op(a) is M×K, op(b) is K×N.
  unsigned DA = A.size() == 2 && !P.TransA ? 1 : 0;
  unsigned DB = B.size() == 2 && P.TransB ? 1 : 0;
  const Dim &KA = A[DA], &KB = B[DB];
  if (KA.isKnown() && KB.isKnown() && KA.Size != KB.Size)
    return opError("shapes " + compactDimsStr(A) + " and " +
                   compactDimsStr(B) + " not aligned: " + KA.str() +
                   " (dim " + std::to_string(DA) + " of a" +
                   (P.TransA ? ", trans_a" : "") + ") != " + KB.str() +
                   " (dim " + std::to_string(DB) + " of b" +
                   (P.TransB ? ", trans_b" : "") + ")");
  std::vector<Dim> Out;
  if (A.size() == 2)
    Out.push_back(A[1 - DA]);
  if (B.size() == 2)
    Out.push_back(B[1 - DB]);
  auto NoBroadcast = [&] {
    return opError("c of shape " + compactDimsStr(C) +
                   " does not broadcast to the shape " + compactDimsStr(Out) +
                   " of dot(op(a), op(b)): c may be broadcast to the "
                   "product, not make it larger");
  };
  if (C.size() > Out.size())
    return NoBroadcast();
  for (unsigned I = 0; I < C.size(); ++I) {
    const Dim &X = C[I], &D = Out[Out.size() - C.size() + I];
    if (X.isKnown() && X.Size != 1 && D.isKnown() && X.Size != D.Size)
      return NoBroadcast();
  }
  return Out;
}

/// All three operands of one dtype, f32 or f64.
Error checkDTypes(DType C, DType A, DType B) {
  if (C == A && A == B && (A == DType::F32 || A == DType::F64))
    return Error::success();
  return opError("gemm takes c, a and b of one dtype, f32 or f64, not " +
                 dtypeName(C).str() + ", " + dtypeName(A).str() + " and " +
                 dtypeName(B).str());
}

/// C (M×N, contiguous) += Alpha·A·B with plain loops, for layouts BLAS
/// cannot read (without copying them).
template <typename T>
void loopAccumulate(const MatView &A, const MatView &B, T *C, T Alpha) {
  for (int64_t I = 0; I < A.Rows; ++I)
    for (int64_t J = 0; J < B.Cols; ++J) {
      const char *PA = A.Data + I * A.RowStride;
      const char *PB = B.Data + J * B.ColStride;
      T S = 0;
      for (int64_t K = 0; K < A.Cols; ++K)
        S += *reinterpret_cast<const T *>(PA + K * A.ColStride) *
             *reinterpret_cast<const T *>(PB + K * B.RowStride);
      C[I * B.Cols + J] += Alpha * S;
    }
}

} // namespace

std::string GemmOp::name() const {
  std::string S = "Gemm{alpha=" + numberName(P.Alpha) +
                  ",beta=" + numberName(P.Beta);
  if (P.TransA)
    S += ",trans_a";
  if (P.TransB)
    S += ",trans_b";
  return S + (P.Inplace ? ",inplace}" : ",no_inplace}");
}

double GemmOp::flops(llvm::ArrayRef<Shape> In,
                     llvm::ArrayRef<Shape> Out) const {
  if (In.size() != 3 || Out.size() != 1 || In[1].empty())
    return 0;
  double MN = double(numElementsOf(Out[0]));
  double K = double(In[1].size() == 2 && !P.TransA ? In[1][1] : In[1][0]);
  double F = 0;
  if (P.Alpha != 0)
    F += 2 * MN * K + (P.Alpha != 1 ? MN : 0);
  if (P.Beta != 0)
    F += MN + (P.Beta != 1 ? MN : 0);
  return F;
}

double GemmOp::bytesMoved(llvm::ArrayRef<NDArray> In,
                          llvm::ArrayRef<NDArray> Out) const {
  double Bytes = Op::bytesMoved(In, Out);
  if (In.size() == 3) {
    if (P.Beta == 0)
      Bytes -= In[0].numBytes();
    if (P.Alpha == 0)
      Bytes -= In[1].numBytes() + In[2].numBytes();
  }
  return Bytes;
}

Expected<std::vector<TensorType>>
GemmOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  if (In.size() != 3)
    return opError("gemm takes 3 inputs (c, a, b)");
  if (Error E = checkDTypes(In[0].Dtype, In[1].Dtype, In[2].Dtype))
    return E;
  Expected<std::vector<Dim>> Product =
      productDims(P, In[0].Dims, In[1].Dims, In[2].Dims);
  if (!Product)
    return Product.takeError();
  // As add(dot(a, b), c) infers: c's known sizes and symbols refine the
  // product's dims, so a rewrite keeps the type it replaces.
  DType T = In[1].Dtype;
  Expected<std::vector<Dim>> Dims =
      broadcastDims({TensorType(T, std::move(*Product)), In[0]});
  if (!Dims)
    return Dims.takeError();
  return std::vector<TensorType>{TensorType(T, std::move(*Dims))};
}

Error GemmOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                      const ExecContext &) const {
  Expected<Shape> S = outputShape(In);
  if (!S)
    return S.takeError();
  if (Out.size() != 1)
    return opError("internal error: gemm has one output");
  // In place where c's memory is laid out as the output's would be.
  if (P.Inplace && In[0].shape() == *S && In[0].isContiguous()) {
    Out[0] = In[0];
    return Error::success();
  }
  return createOutput(Out[0], In[1].dtype(), *S);
}

Error GemmOp::compute(llvm::ArrayRef<NDArray> In, llvm::ArrayRef<NDArray> Out,
                      const ExecContext &) const {
  Expected<Shape> S = outputShape(In);
  if (!S)
    return S.takeError();
  // The products write C order (isContiguous() is false for any array of
  // no elements, which is never written).
  if (Out.size() != 1 || Out[0].isNull() ||
      Out[0].dtype() != In[1].dtype() || Out[0].shape() != *S ||
      (elementCount(*S) != 0 && !Out[0].isContiguous()))
    return opError("internal error: gemm's output was not prepared");
  if (In[1].dtype() == DType::F32)
    run<float>(In[0], In[1], In[2], Out[0]);
  else
    run<double>(In[0], In[1], In[2], Out[0]);
  return Error::success();
}

Expected<Shape> GemmOp::outputShape(llvm::ArrayRef<NDArray> In) const {
  if (In.size() != 3)
    return opError("gemm takes 3 inputs (c, a, b)");
  if (Error E = checkDTypes(In[0].dtype(), In[1].dtype(), In[2].dtype()))
    return E;
  Expected<std::vector<Dim>> Dims =
      productDims(P, knownDims(In[0].shape()), knownDims(In[1].shape()),
                  knownDims(In[2].shape()));
  if (!Dims)
    return Dims.takeError();
  Shape S;
  for (const Dim &D : *Dims)
    S.push_back(D.Size);
  return S;
}

template <typename T>
void GemmOp::run(const NDArray &C, const NDArray &A, const NDArray &B,
                 const NDArray &Out) const {
  const Shape &S = Out.shape();
  if (elementCount(S) == 0)
    return;
  T *Dst = Out.dataAs<T>();
  if (P.Beta == 0) {
    // c is not read: its NaNs and infinities do not reach the result.
    fillWith(Out, 0);
  } else if (P.Beta == 1 && Out.data() == C.data()) {
    // In place: c is already there.
  } else {
    const T Beta = T(P.Beta);
    LoopOperand Ops[2] = {{Out.data(), Out.strides()},
                          {C.data(), broadcastStrides(C, S)}};
    forEachRow(S, Ops, [&](char **Ptr, const int64_t *St, int64_t N) {
      for (int64_t I = 0; I < N; ++I) {
        T X = *reinterpret_cast<const T *>(Ptr[1] + I * St[1]);
        *reinterpret_cast<T *>(Ptr[0] + I * St[0]) =
            Beta == T(1) ? X : Beta * X;
      }
    });
  }
  MatView MA = leftView(A), MB = rightView(B);
  if (P.TransA)
    MA = MA.transposed();
  if (P.TransB)
    MB = MB.transposed();
  // alpha 0 reads neither a nor b, as BLAS; K = 0 adds nothing.
  if (P.Alpha == 0 || MA.Cols == 0)
    return;
  if (blasProduct(MA, MB, Dst, T(P.Alpha), T(1)))
    return;
  loopAccumulate<T>(MA, MB, Dst, T(P.Alpha));
}

namespace {

Expected<OpRef> makeGemm(const AttrMap &Attrs, unsigned) {
  Expected<GemmParams> P = readParams(Attrs);
  if (!P)
    return P.takeError();
  return std::make_shared<GemmOp>(Attrs, *P);
}

} // namespace

Expected<OpRef> graphjit::makeGemmOp(const GemmParams &P) {
  AttrMap Attrs;
  Attrs["alpha"] = AttrValue::floating(P.Alpha);
  Attrs["beta"] = AttrValue::floating(P.Beta);
  if (P.TransA)
    Attrs["trans_a"] = AttrValue::boolean(true);
  if (P.TransB)
    Attrs["trans_b"] = AttrValue::boolean(true);
  if (P.Inplace)
    Attrs["inplace"] = AttrValue::boolean(true);
  return makeGemm(Attrs, 3);
}

std::optional<GemmParams> graphjit::gemmParams(const Op &O) {
  const auto *G = llvm::dyn_cast<GemmOp>(&O);
  if (!G)
    return std::nullopt;
  return G->params();
}

void graphjit::registerGemmOp(OpRegistry &R) {
  R.add(OpSpec{"gemm", 3, 3, makeGemm,
               "beta*c + alpha*dot(op(a), op(b)) in one BLAS call (the "
               "optimizer's gemm/gemv): gemm(c, a, b, alpha=1.0, beta=1.0, "
               "trans_a=false, trans_b=false, inplace=false)"});
}
