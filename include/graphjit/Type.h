//===- graphjit/Type.h - Tensor types with static and symbolic dims -*- C++ -*-//
//
// A TensorType is a dtype and a list of dims. A dim is a known size, a
// symbolic name bound when the function is called (the same name means the
// same size), or unknown (a size only the run time will tell, e.g. the
// broadcast of two different symbols). A dim of static size 1 is
// broadcastable, as in Theano.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_TYPE_H
#define GRAPHJIT_TYPE_H

#include "graphjit/DType.h"
#include <cstdint>
#include <string>
#include <vector>

namespace graphjit {

struct Dim {
  int64_t Size = -1;  ///< >= 0 when known statically.
  std::string Symbol; ///< Non-empty for a symbolic dim.

  static Dim known(int64_t N) { return Dim{N, {}}; }
  static Dim symbolic(std::string Name) { return Dim{-1, std::move(Name)}; }
  static Dim unknown() { return Dim{}; }

  bool isKnown() const { return Size >= 0; }
  bool isSymbolic() const { return Size < 0 && !Symbol.empty(); }
  bool isBroadcastable() const { return Size == 1; }
  /// "784", "n", or "?".
  std::string str() const;
  bool operator==(const Dim &O) const {
    return Size == O.Size && Symbol == O.Symbol;
  }
  bool operator!=(const Dim &O) const { return !(*this == O); }
};

using Shape = std::vector<int64_t>;

struct TensorType {
  DType Dtype = DType::F64;
  std::vector<Dim> Dims;

  TensorType() = default;
  TensorType(DType T, std::vector<Dim> D) : Dtype(T), Dims(std::move(D)) {}
  static TensorType scalar(DType T) { return TensorType(T, {}); }

  unsigned rank() const { return Dims.size(); }
  /// The graph format's spelling: "f64[n, 784]", "f64[]".
  std::string str() const;
  bool operator==(const TensorType &O) const {
    return Dtype == O.Dtype && Dims == O.Dims;
  }
  bool operator!=(const TensorType &O) const { return !(*this == O); }
};

/// "(3, 4)" as NumPy prints shapes; "()" for a scalar.
std::string shapeStr(const Shape &S);

} // namespace graphjit

#endif
