//===- ElemwisePerform.cpp - Elemwise's reference perform ----------------===//
//
// The "py" linker's path for every Elemwise: prepare() broadcasts the
// run-time shapes and makes the output, or takes the overwritten input as
// the output of an in-place Elemwise (the JIT's lowering calls it too),
// then each input is converted to the dtype its scalar operation computes
// in and the kernel of ScalarKernels.h runs over the broadcast output with
// mapElements(). One template instantiation per (operation, dtype) pair
// that scalarSignature() can produce. Fused (Composite) and in-place
// Elemwise run through performComposite() instead, which allocates no
// temporaries and reads every element before overwriting it.
//
//===----------------------------------------------------------------------===//

#include "ops/composite/CompositePerform.h"
#include "ops/elemwise/ElemwiseLoop.h"
#include "ops/elemwise/ElemwiseOps.h"
#include "ops/elemwise/ScalarKernels.h"

using namespace graphjit;
using llvm::Error;

namespace {

/// Runs K's kernel with compute type T. In holds the inputs already
/// converted to the signature's dtypes.
template <ScalarOpKind K, typename T>
void runKernel(const NDArray &Out, llvm::ArrayRef<const NDArray *> In) {
  scalar::Fn<K> F;
  constexpr const ScalarOpInfo &Info = scalarOpInfo(K);
  if constexpr (K == ScalarOpKind::Switch) {
    mapElements<T, bool, T, T>(Out, {In[0], In[1], In[2]}, F);
  } else if constexpr (Info.MinArity == 3) { // clip, betainc
    mapElements<T, T, T, T>(Out, {In[0], In[1], In[2]}, F);
  } else if constexpr (K == ScalarOpKind::Second) {
    mapElements<T, T>(Out, {In[1]}, F);
  } else if constexpr (Info.MinArity == 1) {
    using OutT = decltype(F(T()));
    mapElements<OutT, T>(Out, {In[0]}, F);
  } else {
    using OutT = decltype(F(T(), T()));
    mapElements<OutT, T, T>(Out, {In[0], In[1]}, F);
    // n-ary add and mul fold left, as (a + b) + c.
    if constexpr (Info.MaxArity < 0)
      for (size_t I = 2; I < In.size(); ++I)
        mapElements<T, T, T>(Out, {&Out, In[I]}, F);
  }
}

/// Finds kind K among the ScalarOpKinds at compile time and runs it with
/// compute dtype T.
template <unsigned I = 0>
Error dispatchKernel(ScalarOpKind K, DType T, const NDArray &Out,
                     llvm::ArrayRef<const NDArray *> In) {
  if constexpr (I < NumScalarOps) {
    constexpr ScalarOpKind KI = static_cast<ScalarOpKind>(I);
    if (K != KI)
      return dispatchKernel<I + 1>(K, T, Out, In);
    bool Ran = false;
    if constexpr (KI != ScalarOpKind::Cast) {
      dispatchDType(T, [&](auto Tag) {
        using E = typename decltype(Tag)::type;
        if constexpr (scalar::accepts<KI, E>()) {
          runKernel<KI, E>(Out, In);
          Ran = true;
        }
      });
    }
    if (Ran)
      return Error::success();
  }
  // scalarSignature() only picks dtypes the kernels accept.
  return llvm::createStringError(std::string("no ") + scalarOpInfo(K).Name +
                                 " kernel for " + dtypeName(T).str());
}

/// NumPy refuses integer powers with a negative exponent; so do we, before
/// computing anything.
Error checkExponents(const NDArray &Exponents) {
  bool Negative = false;
  Shape LoopShape = Exponents.shape();
  LoopOperand Ops[] = {{Exponents.data(), Exponents.strides()}};
  coalesceLoop(LoopShape, Ops);
  dispatchDType(Exponents.dtype(), [&](auto Tag) {
    using E = typename decltype(Tag)::type;
    if constexpr (scalar::IsSignedInt<E>)
      forEachRow(LoopShape, Ops,
                 [&](char **P, const int64_t *St, int64_t N) {
                   for (int64_t J = 0; J < N; ++J)
                     Negative |= *detail::at<E>(P[0], St[0], J) < 0;
                 });
  });
  if (Negative)
    return llvm::createStringError(
        "Integers to negative integer powers are not allowed.");
  return Error::success();
}

} // namespace

/// The broadcast of the inputs' shapes into Out, without allocating;
/// false if they do not broadcast (broadcastShapes() words why).
static bool broadcastInto(llvm::ArrayRef<NDArray> Inputs,
                          llvm::SmallVectorImpl<int64_t> &Out) {
  size_t Rank = 0;
  for (const NDArray &A : Inputs)
    Rank = std::max<size_t>(Rank, A.rank());
  Out.assign(Rank, 1);
  for (const NDArray &A : Inputs) {
    size_t Off = Rank - A.rank();
    for (unsigned I = 0; I < A.rank(); ++I) {
      int64_t D = A.dim(I), &O = Out[Off + I];
      if (D == O || D == 1)
        continue;
      if (O != 1)
        return false;
      O = D;
    }
  }
  return true;
}

/// Whether an in-place output may be input I itself: I holds exactly the
/// output's elements, densely (the JIT's loops need a C-contiguous
/// output), and no other input reads its buffer through another layout,
/// which the element-by-element order could not keep apart.
static bool canOverwrite(llvm::ArrayRef<NDArray> Inputs, unsigned I,
                         DType OutType, llvm::ArrayRef<int64_t> OutShape) {
  const NDArray &A = Inputs[I];
  if (A.dtype() != OutType || llvm::ArrayRef<int64_t>(A.shape()) != OutShape ||
      !A.isContiguous() || A.isNull())
    return false;
  for (unsigned J = 0; J < Inputs.size(); ++J)
    if (J != I && Inputs[J].sharesBufferWith(A) &&
        !(Inputs[J].data() == A.data() && Inputs[J].shape() == A.shape() &&
          Inputs[J].strides() == A.strides()))
      return false;
  return true;
}

Error Elemwise::prepare(llvm::ArrayRef<NDArray> Inputs,
                        std::vector<NDArray> &Outputs,
                        const ExecContext &Ctx) const {
  (void)Ctx;
  llvm::SmallVector<DType, 4> DTypes;
  for (const NDArray &A : Inputs)
    DTypes.push_back(A.dtype());
  ScalarSignature Sig;
  std::shared_ptr<const StepSignatures> Steps;
  if (Error E = signaturesOf(DTypes, &Sig, &Steps))
    return E;
  DType OutType = Comp ? Steps->Steps.back().Out : Sig.Out;
  llvm::SmallVector<int64_t, 8> OutShape;
  if (!broadcastInto(Inputs, OutShape)) {
    llvm::SmallVector<Shape, 4> Shapes;
    for (const NDArray &A : Inputs)
      Shapes.push_back(A.shape());
    return broadcastShapes(Shapes).takeError();
  }
  if (Outputs.empty())
    Outputs.resize(1);
  if (Inplace >= 0 && unsigned(Inplace) < Inputs.size() &&
      canOverwrite(Inputs, Inplace, OutType, OutShape)) {
    // The output is the input (strides normalized: a dim of 1 may have
    // any stride), sharing its buffer.
    const NDArray &A = Inputs[Inplace];
    Outputs[0] = A.view(A.shape(), contiguousStrides(A.shape(),
                                                     A.elementSize()));
  } else if (Error E = NDArray::emptyInto(Outputs[0], OutType, OutShape)) {
    // Uninitialised: perform() and the JIT code write every element.
    return E;
  }
  // Only an integer compute dtype can refuse exponents. The inputs' own
  // values decide: converting to the (wider or equal) compute dtype keeps
  // their sign. (A Composite refuses integer pow steps statically.)
  if (!Comp && Kind == ScalarOpKind::Pow && Outputs[0].numElements() != 0 &&
      isInteger(Sig.In[1]))
    return checkExponents(Inputs[1]);
  return Error::success();
}

Error Elemwise::perform(llvm::ArrayRef<NDArray> Inputs,
                        std::vector<NDArray> &Outputs,
                        const ExecContext &Ctx) const {
  if (Error E = prepare(Inputs, Outputs, Ctx))
    return E;
  const NDArray &Out = Outputs[0];
  if (Out.numElements() == 0)
    return Error::success();
  llvm::SmallVector<DType, 4> DTypes;
  for (const NDArray &A : Inputs)
    DTypes.push_back(A.dtype());
  // prepare() succeeded, so the signatures exist.
  ScalarSignature Sig;
  std::shared_ptr<const StepSignatures> Steps;
  llvm::cantFail(signaturesOf(DTypes, &Sig, &Steps));
  if (Comp) {
    performComposite(*Comp, Steps->Steps, Inputs, Out);
    return Error::success();
  }
  if (Inplace >= 0) {
    // In place, the output may be an input: the two-pass fold of n-ary
    // add below would overwrite input 2 before reading it.
    performComposite(compositeOf(*this, Inputs.size()), {Sig}, Inputs, Out);
    return Error::success();
  }
  if (Kind == ScalarOpKind::Cast) {
    convertInto(Inputs[0], Out);
    return Error::success();
  }
  // The inputs in their compute dtypes: pointers to the inputs themselves
  // unless a conversion is needed.
  llvm::SmallVector<NDArray, 4> Converted(Inputs.size());
  llvm::SmallVector<const NDArray *, 4> In;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    // second() never reads its first input's values.
    bool Unread = Kind == ScalarOpKind::Second && I == 0;
    if (Unread || Inputs[I].dtype() == Sig.In[I]) {
      In.push_back(&Inputs[I]);
      continue;
    }
    llvm::Expected<NDArray> C = convertArray(Inputs[I], Sig.In[I]);
    if (!C)
      return C.takeError();
    Converted[I] = std::move(*C);
    In.push_back(&Converted[I]);
  }
  // The last input always has the compute dtype (switch's first is bool).
  return dispatchKernel(Kind, Sig.In.back(), Out, In);
}
