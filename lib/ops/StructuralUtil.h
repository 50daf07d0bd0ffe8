//===- StructuralUtil.h - Helpers of the shape, indexing, reduction ops -*- C++ -*-//
//
// What the structural op families (shape, indexing, reductions, dot, nn)
// share: NumPy-style spellings of shapes and axes in messages, axis lists,
// `shape=[n,-1]` attributes with symbolic dims, checked arithmetic on sizes,
// and copying between strided arrays of different dtypes.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_STRUCTURALUTIL_H
#define GRAPHJIT_OPS_STRUCTURALUTIL_H

#include "graphjit/Attr.h"
#include "graphjit/NDArray.h"
#include "graphjit/Op.h"
#include "graphjit/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace graphjit {

/// A plain error with a message (static type errors and run-time errors).
inline llvm::Error opError(const llvm::Twine &Msg) {
  return llvm::createStringError(Msg.str());
}

/// A shape as NumPy writes it inside messages: "(2,3)", "(4,)", "()".
std::string compactShapeStr(llvm::ArrayRef<int64_t> S);
/// Static dims the same way: "(n,3)", "(?,)".
std::string compactDimsStr(llvm::ArrayRef<Dim> Dims);
/// "[0, 1]" for op names.
std::string intListStr(llvm::ArrayRef<int64_t> V);

/// NumPy's AxisError text: "axis 2 is out of bounds for array of dimension 2".
llvm::Error axisOutOfBounds(int64_t Axis, unsigned Rank);
/// Normalizes one possibly negative axis, with NumPy's message.
llvm::Expected<unsigned> checkAxis(int64_t Axis, unsigned Rank);
/// checkAxis without the message, for callers that only branch on it.
std::optional<unsigned> validAxis(int64_t Axis, unsigned Rank);
/// Normalizes a list of axes; repeated axes are NumPy's "duplicate value in
/// 'axis'". The result keeps the given order.
llvm::Expected<std::vector<unsigned>> checkAxes(llvm::ArrayRef<int64_t> Axes,
                                                unsigned Rank);

/// One entry of a `shape=[...]` attribute: a size, -1 (reshape's "infer
/// this one"), or the name of a symbolic dim of the function.
struct ShapeEntry {
  int64_t Size = 0;
  std::string Symbol; ///< Non-empty: a symbolic dim; Size is unused.
  bool isSymbol() const { return !Symbol.empty(); }
  bool isInferred() const { return Symbol.empty() && Size == -1; }
};

/// Reads `Key=[3, n, -1]` (or a single entry). -1 is allowed at most once
/// and only if AllowInfer; other negative sizes are rejected. Errors are
/// AttrErrors naming Key.
llvm::Expected<std::vector<ShapeEntry>>
readShapeAttr(const AttrReader &R, llvm::StringRef OpName, llvm::StringRef Key,
              bool AllowInfer);
/// The static dim of each entry (-1 becomes unknown).
std::vector<Dim> shapeEntryDims(llvm::ArrayRef<ShapeEntry> Entries);
/// "3, n, -1" for op names.
std::string shapeEntriesStr(llvm::ArrayRef<ShapeEntry> Entries);
/// Replaces symbols by their sizes bound for this call; -1 stays -1. An
/// unbound name is an error.
llvm::Expected<Shape> resolveShapeEntries(llvm::ArrayRef<ShapeEntry> Entries,
                                          const ExecContext &Ctx);
/// The output shape of `alloc` op O (allocFill Broadcast) for value V in
/// this call, with the host op's checks and words (the GPU path's alloc).
llvm::Expected<Shape> allocShape(const Op &O, const NDArray &V,
                                 const ExecContext &Ctx);

/// Converts one element as NumPy's astype does, without C++'s undefined
/// behaviour: a float that does not fit an integer type (NaN, inf, out of
/// range) becomes the type's minimum, as x86 NumPy gives.
template <typename DstT, typename SrcT> DstT convertElement(SrcT V) {
  if constexpr (std::is_floating_point_v<SrcT> && std::is_integral_v<DstT> &&
                !std::is_same_v<DstT, bool>) {
    constexpr double Lo = double(std::numeric_limits<DstT>::min());
    // The first value past the maximum (a power of two, so exact).
    constexpr double Hi =
        std::is_signed_v<DstT>
            ? -double(std::numeric_limits<DstT>::min())
            : 2.0 * (double(std::numeric_limits<DstT>::max() / 2) + 1.0);
    if (!(double(V) >= Lo && double(V) < Hi))
      return std::numeric_limits<DstT>::min();
  }
  return static_cast<DstT>(V);
}

/// Copies Src into Dst converting dtypes with C++ conversions (as NumPy's
/// astype). Src must broadcast to Dst's shape; Dst may be any strided view.
void copyConvert(const NDArray &Src, const NDArray &Dst);

/// Stores V, converted to Dst's dtype, in every element of Dst.
void fillWith(const NDArray &Dst, double V);

/// The number of bytes a perform that only makes views moves: none when the
/// output shares the input's buffer, else a read and a write of it.
double viewBytesMoved(llvm::ArrayRef<NDArray> Inputs,
                      llvm::ArrayRef<NDArray> Outputs);

/// C-order byte strides of S, or an error if computing them overflows
/// (possible even for shapes of zero elements).
llvm::Expected<Shape> checkedContiguousStrides(const Shape &S,
                                               size_t ElementSize);

/// Creates a C-contiguous output, or the error of a shape too large for
/// memory (also one of zero elements whose strides would overflow).
llvm::Error createOutput(NDArray &Out, DType T, const Shape &S);

/// The element count of an array's shape: 0 if any dim is 0 (whatever the
/// others), else their product, which fits since the array exists.
int64_t elementCount(const Shape &S);

} // namespace graphjit

#endif
