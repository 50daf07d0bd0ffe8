//===- Type.cpp - Tensor types -------------------------------------------===//

#include "graphjit/Type.h"

using namespace graphjit;

std::string Dim::str() const {
  if (isKnown())
    return std::to_string(Size);
  if (isSymbolic())
    return Symbol;
  return "?";
}

std::string TensorType::str() const {
  std::string S = dtypeName(Dtype).str() + "[";
  for (size_t I = 0; I < Dims.size(); ++I) {
    if (I)
      S += ", ";
    S += Dims[I].str();
  }
  return S + "]";
}

std::string graphjit::shapeStr(const Shape &S) {
  std::string R = "(";
  for (size_t I = 0; I < S.size(); ++I) {
    if (I)
      R += ", ";
    R += std::to_string(S[I]);
  }
  if (S.size() == 1)
    R += ",";
  return R + ")";
}
