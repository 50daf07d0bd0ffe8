//===- graphjit/DType.h - Element types of tensors -------------*- C++ -*-===//
//
// The element types of the graph format (f32 f64 i8 i16 i32 i64 u8 bool), their
// sizes and names, NumPy's promotion rules between them, and a helper that
// turns a run-time DType into a C++ type for templated kernels.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_DTYPE_H
#define GRAPHJIT_DTYPE_H

#include "llvm/ADT/StringRef.h"
#include <cstddef>
#include <cstdint>
#include <optional>

namespace graphjit {

enum class DType : uint8_t { Bool, I8, I16, I32, I64, U8, F32, F64 };

constexpr DType AllDTypes[] = {DType::Bool, DType::I8,  DType::I16,
                               DType::I32,  DType::I64, DType::U8,
                               DType::F32,  DType::F64};

/// The graph format's spelling: "f64", "i32", "bool".
llvm::StringRef dtypeName(DType T);
/// NumPy's spelling, as Theano prints it: "float64", "int32", "bool".
llvm::StringRef dtypeNumpyName(DType T);
/// Parses the graph format's spelling.
std::optional<DType> parseDType(llvm::StringRef Name);
size_t dtypeSize(DType T);

inline bool isFloat(DType T) { return T == DType::F32 || T == DType::F64; }
inline bool isBool(DType T) { return T == DType::Bool; }
/// Integers proper: signed or unsigned, not bool.
inline bool isInteger(DType T) { return !isFloat(T) && !isBool(T); }
inline bool isSignedInteger(DType T) { return isInteger(T) && T != DType::U8; }

/// NumPy's result type of a binary operation on arrays of these dtypes
/// (np.result_type), e.g. u8+i8 -> i16, i32+f32 -> f64, bool+i8 -> i8.
DType promote(DType A, DType B);

/// The smallest float dtype that holds every value of T exactly enough, as
/// NumPy picks for true division and float functions of integers: f32 stays
/// f32, small integers (bool, i8, u8, i16) go to f32, the rest to f64.
DType floatTypeFor(DType T);

/// Maps a DType to its C++ element type; bool is stored as one byte, 0 or 1.
template <DType D> struct CTypeOf;
template <> struct CTypeOf<DType::Bool> { using type = bool; };
template <> struct CTypeOf<DType::I8> { using type = int8_t; };
template <> struct CTypeOf<DType::I16> { using type = int16_t; };
template <> struct CTypeOf<DType::I32> { using type = int32_t; };
template <> struct CTypeOf<DType::I64> { using type = int64_t; };
template <> struct CTypeOf<DType::U8> { using type = uint8_t; };
template <> struct CTypeOf<DType::F32> { using type = float; };
template <> struct CTypeOf<DType::F64> { using type = double; };

template <typename T> struct TypeTag { using type = T; };

/// Calls F(TypeTag<CType>{}) with the C++ type of T, so one templated body
/// serves every dtype:
///   dispatchDType(T, [&](auto Tag) { using E = typename decltype(Tag)::type; });
template <typename Fn> decltype(auto) dispatchDType(DType T, Fn &&F) {
  switch (T) {
  case DType::Bool: return F(TypeTag<bool>{});
  case DType::I8: return F(TypeTag<int8_t>{});
  case DType::I16: return F(TypeTag<int16_t>{});
  case DType::I32: return F(TypeTag<int32_t>{});
  case DType::I64: return F(TypeTag<int64_t>{});
  case DType::U8: return F(TypeTag<uint8_t>{});
  case DType::F32: return F(TypeTag<float>{});
  case DType::F64: break;
  }
  return F(TypeTag<double>{});
}

} // namespace graphjit

#endif
