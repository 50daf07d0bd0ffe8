//===- Match.h - Recognizing Applies the rewrites look for -----*- C++ -*-===//
//
// The questions every rewrite asks of the graph: is this Apply a plain
// Elemwise of a given scalar operation, a transpose, a constant scalar? Op
// classes are private to their files and the build has no RTTI, so these
// answer from className() and the public op headers.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHJIT_REWRITE_MATCH_H
#define GRAPHJIT_REWRITE_MATCH_H

#include "RewriteGraph.h"
#include "ops/elemwise/ElemwiseOps.h"
#include <optional>

namespace graphjit {
namespace rewrite {

/// N's op if it is an Elemwise (fused or in place included).
const Elemwise *elemwiseOp(const RNode &N);
/// N's op if it is the plain Elemwise of K: one scalar operation, not
/// fused, output not in place.
const Elemwise *elemwiseOf(const RNode &N, ScalarOpKind K);
/// V's producer if it is a live Apply.
RNode *liveOwner(const RValue &V);
/// V's producer if it is a live plain Elemwise of K.
RNode *producedBy(const RValue &V, ScalarOpKind K);

/// A DimShuffle's pattern read back from its name ("DimShuffle{1,x,0}",
/// -1 for x); nullopt if N is not a DimShuffle.
std::optional<std::vector<int>> dimShufflePattern(const RNode &N);
/// X if V is the transpose of a matrix X (DimShuffle{1,0}), else null.
RValue *transposed(const RValue &V);

/// The value of a constant holding exactly one element (any rank), as a
/// double; nullopt otherwise.
std::optional<double> constantScalar(const RValue &V);

/// Whether V is a float array: the rewrites that change rounding (gemm,
/// the stable forms of log and softmax) only touch floats.
inline bool isFloatValue(const RValue &V) { return isFloat(V.Type.Dtype); }

} // namespace rewrite
} // namespace graphjit

#endif
