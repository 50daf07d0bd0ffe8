//===- CompositePerform.cpp - Running a scalar program over arrays -------===//
//
// performComposite(): the loop over the output's rows (forEachRow after
// coalesceLoop, as mapElements walks them), cut into chunks of ChunkSize
// elements. Per chunk, each step gets its operands as unit-stride arrays
// of its signature's dtypes (the input's own row where it already is one,
// else a conversion into scratch, as convertArray would make them), runs
// its kernel from ScalarKernels.h into its result scratch, and the last
// step's result is copied to the output row. The kernels and conversions
// are looked up once per call, as function pointers.
//
//===----------------------------------------------------------------------===//

#include "ops/composite/CompositePerform.h"
#include "ops/elemwise/ElemwiseLoop.h"
#include "ops/elemwise/ScalarKernels.h"
#include <algorithm>
#include <cassert>
#include <cstring>

using namespace graphjit;

namespace {

/// Elements per chunk: every scratch array of a step stays in L1.
constexpr int64_t ChunkSize = 256;

/// Out[j] = kernel(In[0][j], In[1][j], ...) for j < N, unit strides.
using RowKernel = void (*)(char *Out, char *const *In, unsigned NumIn,
                           int64_t N);
/// Dst[j * DstStride] = convert(Src[j * SrcStride]) for j < N (bytes).
using Converter = void (*)(char *Dst, int64_t DstStride, const char *Src,
                           int64_t SrcStride, int64_t N);

template <ScalarOpKind K, typename T>
void rowKernel(char *Out, char *const *In, unsigned NumIn, int64_t N) {
  scalar::Fn<K> F;
  constexpr const ScalarOpInfo &Info = scalarOpInfo(K);
  auto Arg = [&](unsigned I) { return reinterpret_cast<const T *>(In[I]); };
  if constexpr (K == ScalarOpKind::Switch) {
    T *O = reinterpret_cast<T *>(Out);
    const bool *C = reinterpret_cast<const bool *>(In[0]);
    const T *A = Arg(1), *B = Arg(2);
    for (int64_t J = 0; J < N; ++J)
      O[J] = F(C[J], A[J], B[J]);
  } else if constexpr (Info.MinArity == 3) { // clip, betainc
    T *O = reinterpret_cast<T *>(Out);
    const T *X = Arg(0), *Lo = Arg(1), *Hi = Arg(2);
    for (int64_t J = 0; J < N; ++J)
      O[J] = F(X[J], Lo[J], Hi[J]);
  } else if constexpr (K == ScalarOpKind::Second) {
    T *O = reinterpret_cast<T *>(Out);
    const T *B = Arg(1);
    for (int64_t J = 0; J < N; ++J)
      O[J] = F(B[J]);
  } else if constexpr (Info.MinArity == 1) {
    using OutT = decltype(F(T()));
    OutT *O = reinterpret_cast<OutT *>(Out);
    const T *A = Arg(0);
    for (int64_t J = 0; J < N; ++J)
      O[J] = F(A[J]);
  } else {
    using OutT = decltype(F(T(), T()));
    OutT *O = reinterpret_cast<OutT *>(Out);
    const T *A = Arg(0), *B = Arg(1);
    for (int64_t J = 0; J < N; ++J)
      O[J] = F(A[J], B[J]);
    // n-ary add and mul fold left, as (a + b) + c; Out is scratch, never
    // an operand.
    if constexpr (Info.MaxArity < 0)
      for (unsigned I = 2; I < NumIn; ++I) {
        const T *C = Arg(I);
        for (int64_t J = 0; J < N; ++J)
          O[J] = F(O[J], C[J]);
      }
  }
}

/// The kernel of K with compute dtype T, found among the ScalarOpKinds at
/// compile time; null where the kernels do not accept T (cast has none:
/// it is a conversion).
template <unsigned I = 0> RowKernel rowKernelFor(ScalarOpKind K, DType T) {
  if constexpr (I < NumScalarOps) {
    constexpr ScalarOpKind KI = static_cast<ScalarOpKind>(I);
    if (K != KI)
      return rowKernelFor<I + 1>(K, T);
    RowKernel R = nullptr;
    if constexpr (KI != ScalarOpKind::Cast)
      dispatchDType(T, [&](auto Tag) {
        using E = typename decltype(Tag)::type;
        if constexpr (scalar::accepts<KI, E>())
          R = &rowKernel<KI, E>;
      });
    return R;
  }
  return nullptr;
}

template <typename To, typename From>
void convertRow(char *Dst, int64_t DstStride, const char *Src,
                int64_t SrcStride, int64_t N) {
  if constexpr (std::is_same_v<To, From>) {
    if (DstStride == int64_t(sizeof(To)) && SrcStride == int64_t(sizeof(To))) {
      std::memcpy(Dst, Src, N * sizeof(To));
      return;
    }
  }
  for (int64_t J = 0; J < N; ++J)
    *reinterpret_cast<To *>(Dst + J * DstStride) = scalar::convert<To>(
        *reinterpret_cast<const From *>(Src + J * SrcStride));
}

Converter converterFor(DType From, DType To) {
  Converter R = nullptr;
  dispatchDType(From, [&](auto FromTag) {
    using F = typename decltype(FromTag)::type;
    dispatchDType(To, [&](auto ToTag) {
      using T = typename decltype(ToTag)::type;
      R = &convertRow<T, F>;
    });
  });
  return R;
}

/// Where a step operand comes from, and what it takes to hand it to the
/// kernel as a unit-stride array of the step's dtype.
struct OperandPlan {
  bool Read = true;   ///< second's first operand is not.
  int Input = -1;     ///< An input of the program, or:
  unsigned Step = 0;  ///< the result of an earlier step.
  DType From = DType::F64, To = DType::F64;
  Converter Convert = nullptr; ///< From -> To (strided).
  size_t Scratch = 0;          ///< Offset of its scratch, if it needs one.
};

struct StepPlan {
  RowKernel Kernel = nullptr;  ///< Null for a cast:
  Converter Cast = nullptr;    ///< its conversion.
  llvm::SmallVector<OperandPlan, 3> Operands;
  DType Out = DType::F64;
  size_t Result = 0; ///< Offset of its result's scratch.
};

} // namespace

void graphjit::performComposite(const CompositeScalar &C,
                                llvm::ArrayRef<ScalarSignature> Sigs,
                                llvm::ArrayRef<NDArray> Inputs,
                                const NDArray &Out) {
  if (Out.numElements() == 0)
    return;
  // Scratch: one result array per step and one per operand that may need
  // converting or gathering, each ChunkSize elements of up to 8 bytes.
  constexpr size_t Slot = ChunkSize * 8;
  size_t Scratch = 0;
  std::vector<StepPlan> Plan(C.Steps.size());
  for (size_t K = 0; K < C.Steps.size(); ++K) {
    const CompositeStep &S = C.Steps[K];
    const ScalarSignature &Sig = Sigs[K];
    StepPlan &P = Plan[K];
    P.Out = Sig.Out;
    P.Result = Scratch;
    Scratch += Slot;
    for (size_t J = 0; J < S.Args.size(); ++J) {
      OperandPlan O;
      O.Read = !(S.Kind == ScalarOpKind::Second && J == 0);
      unsigned A = S.Args[J];
      if (A < C.NumInputs) {
        O.Input = int(A);
        O.From = Inputs[A].dtype();
      } else {
        O.Step = A - C.NumInputs;
        O.From = Plan[O.Step].Out;
      }
      O.To = Sig.In[J];
      O.Convert = converterFor(O.From, O.To);
      // A step's result already is a unit-stride array: it needs scratch
      // only to change dtype.
      if (O.Read && (O.Input >= 0 || O.From != O.To)) {
        O.Scratch = Scratch;
        Scratch += Slot;
      }
      P.Operands.push_back(O);
    }
    if (S.Kind == ScalarOpKind::Cast)
      P.Cast = converterFor(Sig.In[0], Sig.Out);
    else
      // The last operand has the compute dtype (switch's first is bool).
      P.Kernel = rowKernelFor(S.Kind, Sig.In.back());
    // compositeSignatures() only picks dtypes the kernels accept.
    assert((P.Kernel || P.Cast) && "no kernel for a step's dtype");
  }
  std::vector<uint64_t> Memory(Scratch / 8);
  char *Base = reinterpret_cast<char *>(Memory.data());
  Converter Store = converterFor(Plan.back().Out, Out.dtype());

  Shape LoopShape = Out.shape();
  llvm::SmallVector<LoopOperand, 8> Ops;
  Ops.push_back({Out.data(), Out.strides()});
  for (const NDArray &A : Inputs)
    Ops.push_back({A.data(), broadcastStrides(A, LoopShape)});
  coalesceLoop(LoopShape, Ops);

  llvm::SmallVector<char *, 8> Args;
  forEachRow(LoopShape, Ops, [&](char **P, const int64_t *St, int64_t N) {
    for (int64_t Begin = 0; Begin < N; Begin += ChunkSize) {
      int64_t Count = std::min(ChunkSize, N - Begin);
      for (StepPlan &S : Plan) {
        Args.clear();
        for (const OperandPlan &O : S.Operands) {
          if (!O.Read) {
            Args.push_back(nullptr);
            continue;
          }
          const char *Src;
          int64_t Stride;
          if (O.Input >= 0) {
            Stride = St[1 + O.Input];
            Src = P[1 + O.Input] + Begin * Stride;
          } else {
            Src = Base + Plan[O.Step].Result;
            Stride = dtypeSize(O.From);
          }
          // An input row already dense in the step's dtype is used as it
          // is (its elements are read before the chunk is written, even
          // when the output is that input).
          if (O.From == O.To && Stride == int64_t(dtypeSize(O.To))) {
            Args.push_back(const_cast<char *>(Src));
            continue;
          }
          char *Dst = Base + O.Scratch;
          O.Convert(Dst, dtypeSize(O.To), Src, Stride, Count);
          Args.push_back(Dst);
        }
        char *Result = Base + S.Result;
        if (S.Cast)
          S.Cast(Result, dtypeSize(S.Out), Args[0],
                 dtypeSize(S.Operands[0].To), Count);
        else
          S.Kernel(Result, Args.data(), Args.size(), Count);
      }
      Store(P[0] + Begin * St[0], St[0], Base + Plan.back().Result,
            dtypeSize(Plan.back().Out), Count);
    }
  });
}
