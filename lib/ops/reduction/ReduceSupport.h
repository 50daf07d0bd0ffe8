//===- ReduceSupport.h - Axes and loops shared by the reductions -*- C++ -*-===//
//
// Every reduction (sum, max, mean, argmax, max_and_argmax, ...) reads an
// `axis=` attribute (an int, a list, or omitted for all axes), checks it
// against the input's rank, and walks the input as "outer" dims that are
// kept (one output element each) and "inner" dims that are reduced. This is
// that common part; the kernels live with their ops.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_REDUCESUPPORT_H
#define GRAPHJIT_OPS_REDUCESUPPORT_H

#include "ops/Strided.h"
#include "graphjit/Attr.h"
#include "graphjit/NDArray.h"
#include "graphjit/Type.h"
#include <cmath>
#include <optional>
#include <type_traits>
#include <vector>

namespace graphjit {

/// The axes a reduction was written with; nullopt means all axes.
using AxisList = std::optional<std::vector<int64_t>>;

/// Reads `axis=` (absent: all axes). A literal repeated axis is an
/// AttrError. SingleAxis: argmax's rule, at most one axis.
llvm::Expected<AxisList> readAxisAttr(const AttrReader &R,
                                      llvm::StringRef OpName, bool SingleAxis);

/// "axis=[0, 1]" or "axis=all", for op names.
std::string axisNameStr(const AxisList &Axes);

/// Which dims of a rank-Rank input are reduced. Errors are AttrErrors on
/// `axis` (out of bounds, duplicate after normalizing negative axes).
llvm::Expected<std::vector<bool>> reducedMask(const AxisList &Axes,
                                              unsigned Rank);

/// The output dims: the kept dims, and 1s for reduced ones with KeepDims.
std::vector<Dim> reducedDims(llvm::ArrayRef<Dim> In,
                             const std::vector<bool> &Mask, bool KeepDims);

/// The split of an input array into kept and reduced dims.
struct ReducePlan {
  Shape OuterShape, OuterStrides; ///< kept dims and the input's strides
  Shape InnerShape, InnerStrides; ///< reduced dims, in input order
  Shape OutShape;                 ///< the output's shape (with KeepDims)
  int64_t InnerCount = 1;         ///< elements reduced into each output
  /// True if some reduced dim has size 0 (NumPy's "zero-size" errors).
  bool EmptyReduction = false;
};

ReducePlan makeReducePlan(const NDArray &X, const std::vector<bool> &Mask,
                          bool KeepDims);

/// Calls F(InBase, OutIndex) once per output element, in C order of the
/// output, where InBase is the input's first element of that reduction.
template <typename Fn>
void forEachReduction(const NDArray &X, const ReducePlan &P, Fn &&F) {
  LoopOperand Ops[1] = {{X.data(), P.OuterStrides}};
  int64_t OutIndex = 0;
  forEachRow(P.OuterShape, Ops,
             [&](char **Ptrs, const int64_t *Strides, int64_t N) {
               const char *In = Ptrs[0];
               for (int64_t I = 0; I < N; ++I, In += Strides[0])
                 F(In, OutIndex++);
             });
}

/// Calls Row(Ptr, Stride, Count) for the rows of one reduction (starting
/// at Base), in C order of the reduced dims.
template <typename RowFn>
void forEachReducedRow(const char *Base, const ReducePlan &P, RowFn &&Row) {
  LoopOperand Ops[1] = {{const_cast<char *>(Base), P.InnerStrides}};
  forEachRow(P.InnerShape, Ops,
             [&](char **Ptrs, const int64_t *Strides, int64_t N) {
               Row(static_cast<const char *>(Ptrs[0]), Strides[0], N);
             });
}

/// The element of type T at Ptr + I * Stride.
/// Whether V is a NaN (never, for integers): NaN wins max, min and their
/// arg forms, as in NumPy.
template <typename T> bool isNaN(T V) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(V);
  else
    return false;
}

template <typename T>
inline T loadAt(const char *Ptr, int64_t Stride, int64_t I) {
  return *reinterpret_cast<const T *>(Ptr + I * Stride);
}

} // namespace graphjit

#endif
