//===- DType.cpp - Element types and NumPy's promotion rules -------------===//

#include "graphjit/DType.h"

using namespace graphjit;

llvm::StringRef graphjit::dtypeName(DType T) {
  switch (T) {
  case DType::Bool: return "bool";
  case DType::I8: return "i8";
  case DType::I16: return "i16";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  case DType::U8: return "u8";
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  }
  return "?";
}

llvm::StringRef graphjit::dtypeNumpyName(DType T) {
  switch (T) {
  case DType::Bool: return "bool";
  case DType::I8: return "int8";
  case DType::I16: return "int16";
  case DType::I32: return "int32";
  case DType::I64: return "int64";
  case DType::U8: return "uint8";
  case DType::F32: return "float32";
  case DType::F64: return "float64";
  }
  return "?";
}

std::optional<DType> graphjit::parseDType(llvm::StringRef Name) {
  for (DType T : AllDTypes)
    if (dtypeName(T) == Name)
      return T;
  return std::nullopt;
}

size_t graphjit::dtypeSize(DType T) {
  switch (T) {
  case DType::Bool:
  case DType::I8:
  case DType::U8: return 1;
  case DType::I16: return 2;
  case DType::I32:
  case DType::F32: return 4;
  case DType::I64:
  case DType::F64: return 8;
  }
  return 0;
}

// Signed integers in order of width, for promotion.
static int signedRank(DType T) {
  switch (T) {
  case DType::I8: return 0;
  case DType::I16: return 1;
  case DType::I32: return 2;
  case DType::I64: return 3;
  default: return -1;
  }
}

static DType signedOfRank(int R) {
  static const DType Ranks[] = {DType::I8, DType::I16, DType::I32, DType::I64};
  return Ranks[R < 3 ? R : 3];
}

DType graphjit::promote(DType A, DType B) {
  if (A == B)
    return A;
  if (isBool(A))
    return B;
  if (isBool(B))
    return A;
  if (isFloat(A) || isFloat(B)) {
    if (A == DType::F64 || B == DType::F64)
      return DType::F64;
    // One is f32, the other an integer: f32 holds i8, u8 and i16 exactly.
    DType I = isFloat(A) ? B : A;
    return (I == DType::I32 || I == DType::I64) ? DType::F64 : DType::F32;
  }
  // Both integers, not equal.
  if (A == DType::U8 || B == DType::U8) {
    DType S = A == DType::U8 ? B : A; // signed
    // u8 fits in i16 and wider.
    return signedOfRank(std::max(signedRank(S), 1));
  }
  return signedOfRank(std::max(signedRank(A), signedRank(B)));
}

DType graphjit::floatTypeFor(DType T) {
  switch (T) {
  case DType::F32:
  case DType::F64: return T;
  case DType::I32:
  case DType::I64: return DType::F64;
  default: return DType::F32; // NumPy would use float16, which we lack.
  }
}
