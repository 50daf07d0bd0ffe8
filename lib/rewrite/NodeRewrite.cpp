//===- NodeRewrite.cpp - What the rewrites share -------------------------===//

#include "NodeRewrite.h"

using namespace graphjit;
using namespace graphjit::rewrite;

std::vector<Replacement> rewrite::replaceBy(RNode &N, RValue *New) {
  if (!New || New->Type != N.Outputs[0]->Type)
    return {};
  return {{N.Outputs[0], New}};
}

bool rewrite::isConstantAll(const RValue &V, double X) {
  if (!V.isConstant())
    return false;
  const NDArray &A = V.Value;
  int64_t N = A.numElements();
  if (N == 0)
    return false;
  DType T = A.dtype();
  for (int64_t I = 0; I < N; ++I) {
    if (isFloat(T)) {
      if (A.getDouble(I) != X)
        return false;
    } else if (double(A.getInt(I)) != X) {
      return false;
    }
  }
  return true;
}

bool rewrite::sameLoc(const SourceLoc &A, const SourceLoc &B) {
  if (A.Line != B.Line || A.Col != B.Col)
    return false;
  if (A.File == B.File)
    return true;
  return A.File && B.File && *A.File == *B.File;
}
