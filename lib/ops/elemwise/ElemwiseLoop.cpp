//===- ElemwiseLoop.cpp - Loop shapes and dtype conversion ---------------===//
//
// The non-template parts of ElemwiseLoop.h: merging loop dims, and the
// array conversion that the cast op and input promotion share.
//
//===----------------------------------------------------------------------===//

#include "ops/elemwise/ElemwiseLoop.h"
#include "ops/elemwise/ScalarKernels.h"

using namespace graphjit;

void graphjit::coalesceLoop(Shape &LoopShape,
                            llvm::MutableArrayRef<LoopOperand> Ops) {
  for (int64_t D : LoopShape)
    if (D == 0)
      return;
  Shape NewShape;
  llvm::SmallVector<Shape, 4> NewStrides(Ops.size());
  for (unsigned D = 0; D < LoopShape.size(); ++D) {
    int64_t Size = LoopShape[D];
    if (Size == 1)
      continue;
    // Dim D continues the previous kept dim if, for every operand, one step
    // there equals Size steps here.
    bool Merge = !NewShape.empty();
    for (size_t K = 0; K < Ops.size() && Merge; ++K) {
      int64_t Span;
      Merge = !__builtin_mul_overflow(Ops[K].Strides[D], Size, &Span) &&
              NewStrides[K].back() == Span;
    }
    if (Merge) {
      NewShape.back() *= Size;
      for (size_t K = 0; K < Ops.size(); ++K)
        NewStrides[K].back() = Ops[K].Strides[D];
      continue;
    }
    NewShape.push_back(Size);
    for (size_t K = 0; K < Ops.size(); ++K)
      NewStrides[K].push_back(Ops[K].Strides[D]);
  }
  LoopShape = std::move(NewShape);
  for (size_t K = 0; K < Ops.size(); ++K)
    Ops[K].Strides = std::move(NewStrides[K]);
}

void graphjit::convertInto(const NDArray &Src, const NDArray &Dst) {
  dispatchDType(Src.dtype(), [&](auto FromTag) {
    using From = typename decltype(FromTag)::type;
    dispatchDType(Dst.dtype(), [&](auto ToTag) {
      using To = typename decltype(ToTag)::type;
      mapElements<To, From>(Dst, {&Src},
                            [](From V) { return scalar::convert<To>(V); });
    });
  });
}

llvm::Expected<NDArray> graphjit::convertArray(const NDArray &A, DType T) {
  llvm::Expected<NDArray> R = NDArray::create(T, A.shape());
  if (!R)
    return R.takeError();
  convertInto(A, *R);
  return R;
}
