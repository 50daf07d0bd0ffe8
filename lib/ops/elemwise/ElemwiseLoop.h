//===- ElemwiseLoop.h - Element-by-element loops over broadcast operands -*- C++ -*-//
//
// mapElements() computes Out[i] = F(In0[i], In1[i], ...) for every element
// of Out, reading inputs of any strides (negative, or 0 where broadcast)
// through forEachRow. Dims that all operands walk as one are merged first,
// so contiguous operands become one long row, and rows whose operands are
// all dense (or one side a broadcast scalar) run as plain loops the
// compiler vectorizes.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ELEMWISELOOP_H
#define GRAPHJIT_OPS_ELEMWISELOOP_H

#include "ops/Strided.h"
#include <array>
#include <tuple>
#include <utility>

namespace graphjit {

/// Drops the loop's dims of size 1 and merges each dim into the one outside
/// it when every operand steps across both as across one dim. Leaves a
/// shape with a 0 alone (nothing runs).
void coalesceLoop(Shape &LoopShape, llvm::MutableArrayRef<LoopOperand> Ops);

/// A new C-contiguous array holding A converted element by element to T, as
/// scalar::convert does (NumPy's astype, without C++'s undefined cases).
llvm::Expected<NDArray> convertArray(const NDArray &A, DType T);

/// Converts Src into Dst (same shape) as scalar::convert does.
void convertInto(const NDArray &Src, const NDArray &Dst);

namespace detail {

template <typename T> inline const T *at(char *P, int64_t Stride, int64_t J) {
  return reinterpret_cast<const T *>(P + J * Stride);
}

/// One row: P[0] is the output, P[1..] the inputs, St their byte strides.
template <typename OutT, typename... InTs, typename Fn, size_t... I>
void mapRow(char **P, const int64_t *St, int64_t N, const Fn &F,
            std::index_sequence<I...>) {
  constexpr int64_t OutSize = sizeof(OutT);
  if (St[0] == OutSize && ((St[I + 1] == int64_t(sizeof(InTs))) && ...)) {
    OutT *O = reinterpret_cast<OutT *>(P[0]);
    std::tuple<const InTs *...> In(reinterpret_cast<const InTs *>(P[I + 1])...);
    for (int64_t J = 0; J < N; ++J)
      O[J] = F(std::get<I>(In)[J]...);
    return;
  }
  if constexpr (sizeof...(InTs) == 2) {
    // A dense operand with a broadcast scalar: mul(x, 2.0).
    using A = std::tuple_element_t<0, std::tuple<InTs...>>;
    using B = std::tuple_element_t<1, std::tuple<InTs...>>;
    OutT *O = reinterpret_cast<OutT *>(P[0]);
    if (St[0] == OutSize && St[1] == int64_t(sizeof(A)) && St[2] == 0) {
      const A *X = reinterpret_cast<const A *>(P[1]);
      const B Y = *reinterpret_cast<const B *>(P[2]);
      for (int64_t J = 0; J < N; ++J)
        O[J] = F(X[J], Y);
      return;
    }
    if (St[0] == OutSize && St[1] == 0 && St[2] == int64_t(sizeof(B))) {
      const A X = *reinterpret_cast<const A *>(P[1]);
      const B *Y = reinterpret_cast<const B *>(P[2]);
      for (int64_t J = 0; J < N; ++J)
        O[J] = F(X, Y[J]);
      return;
    }
  }
  for (int64_t J = 0; J < N; ++J)
    *reinterpret_cast<OutT *>(P[0] + J * St[0]) =
        F(*at<InTs>(P[I + 1], St[I + 1], J)...);
}

} // namespace detail

/// Out[i] = F(Ins[0][i], ...) over Out's shape; every input must broadcast
/// to it and have the element type given for it. An input may be Out
/// itself (an accumulation), since each element is read before it is
/// written.
template <typename OutT, typename... InTs, typename Fn>
void mapElements(const NDArray &Out,
                 const std::array<const NDArray *, sizeof...(InTs)> &Ins,
                 const Fn &F) {
  Shape LoopShape = Out.shape();
  llvm::SmallVector<LoopOperand, 4> Ops;
  Ops.push_back({Out.data(), Out.strides()});
  for (const NDArray *A : Ins)
    Ops.push_back({A->data(), broadcastStrides(*A, LoopShape)});
  coalesceLoop(LoopShape, Ops);
  forEachRow(LoopShape, Ops, [&](char **P, const int64_t *St, int64_t N) {
    detail::mapRow<OutT, InTs...>(P, St, N, F,
                                  std::index_sequence_for<InTs...>());
  });
}

} // namespace graphjit

#endif
