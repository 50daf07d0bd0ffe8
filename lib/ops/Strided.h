//===- Strided.h - Loops over strided, broadcast operands ------*- C++ -*-===//
//
// The iteration every reference `perform` shares: walk an output shape with
// any number of operands, each with its own byte strides (0 on broadcast
// dims), calling a kernel once per innermost row with the row's pointers
// and strides. Dims of size 1 cost nothing; an empty shape runs no row.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_STRIDED_H
#define GRAPHJIT_OPS_STRIDED_H

#include "graphjit/NDArray.h"
#include "graphjit/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

namespace graphjit {

/// NumPy's broadcast of several shapes, or an error quoting them all.
llvm::Expected<Shape> broadcastShapes(llvm::ArrayRef<Shape> Shapes);

/// A's byte strides lined up with OutShape (A's dims aligned to the right),
/// with 0 where A is broadcast. A must broadcast to OutShape.
Shape broadcastStrides(const NDArray &A, const Shape &OutShape);

/// One operand of a loop: where it starts and its byte strides per dim of
/// the loop shape.
struct LoopOperand {
  char *Base;
  Shape Strides;
};

/// Calls Row(Ptrs, InnerStrides, Count) for every innermost row of Shape,
/// where Ptrs[k] points at operand k's first element of the row and
/// InnerStrides[k] is its byte stride along the row. A 0-d shape is one row
/// of one element.
template <typename RowFn>
void forEachRow(const Shape &LoopShape, llvm::ArrayRef<LoopOperand> Ops,
                RowFn &&Row) {
  const size_t NOps = Ops.size();
  const unsigned Rank = LoopShape.size();
  for (int64_t D : LoopShape)
    if (D == 0)
      return;
  llvm::SmallVector<char *, 8> Ptrs(NOps);
  llvm::SmallVector<int64_t, 8> Inner(NOps, 0);
  for (size_t K = 0; K < NOps; ++K) {
    Ptrs[K] = Ops[K].Base;
    if (Rank)
      Inner[K] = Ops[K].Strides[Rank - 1];
  }
  if (Rank <= 1) {
    Row(Ptrs.data(), Inner.data(), Rank ? LoopShape[0] : int64_t(1));
    return;
  }
  int64_t Count = LoopShape[Rank - 1];
  llvm::SmallVector<int64_t, 8> Index(Rank - 1, 0);
  while (true) {
    Row(Ptrs.data(), Inner.data(), Count);
    // Odometer over the outer dims.
    int D = Rank - 2;
    for (; D >= 0; --D) {
      for (size_t K = 0; K < NOps; ++K)
        Ptrs[K] += Ops[K].Strides[D];
      if (++Index[D] < LoopShape[D])
        break;
      for (size_t K = 0; K < NOps; ++K)
        Ptrs[K] -= Ops[K].Strides[D] * LoopShape[D];
      Index[D] = 0;
    }
    if (D < 0)
      return;
  }
}

/// Normalizes a possibly negative axis against Rank; an error if it is out
/// of range.
llvm::Expected<unsigned> normalizeAxis(int64_t Axis, unsigned Rank);

} // namespace graphjit

#endif
