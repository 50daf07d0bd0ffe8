//===- Strided.cpp - Loops over strided, broadcast operands --------------===//

#include "ops/Strided.h"

using namespace graphjit;

llvm::Expected<Shape> graphjit::broadcastShapes(llvm::ArrayRef<Shape> Shapes) {
  size_t Rank = 0;
  for (const Shape &S : Shapes)
    Rank = std::max(Rank, S.size());
  Shape Out(Rank, 1);
  for (const Shape &S : Shapes) {
    size_t Off = Rank - S.size();
    for (size_t I = 0; I < S.size(); ++I) {
      int64_t &O = Out[Off + I];
      if (S[I] == O || S[I] == 1)
        continue;
      if (O == 1) {
        O = S[I];
        continue;
      }
      std::string List;
      for (const Shape &T : Shapes)
        List += (List.empty() ? "" : " ") + shapeStr(T);
      return llvm::createStringError(
          "operands could not be broadcast together with shapes " + List);
    }
  }
  return Out;
}

Shape graphjit::broadcastStrides(const NDArray &A, const Shape &OutShape) {
  Shape Strides(OutShape.size(), 0);
  size_t Off = OutShape.size() - A.rank();
  for (unsigned I = 0; I < A.rank(); ++I)
    Strides[Off + I] = (A.dim(I) == 1 && OutShape[Off + I] != 1)
                           ? 0
                           : A.strides()[I];
  return Strides;
}

llvm::Expected<unsigned> graphjit::normalizeAxis(int64_t Axis, unsigned Rank) {
  int64_t A = Axis < 0 ? Axis + int64_t(Rank) : Axis;
  if (A < 0 || A >= int64_t(Rank))
    return llvm::createStringError("axis " + std::to_string(Axis) +
                                   " is out of bounds for rank " +
                                   std::to_string(Rank));
  return unsigned(A);
}
