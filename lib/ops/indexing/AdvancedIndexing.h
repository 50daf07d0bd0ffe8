//===- AdvancedIndexing.h - NumPy's integer-array indexing ------*- C++ -*-===//
//
// x[i0, :, i1] with integer arrays broadcast together and full slices, as
// NumPy reads it: where the arrays index adjacent axes, the broadcast index
// shape replaces those axes in place; otherwise it comes first. Negative
// indices count from the end; one out of bounds is NumPy's IndexError. The
// gather (advanced_subtensor) and the scatter (advanced_inc_subtensor:
// np.add.at, or x[...] = y where set) of ArrayFnOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_OPS_ADVANCEDINDEXING_H
#define GRAPHJIT_OPS_ADVANCEDINDEXING_H

#include "graphjit/NDArray.h"
#include "graphjit/Type.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace graphjit {

/// Pattern[k] for each axis k of x: -1 for a full slice, or j >= 0 for the
/// j-th index array. Axes past the pattern are full slices.
using IndexPattern = std::vector<int64_t>;

/// The static type of x[pattern] (index arrays of the given types).
llvm::Expected<std::vector<Dim>>
advancedIndexDims(const TensorType &X, llvm::ArrayRef<TensorType> Indices,
                  const IndexPattern &Pattern);

/// The shape of x[pattern] for these arrays.
llvm::Expected<Shape> advancedIndexShape(const NDArray &X,
                                         llvm::ArrayRef<NDArray> Indices,
                                         const IndexPattern &Pattern);

/// Out (of advancedIndexShape's shape, x's dtype) = x[pattern].
llvm::Error advancedGather(const NDArray &X, llvm::ArrayRef<NDArray> Indices,
                           const IndexPattern &Pattern, const NDArray &Out);

/// Out (a copy of x) with y, broadcast to x[pattern]'s shape, added at
/// x[pattern] once per occurrence of an index (np.add.at), or stored there
/// when Set (a repeated index keeps the last value).
llvm::Error advancedScatter(const NDArray &Y, llvm::ArrayRef<NDArray> Indices,
                            const IndexPattern &Pattern, bool Set,
                            const NDArray &Out);

} // namespace graphjit

#endif
