//===- NNOps.cpp - softmax and log_softmax -------------------------------===//
//
// Softmax and log-softmax along one axis of an array of any rank, computed
// the numerically stable way (the maximum along the axis is subtracted
// first), in double and rounded to the output dtype (float32 to float32:
// each exp in float, the sum in double). Integer and bool inputs
// give floatTypeFor(dtype) as NumPy's float functions do. prepare() checks
// and creates the output for the JIT (SoftmaxLowering.cpp).
//
//===----------------------------------------------------------------------===//

#include "ops/nn/NNOps.h"
#include "ops/reduction/PairwiseSum.h"
#include "ops/reduction/ReduceSupport.h"
#include "ops/StructuralParams.h"
#include "ops/StructuralUtil.h"
#include "graphjit/OpRegistry.h"
#include "ops/StandardOps.h"
#include "llvm/Support/Casting.h"
#include <cmath>
#include <limits>
#include <type_traits>

using namespace graphjit;
using llvm::Error;
using llvm::Expected;

namespace {

/// One row of N elements: In (type T) to Out (type R), both strided.
template <typename T, typename R>
void softmaxRow(const char *In, int64_t InStride, char *Out,
                int64_t OutStride, int64_t N, bool Log) {
  if (N == 0)
    return;
  // The elements and their exps in float for float32 to float32 (as NumPy
  // computes it: twice double's SIMD lanes), else in double; the sum and
  // the division always in double.
  using C = std::conditional_t<std::is_same_v<T, float> &&
                                   std::is_same_v<R, float>,
                               float, double>;
  auto X = [&](int64_t I) { return C(loadAt<T>(In, InStride, I)); };
  // The maximum, NaN if any element is NaN (as np.max gives).
  C Max = X(0);
  for (int64_t I = 1; I < N && !std::isnan(Max); ++I) {
    C V = X(I);
    if (std::isnan(V) || V > Max)
      Max = V;
  }
  if (std::isnan(Max)) {
    // A NaN anywhere makes the whole row NaN: the quiet NaN, whatever the
    // payloads along the way (vector and scalar exps differ in them).
    for (int64_t I = 0; I < N; ++I)
      *reinterpret_cast<R *>(Out + I * OutStride) =
          std::numeric_limits<R>::quiet_NaN();
    return;
  }
  if (std::is_same_v<R, C> && N >= SoftmaxKeepExpsFrom) {
    // The exps kept in the output, summed pairwise in double (NumPy sums
    // pairwise; the JIT code calls the same sum), then divided, or
    // replaced by x - max - log(sum).
    for (int64_t I = 0; I < N; ++I)
      *reinterpret_cast<R *>(Out + I * OutStride) = R(std::exp(X(I) - Max));
    const double Total = pairwiseSum<double, R>(Out, OutStride, N);
    // Times the reciprocal, as vector code multiplies (a division per
    // element costs several times more): within an ulp of exp / sum.
    const double Inverse = 1.0 / Total, LogSum = std::log(Total);
    for (int64_t I = 0; I < N; ++I) {
      R &Y = *reinterpret_cast<R *>(Out + I * OutStride);
      Y = static_cast<R>(Log ? double(X(I) - Max) - LogSum
                             : double(Y) * Inverse);
    }
    return;
  }
  double Sum = 0;
  for (int64_t I = 0; I < N; ++I)
    Sum += double(std::exp(X(I) - Max));
  const double LogSum = std::log(Sum);
  for (int64_t I = 0; I < N; ++I) {
    C Shifted = X(I) - Max;
    double V = Log ? double(Shifted) - LogSum : double(std::exp(Shifted)) / Sum;
    *reinterpret_cast<R *>(Out + I * OutStride) = static_cast<R>(V);
  }
}

template <bool Log>
Expected<OpRef> makeSoftmax(const AttrMap &Attrs, unsigned) {
  const char *Name = Log ? "log_softmax" : "softmax";
  AttrReader R(Name, Attrs);
  if (Error E = R.checkOnly({"axis"}))
    return E;
  Expected<int64_t> Axis = R.getInt("axis", -1);
  if (!Axis)
    return Axis.takeError();
  return std::make_shared<SoftmaxOp>(Log, Attrs, *Axis);
}

} // namespace

Expected<std::vector<TensorType>>
SoftmaxOp::inferTypes(llvm::ArrayRef<TensorType> In) const {
  const TensorType &X = In[0];
  if (Expected<unsigned> A = checkAxis(Axis, X.rank()); !A)
    return attrError("axis", llvm::toString(A.takeError()));
  return std::vector<TensorType>{TensorType(floatTypeFor(X.Dtype), X.Dims)};
}

Error SoftmaxOp::prepare(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                         const ExecContext &) const {
  const NDArray &X = In[0];
  if (Expected<unsigned> A = checkAxis(Axis, X.rank()); !A)
    return A.takeError();
  return createOutput(Out[0], floatTypeFor(X.dtype()), X.shape());
}

Error SoftmaxOp::perform(llvm::ArrayRef<NDArray> In, std::vector<NDArray> &Out,
                         const ExecContext &Ctx) const {
  if (Error E = prepare(In, Out, Ctx))
    return E;
  const NDArray &X = In[0];
  const std::optional<unsigned> A = normalizedAxis(X.rank());
  const NDArray &R = Out[0];
  // Loop over every dim but the axis; each step is one row along it.
  Shape LoopShape, InStrides, OutStrides;
  for (unsigned D = 0; D < X.rank(); ++D)
    if (D != *A) {
      LoopShape.push_back(X.dim(D));
      InStrides.push_back(X.strides()[D]);
      OutStrides.push_back(R.strides()[D]);
    }
  LoopOperand Ops[2] = {{X.data(), InStrides}, {R.data(), OutStrides}};
  const int64_t N = X.dim(*A), InStep = X.strides()[*A],
                OutStep = R.strides()[*A];
  dispatchDType(X.dtype(), [&](auto InTag) {
    using T = typename decltype(InTag)::type;
    dispatchDType(R.dtype(), [&](auto OutTag) {
      using OutT = typename decltype(OutTag)::type;
      if constexpr (std::is_floating_point_v<OutT>)
        forEachRow(LoopShape, Ops,
                   [&](char **P, const int64_t *St, int64_t Count) {
                     for (int64_t I = 0; I < Count; ++I)
                       softmaxRow<T, OutT>(P[0] + I * St[0], InStep,
                                           P[1] + I * St[1], OutStep, N, Log);
                   });
    });
  });
  return Error::success();
}

std::optional<SoftmaxInfo> graphjit::softmaxInfo(const Op &O, unsigned Rank) {
  const auto *S = llvm::dyn_cast<SoftmaxOp>(&O);
  if (!S)
    return std::nullopt;
  std::optional<unsigned> A = S->normalizedAxis(Rank);
  if (!A)
    return std::nullopt;
  return SoftmaxInfo{S->isLog(), *A};
}

void graphjit::registerNNOps(OpRegistry &R) {
  R.add(OpSpec{"softmax", 1, 1, makeSoftmax<false>,
               "exp(x - max) / sum(exp(x - max)) along an axis: "
               "softmax(x, axis=-1)"});
  R.add(OpSpec{"log_softmax", 1, 1, makeSoftmax<true>,
               "x - max - log(sum(exp(x - max))) along an axis: "
               "log_softmax(x, axis=-1)"});
}
